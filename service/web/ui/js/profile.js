// A player's profile (#/players/<id>): their ratings by ladder, stats, a chart of a
// ladder's rating after each rated game, and their recent finished games. The
// leaderboards (#/leaderboards?ladder=): the players ranked in a ladder, a page at a time
// (docs/api.md "Ratings, profiles and leaderboards").
//
// The pages wire their state (state/profile.js: pure) and view (view/profile.js) to the
// API; leaving a page aborts what it asked for.

import { get } from "./api.js";
import { fill, h } from "./dom.js";
import { isFollowed, setFollowing } from "./friends.js";
import { t } from "./i18n.js";
import { player } from "./player.js";
import { problemBox, refusalOf } from "./problem.js";
import { profileOf } from "./ratings.js";
import { LADDERS } from "./state/ladders.js";
import { boardOf, laddersOf } from "./state/profile.js";
import { followButton } from "./view/friends.js";
import { finishedItem, leaderboardTable, profileHead, rankedRow, ratingsTable, reputationList, showHistory, statsList } from "./view/profile.js";

/** @typedef {import("./types.js").Profile} Profile */
/** @typedef {import("./state/profile.js").HistoryEntry} HistoryEntry */
/** @typedef {import("./view/profile.js").FinishedGame} FinishedGame */
/** @typedef {import("./view/profile.js").Ranked} Ranked */

const GAMES_PAGE = 20;

/**
 * A player's profile in `main`; returns what leaving it does.
 * @param {HTMLElement} main
 * @param {string} id
 * @returns {() => void}
 */
export function profilePage(main, id) {
  const playerId = encodeURIComponent(id);
  const leaving = new AbortController();
  const root = h("div", { class: "profile", dataset: { player: playerId } }, h("p", { class: "loading" }, t("loading")));
  fill(main, root);

  /** The rating history of a ladder the player played, that one first where they played
   * most. @param {Profile} profile */
  function historySection(profile) {
    const { played, best } = laddersOf(profile);
    if (!best) return null;
    const slot = h("div", { class: "chart-slot" });
    const picker = h(
      "select",
      { id: "history-ladder", onchange: () => show(picker.value) },
      played.map((l) => h("option", { value: l, selected: l === best }, t(`ladder.${l}`))),
    );
    /** @param {string} ladder */
    async function show(ladder) {
      try {
        /** @type {{history: HistoryEntry[]}} */
        const found = await get(`/v1/players/${playerId}/ratings/${ladder}`, { signal: leaving.signal });
        showHistory(slot, found.history, ladder);
      } catch (err) {
        if (!leaving.signal.aborted) fill(slot, problemBox(refusalOf(err)));
      }
    }
    show(best);
    return h(
      "section",
      { class: "panel history", "aria-labelledby": "history-title" },
      h("h2", { id: "history-title" }, t("rating_history")),
      h("label", { class: "field" }, h("span", {}, t("ladder")), picker),
      slot,
    );
  }

  /** The player's finished games, GAMES_PAGE at a time ("More"). */
  function gamesSection() {
    const list = h("ul", { class: "inbox finished", id: "profile-games" }, h("li", { class: "none" }, t("loading")));
    const more = h("button", { type: "button", id: "profile-games-more", hidden: true }, t("more"));
    const error = h("div");
    /** @type {string | null} */
    let cursor = null;
    let first = true;
    async function load() {
      more.disabled = true;
      try {
        const query = new URLSearchParams({ limit: String(GAMES_PAGE) });
        if (cursor) query.set("cursor", cursor);
        /** @type {{games: FinishedGame[], next_cursor: string | null}} */
        const page = await get(`/v1/players/${playerId}/games?${query}`, { signal: leaving.signal });
        if (first) fill(list);
        first = false;
        list.append(...page.games.map(finishedItem));
        if (!list.children.length) fill(list, h("li", { class: "none" }, t("no_games")));
        cursor = page.next_cursor;
        more.hidden = !cursor;
      } catch (err) {
        if (!leaving.signal.aborted) fill(error, problemBox(refusalOf(err)));
      } finally {
        more.disabled = false;
      }
    }
    more.addEventListener("click", load);
    load();
    return h("section", { class: "panel", "aria-labelledby": "profile-games-title" }, h("h2", { id: "profile-games-title" }, t("recent_games")), list, more, error);
  }

  /** Follow / Unfollow, when this browser has a player and the profile is another
   * person's (a bot is not followed: it plays no game of its own). @param {Profile} profile */
  function followSection(profile) {
    const who = player();
    if (!who || who.id === id || profile.bot) return null;
    const slot = h("div", { class: "follow-slot" });
    isFollowed(id, leaving.signal).then(
      (following) => fill(slot, followButton(profile.name, following, (on) => setFollowing(id, on, leaving.signal))),
      (err) => {
        if (!leaving.signal.aborted) fill(slot, problemBox(refusalOf(err)));
      },
    );
    return slot;
  }

  (async () => {
    /** @type {Profile} */
    let profile;
    try {
      profile = await profileOf(playerId, { fresh: true }).promise;
    } catch (err) {
      if (!leaving.signal.aborted) fill(root, h("h1", {}, t("profile_title")), problemBox(refusalOf(err)));
      return;
    }
    if (leaving.signal.aborted) return;
    fill(
      root,
      profileHead(profile),
      followSection(profile),
      h(
        "div",
        { class: "profile-grid" },
        h(
          "section",
          { class: "panel", "aria-labelledby": "ratings-title" },
          h("h2", { id: "ratings-title" }, t("ratings_title")),
          ratingsTable(profile),
          h("p", {}, h("a", { href: "#/leaderboards" }, t("see_leaderboards"))),
        ),
        h("section", { class: "panel", "aria-labelledby": "stats-title" }, h("h2", { id: "stats-title" }, t("stats_title")), statsList(profile.stats)),
        profile.reputation &&
          h("section", { class: "panel", "aria-labelledby": "reputation-title" }, h("h2", { id: "reputation-title" }, t("reputation_title")), reputationList(profile)),
        historySection(profile),
        gamesSection(),
      ),
    );
  })();

  return () => leaving.abort();
}

/**
 * A leaderboard in `main`; returns what leaving it does.
 * @param {HTMLElement} main
 * @param {URLSearchParams} params
 * @returns {() => void}
 */
export function leaderboardPage(main, params) {
  const leaving = new AbortController();
  const { ladder, limit } = boardOf(params);
  const body = h("tbody", {});
  const table = leaderboardTable(ladder, body);
  const empty = h("p", { class: "none", id: "leaderboard-empty", hidden: true }, t("leaderboard_empty"));
  const more = h("button", { type: "button", id: "leaderboard-more", hidden: true }, t("more"));
  const error = h("div");
  const picker = h(
    "select",
    {
      id: "leaderboard-ladder",
      onchange: () => {
        location.hash = `#/leaderboards?ladder=${picker.value}`;
      },
    },
    LADDERS.map((l) => h("option", { value: l, selected: l === ladder }, t(`ladder.${l}`))),
  );
  /** @type {string | null} */
  let cursor = null;

  async function load() {
    more.disabled = true;
    try {
      const query = new URLSearchParams({ limit: String(limit) });
      if (cursor) query.set("cursor", cursor);
      /** @type {{players: Ranked[], next_cursor: string | null}} */
      const page = await get(`/v1/leaderboards/${ladder}?${query}`, { signal: leaving.signal });
      body.append(...page.players.map(rankedRow));
      empty.hidden = body.children.length > 0;
      table.hidden = body.children.length === 0;
      cursor = page.next_cursor;
      more.hidden = !cursor;
    } catch (err) {
      if (!leaving.signal.aborted) fill(error, problemBox(refusalOf(err)));
    } finally {
      more.disabled = false;
    }
  }
  more.addEventListener("click", load);
  table.hidden = true;
  fill(
    main,
    h(
      "div",
      { class: "leaderboards" },
      h("h1", {}, t("leaderboards_title")),
      h("p", { class: "intro" }, t("leaderboards_intro")),
      h("section", { class: "panel" }, h("label", { class: "field" }, h("span", {}, t("ladder")), picker), table, empty, more, error),
    ),
  );
  load();
  return () => leaving.abort();
}
