// The client's entry: picks the language, finishes a sign-in the provider sent the
// browser back from (/?code=&state=, signin.js), then shows the page the URL's hash names.
//   #/                 the lobby          #/game/<id>   a game (my seat, or the public)
//   #/game/<id>/review a finished game's hand review, move by move
//   #/ops              operators' list    #/ops/<id>    a game's audit, state and check
//   #/ops/players/<id> a player's audit, suspension
//   #/ops/reports?status=  the moderation queue (open reports), or the closed ones
//   #/players/<id>     a player's profile #/leaderboards?ladder=  the players ranked
//   #/notifications    the player's turn notifications (push, e-mail, reminders)
//   #/friends          the players followed: online, their public games, invite one

import { h, fill } from "./dom.js";
import { friendsPage } from "./friends.js";
import { chooseLanguage, language, t, useLanguage } from "./i18n.js";
import { lobbyPage } from "./lobby.js";
import { notificationsPage } from "./notifications.js";
import { keepLanguage, registerWorker } from "./notify/push.js";
import { opsGamePage, opsListPage, opsPlayerPage } from "./ops.js";
import { player } from "./player.js";
import { opsReportsPage } from "./reports.js";
import { leaderboardPage, profilePage } from "./profile.js";
import { reviewPage } from "./review.js";
import { completeSignIn, returningFromProvider } from "./signin.js";
import { gamePage } from "./table.js";

/** An element of index.html, by id.
 * @template {HTMLElement} [E=HTMLElement]
 * @param {string} id
 * @returns {E} */
function shell(id) {
  const found = document.getElementById(id);
  if (!found) throw new Error(`index.html has no #${id}`);
  return /** @type {E} */ (found);
}

const main = shell("main");
/** What leaving the page shown does. */
let leave = () => {};

function route() {
  leave();
  const [path, query] = (location.hash.slice(1) || "/").split("?");
  const params = new URLSearchParams(query || "");
  const parts = path.split("/").filter(Boolean);
  translateShell();
  if (parts[0] === "game" && parts[1] && parts[2] === "review") leave = reviewPage(main, parts[1]);
  else if (parts[0] === "game" && parts[1]) leave = gamePage(main, parts[1]);
  else if (parts[0] === "players" && parts[1]) leave = profilePage(main, parts[1]);
  else if (parts[0] === "leaderboards") leave = leaderboardPage(main, params);
  else if (parts[0] === "notifications") leave = notificationsPage(main);
  else if (parts[0] === "friends") leave = friendsPage(main);
  else if (parts[0] === "ops" && parts[1] === "players") leave = opsPlayerPage(main, parts[2] || "");
  else if (parts[0] === "ops" && parts[1] === "reports") leave = opsReportsPage(main, params);
  else if (parts[0] === "ops" && parts[1]) leave = opsGamePage(main, parts[1]);
  else if (parts[0] === "ops") leave = opsListPage(main, params);
  else leave = lobbyPage(main, params);
  document.title = t("page_title");
}

function translateShell() {
  shell("nav-lobby").textContent = t("nav_lobby");
  shell("nav-ops").textContent = t("nav_ops");
  shell("nav-api").textContent = t("nav_api");
  shell("nav-leaderboards").textContent = t("nav_leaderboards");
  // "My profile": this browser's player's, when it has one.
  const mine = shell("nav-profile");
  const who = player();
  mine.textContent = t("nav_profile");
  mine.hidden = !who;
  mine.setAttribute("href", who ? `#/players/${who.id}` : "#/");
  const friends = shell("nav-friends");
  friends.textContent = t("nav_friends");
  friends.hidden = !who;
  shell("lang-label").textContent = t("language");
  for (const skip of document.querySelectorAll(".skip")) skip.textContent = t("skip_to_content");
  for (const nav of document.querySelectorAll(".nav")) nav.setAttribute("aria-label", t("page_title"));
}

async function boot() {
  /** @type {HTMLSelectElement} */
  const picker = shell("lang");
  await useLanguage(chooseLanguage());
  picker.value = document.documentElement.lang;
  picker.addEventListener("change", async () => {
    await useLanguage(picker.value, { remember: true });
    keepLanguage(language()).catch(() => {});
    route();
  });
  // The service worker (/sw.js) shows pushes in the page's language, and makes the client
  // installable; registering it asks the person nothing. Where it cannot be (no secure
  // context), the client works as before.
  registerWorker().catch(() => {});
  keepLanguage(language()).catch(() => {});
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
