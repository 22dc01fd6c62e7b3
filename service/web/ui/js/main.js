// The client's entry: picks the language, finishes a sign-in the provider sent the
// browser back from (/?code=&state=, signin.js), then shows the page the URL's hash names.
//   #/                 the lobby          #/game/<id>   a game (my seat, or the public)
//   #/ops              operators' list    #/ops/<id>    a game's audit, state and check
//   #/ops/players/<id> a player's audit, suspension
//   #/players/<id>     a player's profile #/leaderboards?ladder=  the players ranked

import { h, fill } from "./dom.js";
import { chooseLanguage, t, useLanguage } from "./i18n.js";
import { lobbyPage } from "./lobby.js";
import { opsGamePage, opsListPage, opsPlayerPage } from "./ops.js";
import { player } from "./player.js";
import { leaderboardPage, profilePage } from "./profile.js";
import { completeSignIn, returningFromProvider } from "./signin.js";
import { gamePage } from "./table.js";

const main = document.getElementById("main");
let leave = () => {};

function route() {
  leave();
  const [path, query] = (location.hash.slice(1) || "/").split("?");
  const params = new URLSearchParams(query || "");
  const parts = path.split("/").filter(Boolean);
  translateShell();
  if (parts[0] === "game" && parts[1]) leave = gamePage(main, parts[1]);
  else if (parts[0] === "players" && parts[1]) leave = profilePage(main, parts[1]);
  else if (parts[0] === "leaderboards") leave = leaderboardPage(main, params);
  else if (parts[0] === "ops" && parts[1] === "players") leave = opsPlayerPage(main, parts[2] || "");
  else if (parts[0] === "ops" && parts[1]) leave = opsGamePage(main, parts[1]);
  else if (parts[0] === "ops") leave = opsListPage(main, params);
  else leave = lobbyPage(main, params);
  document.title = t("page_title");
}

function translateShell() {
  document.getElementById("nav-lobby").textContent = t("nav_lobby");
  document.getElementById("nav-ops").textContent = t("nav_ops");
  document.getElementById("nav-leaderboards").textContent = t("nav_leaderboards");
  // "My profile": this browser's player's, when it has one.
  const mine = document.getElementById("nav-profile");
  const who = player();
  mine.textContent = t("nav_profile");
  mine.hidden = !who;
  mine.setAttribute("href", who ? `#/players/${who.id}` : "#/");
  document.getElementById("lang-label").textContent = t("language");
  document.querySelector(".skip").textContent = t("skip_to_content");
  document.querySelector(".nav").setAttribute("aria-label", t("page_title"));
}

async function boot() {
  const picker = document.getElementById("lang");
  await useLanguage(chooseLanguage());
  picker.value = document.documentElement.lang;
  picker.addEventListener("change", async () => {
    await useLanguage(picker.value, { remember: true });
    route();
  });
  window.addEventListener("hashchange", route);
  // This browser's player token was refused (revoked elsewhere): the page shows it
  // signed out.
  window.addEventListener("yokai:signed-out", route);
  window.addEventListener("yokai:player-changed", translateShell);
  if (returningFromProvider()) {
    fill(main, h("p", { class: "loading", role: "status" }, t("signing_in")));
    await completeSignIn();
  }
  route();
}

boot().catch((err) => fill(main, h("p", { role: "alert" }, String(err))));
