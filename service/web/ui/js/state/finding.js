// Finding a game, as pure functions: the lobby's public tables as its stream (or its
// long-poll) tells them, who sits at each and which seats are free; "Play now" as the
// search it waits for (a form, a seek read back, a seek waited for, a table to open);
// and the players met in past games, to invite again. finding.js wires them to the API,
// view/finding.js draws them; tests/js/finding.test.js runs them.

/** @typedef {import("../types.js").LobbyGame} LobbyGame */
/** @typedef {import("../types.js").LobbySeat} LobbySeat */
/** @typedef {import("../types.js").GameEvent} GameEvent */
/** @typedef {import("../types.js").Seek} Seek */

// --- the public tables -------------------------------------------------------------------

/**
 * The open public tables, by game id.
 * @typedef {ReadonlyMap<string, LobbyGame>} Tables
 */

/**
 * The tables of a whole list (GET /v1/lobby, the stream's `lobby` message): those with a
 * free seat.
 * @param {LobbyGame[]} games
 * @returns {Tables}
 */
export function tablesOf(games) {
  return new Map(games.filter((g) => g.open_seats > 0).map((g) => [g.game_id, g]));
}

/**
 * The tables after a message of the lobby stream: `lobby` is the whole list, `table` one
 * table as it is now (`open_seats: 0` takes it away).
 * @param {Tables} tables
 * @param {{event: string, data: any}} message
 * @returns {Tables}
 */
export function withLobbyMessage(tables, message) {
  if (message.event === "lobby") return tablesOf(message.data.games);
  if (message.event !== "table") return tables;
  /** @type {LobbyGame} */
  const table = message.data;
  const next = new Map(tables);
  if (table.open_seats > 0) next.set(table.game_id, table);
  else next.delete(table.game_id);
  return next;
}

/**
 * The tables as the lobby lists them: the longest waiting first.
 * @param {Tables} tables
 * @returns {LobbyGame[]}
 */
export function listed(tables) {
  return [...tables.values()].sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
}

/**
 * The seats anyone may take: nobody there, no bot, not kept for an invited player.
 * @param {LobbyGame} table
 * @returns {number[]}
 */
export function freeSeats(table) {
  return table.seats.filter((s) => !s.name && !s.bot && !s.reserved_for && !s.player_id).map((s) => s.seat);
}

/**
 * Whether this browser's player sits at the table (their table opens; no Join).
 * @param {LobbyGame} table
 * @param {string | null} me
 */
export function isMine(table, me) {
  return me !== null && table.seats.some((s) => s.player_id === me);
}

/**
 * Who a table's seat is: this browser's player, a bot, kept for an invited player, a
 * player by name (with their id when the lobby gives it), or nobody yet.
 * @typedef {{kind: "you"} | {kind: "bot", level: string} | {kind: "reserved"} | {kind: "player", name: string, id: string | null} | {kind: "open"}} SeatShown
 */

/**
 * @param {LobbySeat} seat
 * @param {string | null} me
 * @returns {SeatShown}
 */
export function seatShown(seat, me) {
  if (me !== null && seat.player_id === me) return { kind: "you" };
  if (seat.bot) return { kind: "bot", level: seat.bot };
  if (seat.reserved_for) return { kind: "reserved" };
  if (seat.name) return { kind: "player", name: seat.name, id: seat.player_id };
  return { kind: "open" };
}

// --- quick play ----------------------------------------------------------------------------

/**
 * "Play now": the form (`ended`: how the last search ended, said above it: "cancelled",
 * "expired"; null: nothing to say), the search kept for this tab being read back, the
 * search waited for, or the table it found.
 * @typedef {{kind: "form", ended: string | null} | {kind: "reading", id: string}
 *   | {kind: "waiting", seek: Seek} | {kind: "matched", game: string}} Quick
 */

/**
 * What this tab keeps of its search (sessionStorage), so that coming back to the lobby
 * goes on waiting: whose it is, that another player of this browser does not wait for it.
 * @typedef {{id: string, player: string, created_at: string}} KeptSeek
 */

/**
 * Quick play as the lobby opens: reading back the search this tab kept for this player,
 * or the form.
 * @param {unknown} kept what the tab kept (anything: it is the browser's storage)
 * @param {string} me
 * @returns {Quick}
 */
export function quickStart(kept, me) {
  const found = /** @type {Partial<KeptSeek> | null} */ (kept);
  if (found && typeof found.id === "string" && found.player === me) return { kind: "reading", id: found.id };
  return { kind: "form", ended: null };
}

/**
 * The search to keep for this tab (null: none), as quick play is now.
 * @param {Quick} quick
 * @param {string} me
 * @returns {KeptSeek | null}
 */
export function keptOf(quick, me) {
  return quick.kind === "waiting" ? { id: quick.seek.id, player: me, created_at: quick.seek.created_at } : null;
}

/**
 * The id of the search waited for (or read back); null when none.
 * @param {Quick} quick
 */
export function waitedFor(quick) {
  if (quick.kind === "waiting") return quick.seek.id;
  if (quick.kind === "reading") return quick.id;
  return null;
}

/**
 * A search as the server has it (just made, read back, or read while waiting): matched,
 * its table opens; ended, the form says how; open, it is waited for. An answer about
 * another search than the one waited for changes nothing.
 * @param {Quick} quick
 * @param {Seek} seek
 * @returns {Quick}
 */
export function withSeek(quick, seek) {
  const waited = waitedFor(quick);
  if (quick.kind === "matched" || (waited !== null && seek.id !== waited)) return quick;
  if (seek.status === "matched" && seek.game_id) return { kind: "matched", game: seek.game_id };
  if (seek.status !== "open") return { kind: "form", ended: seek.status };
  if (quick.kind === "waiting") return quick; // still open: as it was
  return { kind: "waiting", seek };
}

/**
 * The player stream's `matched`: a seek of this player's was paired into a game.
 * @param {Quick} quick
 * @param {{seek_id: string, game_id: string}} data
 * @returns {Quick}
 */
export function withMatched(quick, data) {
  const waited = waitedFor(quick);
  return waited !== null && data.seek_id === waited ? { kind: "matched", game: data.game_id } : quick;
}

/**
 * The search is gone (unknown to the server, or unreadable): back to the form, nothing
 * to say.
 * @returns {Quick}
 */
export function seekGone() {
  return { kind: "form", ended: null };
}

/**
 * The search was cancelled: back to the form, which says so.
 * @returns {Quick}
 */
export function seekCancelled() {
  return { kind: "form", ended: "cancelled" };
}

/**
 * Seconds waited since `since` (ISO time), as minutes and seconds.
 * @param {string} since
 * @param {number} now
 */
export function waited(since, now) {
  const s = Math.max(0, Math.floor((now - (Date.parse(since) || now)) / 1000));
  return { m: Math.floor(s / 60), s: String(s % 60).padStart(2, "0") };
}

// --- the players of my past games ------------------------------------------------------------

/**
 * Players met in past games, to invite again: those a seat was kept for, as the games'
 * SeatJoined events name them (with the name they joined with), but me; by name.
 * @param {GameEvent[][]} feeds each game's events
 * @param {string} me
 * @returns {{id: string, name: string}[]}
 */
export function playersMet(feeds, me) {
  /** @type {Map<string, string>} */
  const met = new Map();
  for (const events of feeds) {
    for (const e of events) {
      if (e.type === "SeatJoined" && e.data.player && e.data.player !== me) met.set(e.data.player, e.data.name);
    }
  }
  return [...met].map(([id, name]) => ({ id, name })).sort((a, b) => a.name.localeCompare(b.name));
}
