// The lobby as pure functions: my games as the player stream keeps them (the inbox, my
// turn first), the game a pasted text names (a link, a whole id, or the short id the
// pages show), and the game a lobby opened to join goes to once it has a player.
// lobby.js wires them to the API, view/lobby.js draws them; tests/js/lobby.test.js runs
// them.

/** @typedef {import("../types.js").InboxEntry} InboxEntry */

/** A whole game id, anywhere in a text (a link holds one). */
const GAME_ID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
/** The start of a game id, as the pages show it ("7ea56dc5"): 4 hex digits at least. */
const SHORT_ID = /^[0-9a-f]{4}[0-9a-f-]{0,32}$/;

/**
 * The inbox order (docs/api.md): my turn first, soonest deadline, longest waiting; then
 * the others, most recently updated first.
 * @param {InboxEntry} a
 * @param {InboxEntry} b
 */
export function inboxOrder(a, b) {
  if (a.my_turn !== b.my_turn) return a.my_turn ? -1 : 1;
  if (a.my_turn) {
    const da = a.deadline ? Date.parse(a.deadline) : Infinity;
    const db = b.deadline ? Date.parse(b.deadline) : Infinity;
    if (da !== db) return da - db;
    return Date.parse(a.due_since || "0") - Date.parse(b.due_since || "0");
  }
  return Date.parse(b.updated_at) - Date.parse(a.updated_at);
}

/**
 * My games in the inbox's order.
 * @param {readonly InboxEntry[]} games
 */
export function sortedInbox(games) {
  return [...games].sort(inboxOrder);
}

/**
 * My games after a message of the player stream: `inbox` is the whole list, `game` one
 * game as it is now (a finished one leaves it: `finished` says the list of finished
 * games is to be read again). Other messages change nothing.
 * @param {readonly InboxEntry[]} games
 * @param {{event: string, data: any}} message
 * @returns {{games: readonly InboxEntry[], finished: boolean}}
 */
export function withInboxMessage(games, message) {
  if (message.event === "inbox") return { games: message.data.games, finished: false };
  if (message.event !== "game") return { games, finished: false };
  /** @type {InboxEntry} */
  const entry = message.data;
  const others = withoutGame(games, entry.game_id);
  return entry.status === "finished" ? { games: others, finished: true } : { games: [...others, entry], finished: false };
}

/**
 * My games but one (an invitation declined: the stream will say so too).
 * @param {readonly InboxEntry[]} games
 * @param {string} gameId
 */
export function withoutGame(games, gameId) {
  return games.filter((g) => g.game_id !== gameId);
}

/**
 * What a text pasted to open a game names: a whole id (alone or in a link), the short id
 * the pages show ("7ea56dc5", "Game 7ea56dc5" too: its last word), or nothing of the kind.
 * @param {string} text
 * @returns {{kind: "id", id: string} | {kind: "short", prefix: string} | {kind: "junk"}}
 */
export function gameRef(text) {
  const whole = text.match(GAME_ID);
  if (whole) return { kind: "id", id: whole[0].toLowerCase() };
  const last = text.trim().split(/\s+/).pop() || "";
  const prefix = last.toLowerCase().replace(/[.,;:!?…]+$/, "");
  return SHORT_ID.test(prefix) ? { kind: "short", prefix } : { kind: "junk" };
}

/**
 * The game a short id names among the player's games (the API finds games by whole id
 * only): the one game whose id starts with it; or none, or several.
 * @param {readonly string[]} gameIds
 * @param {string} prefix
 * @returns {{kind: "id", id: string} | {kind: "ambiguous"} | {kind: "unknown"}}
 */
export function shortIdFound(gameIds, prefix) {
  const ids = [...new Set(gameIds.filter((id) => id.startsWith(prefix)))];
  if (ids.length === 1) return { kind: "id", id: ids[0] };
  return ids.length > 1 ? { kind: "ambiguous" } : { kind: "unknown" };
}

/**
 * The game a lobby was opened to join (`#/?join=<id>`: a game's link followed without a
 * player), where it goes once it has one; null when none (or not a game id).
 * @param {URLSearchParams} params
 */
export function joinTarget(params) {
  const join = params.get("join");
  return join && GAME_ID.test(join) ? join : null;
}
