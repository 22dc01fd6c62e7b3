// state/finding.js: the public tables over the lobby stream's messages, who sits at a
// table and which seats are free; "Play now" over the seek's answers; the players met.

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  freeSeats,
  isMine,
  listed,
  playersMet,
  quickStart,
  seatShown,
  seekCancelled,
  seekGone,
  tablesOf,
  waited,
  waitedFor,
  withLobbyMessage,
  withMatched,
  withSeek,
} from "../../service/web/ui/js/state/finding.js";

/** @typedef {import("../../service/web/ui/js/types.js").LobbyGame} LobbyGame */
/** @typedef {import("../../service/web/ui/js/types.js").LobbySeat} LobbySeat */
/** @typedef {import("../../service/web/ui/js/types.js").Seek} Seek */

/** @param {number} seat @param {Partial<LobbySeat>} [more] @returns {LobbySeat} */
const seat = (seat, more = {}) => ({ seat, name: null, bot: null, player_id: null, reserved_for: null, ...more });

/** @param {string} id @param {string} created @param {Partial<LobbyGame>} [more] @returns {LobbyGame} */
function table(id, created, more = {}) {
  return {
    game_id: id,
    players: 3,
    scoring: "basic",
    variant: "standard",
    rated: false,
    clock: null,
    seats: [seat(0, { name: "Hana" }), seat(1), seat(2)],
    open_seats: 2,
    created_at: created,
    ...more,
  };
}

test("the lobby: its whole list, then one table at a time; a table without a free seat leaves", () => {
  const a = table("a", "2026-01-01T10:00:02Z");
  const b = table("b", "2026-01-01T10:00:01Z");
  let tables = withLobbyMessage(tablesOf([]), { event: "lobby", data: { games: [a, b, table("full", "2026-01-01T10:00:00Z", { open_seats: 0 })] } });
  assert.deepEqual(listed(tables).map((x) => x.game_id), ["b", "a"]); // the longest waiting first
  tables = withLobbyMessage(tables, { event: "table", data: table("c", "2026-01-01T09:00:00Z") });
  tables = withLobbyMessage(tables, { event: "table", data: { ...a, open_seats: 0 } });
  assert.deepEqual(listed(tables).map((x) => x.game_id), ["c", "b"]);
  const updated = { ...b, open_seats: 1, seats: [seat(0, { name: "Hana" }), seat(1, { name: "Gin" }), seat(2)] };
  tables = withLobbyMessage(tables, { event: "table", data: updated });
  assert.equal(tables.get("b"), updated);
  assert.equal(withLobbyMessage(tables, { event: "message", data: {} }), tables);
});

test("free seats: nobody there, no bot, not kept for an invited player", () => {
  const t = table("a", "2026-01-01T10:00:00Z", {
    players: 4,
    seats: [seat(0, { name: "Hana", player_id: "h" }), seat(1, { bot: "basic", name: "Basic bot 1" }), seat(2, { reserved_for: "x" }), seat(3)],
  });
  assert.deepEqual(freeSeats(t), [3]);
  assert.equal(isMine(t, "h"), true);
  assert.equal(isMine(t, "x"), false); // invited, not seated
  assert.equal(isMine(t, null), false);
});

test("who a seat is: me, a bot, kept for someone, a named player, or open", () => {
  assert.deepEqual(seatShown(seat(0, { name: "Hana", player_id: "h" }), "h"), { kind: "you" });
  assert.deepEqual(seatShown(seat(0, { name: "Hana", player_id: "h" }), "other"), { kind: "player", name: "Hana", id: "h" });
  assert.deepEqual(seatShown(seat(0, { name: "Gin" }), null), { kind: "player", name: "Gin", id: null });
  assert.deepEqual(seatShown(seat(1, { bot: "strong", name: "Strong bot 1" }), null), { kind: "bot", level: "strong" });
  assert.deepEqual(seatShown(seat(2, { reserved_for: "x" }), null), { kind: "reserved" });
  assert.deepEqual(seatShown(seat(3), null), { kind: "open" });
});

/** @param {string} id @param {Seek["status"]} status @param {Partial<Seek>} [more] @returns {Seek} */
const seek = (id, status, more = {}) => ({
  id,
  status,
  players: 4,
  scoring: "basic",
  variant: "standard",
  rated: false,
  bots_after_seconds: null,
  created_at: "2026-01-01T10:00:00Z",
  game_id: null,
  ...more,
});

test("Play now: a search this tab kept for this player is read back; another player's is not", () => {
  assert.deepEqual(quickStart({ id: "s1", player: "me", created_at: "x" }, "me"), { kind: "reading", id: "s1" });
  assert.deepEqual(quickStart({ id: "s1", player: "someone", created_at: "x" }, "me"), { kind: "form", ended: null });
  assert.deepEqual(quickStart(null, "me"), { kind: "form", ended: null });
  assert.deepEqual(quickStart("junk", "me"), { kind: "form", ended: null });
});

test("Play now: a search made is waited for until matched, when its table opens", () => {
  let quick = quickStart(null, "me");
  const open = seek("s1", "open");
  quick = withSeek(quick, open);
  assert.deepEqual(quick, { kind: "waiting", seek: open });
  assert.equal(waitedFor(quick), "s1");
  assert.equal(withSeek(quick, seek("s1", "open")), quick); // still open: nothing to draw again
  assert.equal(withSeek(quick, seek("s2", "matched", { game_id: "g9" })), quick); // another search
  assert.deepEqual(withSeek(quick, seek("s1", "matched", { game_id: "g1" })), { kind: "matched", game: "g1" });
  assert.deepEqual(withSeek(quickStart(null, "me"), seek("s3", "matched", { game_id: "g3" })), { kind: "matched", game: "g3" });
});

test("Play now: the player stream's `matched` opens the table of the search waited for only", () => {
  const reading = quickStart({ id: "s1", player: "me", created_at: "x" }, "me");
  assert.deepEqual(withMatched(reading, { seek_id: "s1", game_id: "g1" }), { kind: "matched", game: "g1" });
  assert.equal(withMatched(reading, { seek_id: "s2", game_id: "g2" }), reading);
  const form = quickStart(null, "me");
  assert.equal(withMatched(form, { seek_id: "s1", game_id: "g1" }), form);
});

test("Play now: a search read back or waited for that ended says how; a lost one says nothing", () => {
  const reading = quickStart({ id: "s1", player: "me", created_at: "x" }, "me");
  assert.deepEqual(withSeek(reading, seek("s1", "expired")), { kind: "form", ended: "expired" });
  assert.deepEqual(withSeek(reading, seek("s1", "open")).kind, "waiting");
  assert.deepEqual(seekCancelled(), { kind: "form", ended: "cancelled" });
  assert.deepEqual(seekGone(), { kind: "form", ended: null });
  assert.equal(waitedFor(seekGone()), null);
});

test("the time waited, as minutes and seconds", () => {
  assert.deepEqual(waited("2026-01-01T10:00:00Z", Date.parse("2026-01-01T10:01:05.900Z")), { m: 1, s: "05" });
  assert.deepEqual(waited("2026-01-01T10:00:00Z", Date.parse("2026-01-01T09:59:00Z")), { m: 0, s: "00" });
});

test("players met: those a seat was kept for, by the name they joined with, not me, by name", () => {
  /** @param {number} seq @param {object} data */
  const joined = (seq, data) => ({ seq, type: "SeatJoined", data });
  const feeds = [
    [joined(1, { seat: 0, name: "Me", player: "me" }), joined(2, { seat: 1, name: "Zoe", player: "z" }), joined(3, { seat: 2, name: "anon" })],
    [joined(1, { seat: 0, name: "Kei", player: "k" }), { seq: 2, type: "SeatDeclined", data: { seat: 1, player: "d" } }],
  ];
  assert.deepEqual(playersMet(feeds, "me"), [
    { id: "k", name: "Kei" },
    { id: "z", name: "Zoe" },
  ]);
});
