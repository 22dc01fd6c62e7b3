// state/lobby.js: my games over the player stream's messages, in the inbox's order; the
// game a pasted text names; the game a lobby opened to join goes to.

import assert from "node:assert/strict";
import { test } from "node:test";

import { gameRef, joinTarget, shortIdFound, sortedInbox, withInboxMessage, withoutGame } from "../../service/web/ui/js/state/lobby.js";

/** @typedef {import("../../service/web/ui/js/types.js").InboxEntry} InboxEntry */

/** @param {string} id @param {Partial<InboxEntry>} [more] @returns {InboxEntry} */
function entry(id, more = {}) {
  return {
    game_id: id,
    seat: 0,
    status: "playing",
    players: 4,
    variant: "standard",
    my_turn: false,
    action: null,
    invited: false,
    due_since: null,
    deadline: null,
    updated_at: "2026-01-01T10:00:00Z",
    ...more,
  };
}

test("the inbox: my turn first (soonest deadline, then longest waiting), then the latest updated", () => {
  const games = [
    entry("old", { updated_at: "2026-01-01T09:00:00Z" }),
    entry("turn-no-deadline", { my_turn: true, due_since: "2026-01-01T08:00:00Z" }),
    entry("new", { updated_at: "2026-01-01T11:00:00Z" }),
    entry("turn-late", { my_turn: true, deadline: "2026-01-01T12:00:00Z" }),
    entry("turn-soon", { my_turn: true, deadline: "2026-01-01T10:30:00Z" }),
    entry("turn-waiting-long", { my_turn: true, due_since: "2026-01-01T07:00:00Z" }),
  ];
  assert.deepEqual(
    sortedInbox(games).map((g) => g.game_id),
    ["turn-soon", "turn-late", "turn-waiting-long", "turn-no-deadline", "new", "old"],
  );
  assert.equal(games[0].game_id, "old"); // the list itself is left as it was
});

test("the player stream: the whole inbox, then a game at a time; a finished one leaves for the finished list", () => {
  let { games } = withInboxMessage([], { event: "inbox", data: { games: [entry("a"), entry("b")] } });
  const moved = entry("a", { my_turn: true, action: "play" });
  let next = withInboxMessage(games, { event: "game", data: moved });
  assert.deepEqual(next, { games: [entry("b"), moved], finished: false });
  next = withInboxMessage(next.games, { event: "game", data: entry("b", { status: "finished" }) });
  assert.deepEqual(next, { games: [moved], finished: true });
  games = next.games;
  assert.equal(withInboxMessage(games, { event: "matched", data: {} }).games, games);
  assert.deepEqual(withoutGame([entry("a"), entry("b")], "a"), [entry("b")]);
});

test("a pasted text names a game by its whole id (in a link too), or by the short id the pages show", () => {
  const id = "7ea56dc5-1234-4abc-9def-0123456789ab";
  assert.deepEqual(gameRef(`https://yokai.example/#/game/${id.toUpperCase()}`), { kind: "id", id });
  assert.deepEqual(gameRef("Game 7EA56DC5."), { kind: "short", prefix: "7ea56dc5" });
  assert.deepEqual(gameRef("  7ea5 "), { kind: "short", prefix: "7ea5" });
  assert.deepEqual(gameRef("7ea"), { kind: "junk" }); // too short to look for
  assert.deepEqual(gameRef("hello"), { kind: "junk" });
});

test("a short id is one of my games, or several, or none", () => {
  const ids = ["7ea56dc5-0000-4000-8000-000000000001", "7ea50000-0000-4000-8000-000000000002", "aaaa0000-0000-4000-8000-000000000003"];
  assert.deepEqual(shortIdFound(ids, "7ea56"), { kind: "id", id: ids[0] });
  assert.deepEqual(shortIdFound([...ids, ids[0]], "7ea56"), { kind: "id", id: ids[0] }); // listed twice, one game
  assert.deepEqual(shortIdFound(ids, "7ea5"), { kind: "ambiguous" });
  assert.deepEqual(shortIdFound(ids, "bbbb"), { kind: "unknown" });
});

test("a lobby opened to join a game goes there once it has a player; not for anything else", () => {
  const id = "7ea56dc5-1234-4abc-9def-0123456789ab";
  assert.equal(joinTarget(new URLSearchParams(`join=${id}`)), id);
  assert.equal(joinTarget(new URLSearchParams("join=javascript:alert(1)")), null);
  assert.equal(joinTarget(new URLSearchParams("")), null);
});
