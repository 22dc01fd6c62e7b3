// The friends list as pure functions (docs/api.md "Blocks and follows", "Invitations"):
// the followed players a page at a time, one taken away once unfollowed, and the game that
// "Invite to a game" creates. friends.js wires them to the API, view/friends.js draws
// them; tests/js/friends.test.js runs them.

import { newGameRequest } from "./options.js";

/** @typedef {import("./options.js").Mode} Mode */
/** @typedef {import("./options.js").NewGameBody} NewGameBody */

/**
 * A followed player (GET /v1/me/follows): online (a stream of theirs open lately) and the
 * public games they hold a seat of.
 * @typedef {{player_id: string, name: string, since: string, online: boolean, playing: string[]}} Friend
 */

/** The game a friend is invited to when this browser has never asked "Play now": four
 * players, standard rules (the options form's defaults). */
export const DEFAULT_MODE = Object.freeze({ players: 4, scoring: "basic", variant: "standard", rated: false });

/**
 * The friends known after a page of GET /v1/me/follows (`first`: the list starts again).
 * A player listed twice (the list moved between pages) is kept once, where first seen.
 * @param {readonly Friend[]} friends
 * @param {readonly Friend[]} page
 * @param {boolean} first
 * @returns {Friend[]}
 */
export function withPage(friends, page, first) {
  const known = first ? [] : [...friends];
  const ids = new Set(known.map((f) => f.player_id));
  for (const friend of page) {
    if (ids.has(friend.player_id)) continue;
    known.push(friend);
    ids.add(friend.player_id);
  }
  return known;
}

/**
 * The friends after the first page was read again (to keep online and playing fresh): a
 * page that is the whole list (no `next_cursor`) replaces it; else the friends it lists
 * are updated where they stand, and the others are kept as they were.
 * @param {readonly Friend[]} friends
 * @param {{players: readonly Friend[], next_cursor: string | null}} page
 * @returns {Friend[]}
 */
export function withFirstPage(friends, page) {
  if (page.next_cursor === null) return [...page.players];
  const fresh = new Map(page.players.map((f) => [f.player_id, f]));
  return friends.map((f) => fresh.get(f.player_id) ?? f);
}

/**
 * The friends once one is unfollowed.
 * @param {readonly Friend[]} friends
 * @param {string} playerId
 */
export function withoutFriend(friends, playerId) {
  return friends.filter((f) => f.player_id !== playerId);
}

/**
 * The game "Invite to a game" creates (POST /v1/games) and the seat this browser's player
 * takes in it: the mode last asked for with "Play now" (null: DEFAULT_MODE), unrated (an
 * invitation between friends is a friendly game), seat 0 mine, seat 1 kept for the friend,
 * the others basic bots as the new-game form offers them, so that it starts once the
 * friend joins.
 * @param {Mode | null} mode
 * @param {string} friendId
 * @returns {{body: NewGameBody, mine: number}}
 */
export function inviteRequest(mode, friendId) {
  const { players, scoring, variant } = mode ?? DEFAULT_MODE;
  const seats = Array.from({ length: players }, (_, seat) => ({
    choice: seat === 0 ? "me" : seat === 1 ? "invite" : "basic",
    invite: seat === 1 ? friendId : "",
  }));
  const made = newGameRequest({ players, scoring, variant, rated: false }, { clock: null, isPublic: false, seats });
  if ("error" in made || made.mine === null) throw new Error("one seat is mine"); // never: seat 0 alone is "me"
  return { body: made.body, mine: made.mine };
}
