// The friends page (#/friends, docs/api.md "Blocks and follows"): the players this
// browser's player follows (GET /v1/me/follows, a page at a time; the first read again
// every FRIENDS_POLL_MS while the page is open, for who is online), unfollowing one
// (DELETE /v1/me/follows/{id}), and inviting one to a new game (POST /v1/games with
// `invite`, then taking my seat and opening the table). Also what a profile's Follow
// button asks: whether a player is followed, and following or unfollowing them.
//
// The page wires its state (state/friends.js: pure) and view (view/friends.js) to the
// API; leaving it aborts what it asked for.

import { follow, get, post, request } from "./api.js";
import { fill, h } from "./dom.js";
import { lastChoice } from "./finding.js";
import { t } from "./i18n.js";
import { player } from "./player.js";
import { inviteRequest, withFirstPage, withPage, withoutFriend } from "./state/friends.js";
import { friendsView } from "./view/friends.js";

/** @typedef {import("./state/friends.js").Friend} Friend */
/** @typedef {{players: Friend[], next_cursor: string | null}} FriendsPage */

/** A page of the list: the most the server gives. */
const PAGE = 200;
/** How many pages are read to find whether a player is followed (1000 follows at most). */
const FOLLOW_PAGES = 5;
/** How often the first page is read again (revalidated: an unchanged list costs a 304),
 * so that online and playing stay true while the page is open; the server's online is
 * "seen within 90 seconds". */
export const FRIENDS_POLL_MS = 30_000;

/**
 * Whether this browser's player follows `playerId` (the list read page after page).
 * @param {string} playerId
 * @param {AbortSignal} signal
 */
export async function isFollowed(playerId, signal) {
  const who = player();
  if (!who) return false;
  /** @type {string | null} */
  let cursor = null;
  for (let pages = 0; pages < FOLLOW_PAGES; pages += 1) {
    const query = new URLSearchParams({ limit: String(PAGE) });
    if (cursor) query.set("cursor", cursor);
    /** @type {FriendsPage} */
    const page = await get(`/v1/me/follows?${query}`, { token: who.token, signal });
    if (page.players.some((f) => f.player_id === playerId)) return true;
    cursor = page.next_cursor;
    if (!cursor) break;
  }
  return false;
}

/**
 * Follow `playerId` (on) or stop following them, as this browser's player.
 * @param {string} playerId
 * @param {boolean} on
 * @param {AbortSignal} [signal]
 */
export async function setFollowing(playerId, on, signal) {
  const who = player();
  if (!who) return;
  await request(on ? "PUT" : "DELETE", `/v1/me/follows/${encodeURIComponent(playerId)}`, { token: who.token, signal });
}

/**
 * The friends page in `main`; returns what leaving it does.
 * @param {HTMLElement} main
 * @returns {() => void}
 */
export function friendsPage(main) {
  const leaving = new AbortController();
  const signal = leaving.signal;
  const who = player();
  if (!who) {
    fill(main, h("h1", {}, t("friends_title")), h("p", { id: "friends-need-player" }, t("friends_need_player"), " ", h("a", { href: "#/" }, t("nav_lobby"))));
    return () => leaving.abort();
  }
  const token = who.token;
  /** @type {Friend[]} */
  let friends = [];
  /** @type {string | null} */
  let cursor = null;

  const view = friendsView({
    more: () => load(false),
    unfollow: async (friend) => {
      await setFollowing(friend.player_id, false, signal);
      friends = withoutFriend(friends, friend.player_id);
      view.show(friends, cursor !== null);
    },
    invite: async (friend) => {
      // The request carries the player's token: the invitation names who invites.
      const { body, mine } = inviteRequest(lastChoice(), friend.player_id);
      /** @type {{id: string}} */
      const game = await post("/v1/games", body, { token, signal });
      await post(`/v1/games/${game.id}/seats/${mine}`, {}, { token, signal });
      location.hash = `#/game/${game.id}`;
    },
  });

  /** @param {boolean} first */
  async function load(first) {
    try {
      const query = new URLSearchParams({ limit: String(PAGE) });
      if (!first && cursor) query.set("cursor", cursor);
      /** @type {FriendsPage} */
      const page = await get(`/v1/me/follows?${query}`, { token, signal });
      friends = withPage(friends, page.players, first);
      cursor = page.next_cursor;
      view.show(friends, cursor !== null);
    } catch (err) {
      if (!signal.aborted) view.failed(err);
    }
  }

  fill(main, view.section);
  load(true);
  follow(`/v1/me/follows?limit=${PAGE}`, {
    token,
    signal,
    every: FRIENDS_POLL_MS,
    onChange: (/** @type {FriendsPage} */ page) => {
      friends = withFirstPage(friends, page);
      if (page.next_cursor === null) cursor = null;
      view.show(friends, cursor !== null);
    },
  });
  return () => leaving.abort();
}
