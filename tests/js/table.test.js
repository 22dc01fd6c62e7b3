// state/table.js: a game's table state over views, events and answers, and what the page
// shows from it (the hand, the prompt, joining, the rematch, the round's end).

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  continued,
  TRICK_HOLD_MS,
  handOf,
  heldSeat,
  heldTrick,
  holdsSeat,
  initialTable,
  joinOf,
  marks,
  rematchOf,
  released,
  restarted,
  shownRoundEnd,
  started,
  toggled,
  trickRounds,
  withEvent,
  withRematch,
  withView,
} from "../../service/web/ui/js/state/table.js";

/** @typedef {import("../../service/web/ui/js/types.js").View} View */
/** @typedef {import("../../service/web/ui/js/state/table.js").TableState} TableState */

/** @param {number} seat @param {Partial<import("../../service/web/ui/js/types.js").SeatSummary>} [more] */
function seatOf(seat, more = {}) {
  return {
    seat,
    name: `P${seat}`,
    team: seat % 2,
    joined: true,
    passed: false,
    hand_size: 12,
    tricks_won: 0,
    bosses: [],
    bot: null,
    deadline: null,
    reserved_for: null,
    player_id: null,
    ...more,
  };
}

/** A seat's view of a four-player game, round 1. @param {Partial<View>} [more] @returns {View} */
function viewOf(more = {}) {
  return {
    id: "g",
    version: 10,
    players: 4,
    scoring: "basic",
    variant: "standard",
    status: "playing",
    seats: [0, 1, 2, 3].map((s) => seatOf(s)),
    round: { number: 1, trump: null, trump_suit: "red", turn: 0, trick: [], last_trick: null },
    scores: [0, 0],
    rounds: [],
    winner: null,
    seals: null,
    clock: null,
    fairness: { algorithm: "yokai-shuffle-v1", commitment: null, server_seed: null },
    rated: false,
    rematch: null,
    expired: false,
    seat: 0,
    hand: ["red-3", "green-9", "green-1", "blue-7"],
    legal: ["red-3"],
    action: "play",
    pass: null,
    ...more,
  };
}

/** The table of the seated player, showing `view`. @param {View} view @param {Partial<TableState>} [more] */
function seated(view, more = {}) {
  return { ...withView({ ...initialTable(), token: "tok" }, view), ...more };
}

/** @param {number} seq @param {string} type @param {object} data */
const event = (seq, type, data) => ({ seq, type, data });

test("an older view than the one shown is dropped", () => {
  const state = seated(viewOf({ version: 12 }));
  assert.equal(withView(state, viewOf({ version: 11, status: "passing" })), state);
  assert.equal(withView(state, viewOf({ version: 13, status: "finished" })).view?.status, "finished");
});

test("cards chosen to pass stay chosen while the same pass is awaited, and only those still held", () => {
  const passing = viewOf({ status: "passing", action: "pass", hand: ["red-3", "green-9", "green-1", "blue-7"] });
  let state = seated(passing);
  for (const card of ["green-9", "red-3", "blue-7"]) state = toggled(state, card);
  assert.deepEqual(state.chosen, ["green-9", "red-3", "blue-7"]);
  const again = withView(state, viewOf({ ...passing, version: 11, hand: ["red-3", "green-9", "green-1"] }));
  assert.deepEqual(again.chosen, ["green-9", "red-3"]);
  const nextRound = withView(state, viewOf({ ...passing, version: 12, round: { ...passing.round, number: 2 } }));
  assert.deepEqual(nextRound.chosen, []);
  const passed = withView(state, viewOf({ ...passing, version: 12, action: null }));
  assert.deepEqual(passed.chosen, []);
});

test("three cards at most are chosen; pressing one again takes it back, the order kept", () => {
  let state = seated(viewOf({ status: "passing", action: "pass" }));
  for (const card of ["red-3", "green-9", "green-1", "blue-7"]) state = toggled(state, card);
  assert.deepEqual(state.chosen, ["red-3", "green-9", "green-1"]);
  state = toggled(state, "green-9");
  assert.deepEqual(state.chosen, ["red-3", "green-1"]);
  assert.deepEqual(toggled(state, "blue-7").chosen, ["red-3", "green-1", "blue-7"]);
});

test("the events make the game's tricks, round by round, each card with its seat", () => {
  let state = initialTable();
  const replay = [
    event(1, "RoundDealt", { number: 1 }),
    event(2, "CardPlayed", { seat: 1, card: "red-3" }),
    event(3, "CardPlayed", { seat: 2, card: "red-9" }),
    event(4, "TrickTaken", { number: 1, winner: 2 }),
    event(5, "CardPlayed", { seat: 2, card: "blue-1" }),
    event(6, "RoundDealt", { number: 2 }), // a round ended mid-trick: that trick is dropped
    event(7, "CardPlayed", { seat: 0, card: "pink-4" }),
    event(8, "TrickTaken", { number: 1, winner: 0 }),
  ];
  for (const e of replay) state = withEvent(state, e);
  assert.deepEqual(state.tricks, [
    { round: 1, number: 1, winner: 2, cards: [{ seat: 1, card: "red-3" }, { seat: 2, card: "red-9" }] },
    { round: 2, number: 1, winner: 0, cards: [{ seat: 0, card: "pink-4" }] },
  ]);
  assert.deepEqual(state.playing, []);
  assert.deepEqual(
    trickRounds(state).map((r) => [r.round, r.open, r.tricks.length]),
    [
      [1, false, 1],
      [2, true, 1],
    ],
  );
});

test("only a round that ends while the page is open holds the table, until Continue", () => {
  const result = { number: 1, reason: "seven_tricks", winners: [0], points: [1, 0], bosses_scored: [] };
  let state = seated(viewOf({ version: 20 }));
  for (const e of [event(18, "RoundDealt", { number: 1 }), event(19, "CardPlayed", { seat: 0, card: "red-3" }), event(20, "TrickTaken", { number: 7, winner: 0 })]) {
    state = withEvent(state, e);
  }
  assert.equal(withEvent(state, event(20, "RoundEnded", result)).roundEnd, null); // replayed: before the page
  state = started(state);
  assert.equal(state.liveFrom, 20);
  assert.equal(withEvent(state, event(20, "RoundEnded", result)).roundEnd, null); // the view shown has it
  state = withEvent(state, event(21, "RoundEnded", result));
  assert.deepEqual(state.roundEnd, { result, trick: state.tricks[0] });
  assert.equal(marks(state, viewOf()).action, ""); // nothing to do but Continue
  assert.equal(marks(state, viewOf()).roundEnd, "1");
  assert.equal(shownRoundEnd({ ...state, view: viewOf({ status: "finished" }) }), null);
  const after = continued(state);
  assert.equal(after.roundEnd, null);
  assert.equal(marks(after, viewOf()).action, "play");
});

test("playing: the prompt, the legal cards lit, the hand sorted by suit then rank; none while busy", () => {
  const hand = handOf(seated(viewOf()));
  assert.ok(hand);
  assert.deepEqual(hand.prompt, { kind: "your_turn" });
  assert.deepEqual(
    hand.cards.map((c) => [c.card, c.state, c.chosen]),
    [
      ["green-1", "illegal", null],
      ["green-9", "illegal", null],
      ["red-3", "legal", null],
      ["blue-7", "illegal", null],
    ],
  );
  assert.ok(handOf(seated(viewOf(), { busy: true }))?.cards.every((c) => c.state === "idle"));
  assert.deepEqual(handOf(seated(viewOf({ action: null, round: { ...viewOf().round, turn: 3 } })))?.prompt, { kind: "waiting_for", seat: 3 });
  assert.ok(handOf(seated(viewOf({ action: null })))?.cards.every((c) => c.state === "idle"));
});

test("passing: to the seat across with four, to the left with three; Seven Followers one to each", () => {
  const four = handOf(seated(viewOf({ status: "passing", action: "pass", seat: 3 })));
  assert.deepEqual(four?.prompt, { kind: "pass", to: 1 });
  assert.deepEqual(four?.slots?.map((s) => s.to), [null, null, null]);
  const three = handOf(seated(viewOf({ status: "passing", action: "pass", players: 3, seat: 2, seats: [0, 1, 2].map((s) => seatOf(s)) })));
  assert.deepEqual(three?.prompt, { kind: "pass", to: 0 });
  const seven = handOf(seated(viewOf({ status: "passing", action: "pass", variant: "seven_followers", seat: 2 })));
  assert.deepEqual(seven?.prompt, { kind: "pass", to: null });
  assert.deepEqual(seven?.slots?.map((s) => s.to), [3, 0, 1]);
  assert.deepEqual(handOf(seated(viewOf({ status: "passing", action: null })))?.prompt, { kind: "pass_waiting" });
});

test("passing: chosen cards fill the slots in order; the pass is sent with three, not while busy", () => {
  let state = seated(viewOf({ status: "passing", action: "pass" }));
  state = toggled(toggled(state, "blue-7"), "green-1");
  let hand = handOf(state);
  assert.deepEqual(hand?.slots?.map((s) => s.card), ["blue-7", "green-1", null]);
  assert.deepEqual(hand?.cards.filter((c) => c.chosen).map((c) => c.card), ["green-1", "blue-7"]);
  assert.ok(hand?.cards.every((c) => c.state === "legal"));
  assert.equal(hand?.canPass, false);
  state = toggled(state, "red-3");
  assert.equal(handOf(state)?.canPass, true);
  hand = handOf({ ...state, busy: true });
  assert.equal(hand?.canPass, false);
  assert.ok(hand?.cards.every((c) => c.state === "idle"));
});

test("the pass made shows the cards received only once every one is known", () => {
  const waiting = handOf(seated(viewOf({ pass: { given: ["red-1", "red-2", "red-4"], received: ["blue-2", null, null] } })));
  assert.deepEqual(waiting?.passed, { given: ["red-1", "red-2", "red-4"], received: null });
  const done = handOf(seated(viewOf({ pass: { given: ["red-1"], received: ["blue-2", "blue-3", "blue-4"] } })));
  assert.deepEqual(done?.passed?.received, ["blue-2", "blue-3", "blue-4"]);
});

test("no hand for a watcher (no token: the public view) nor once the game is over", () => {
  const publicView = viewOf();
  delete publicView.seat;
  assert.equal(handOf(withView(initialTable(), publicView)), null);
  assert.equal(handOf(withView(initialTable(), viewOf())), null); // a seat's view, but no token
  assert.equal(handOf(seated(viewOf({ status: "finished" }))), null);
  assert.equal(marks(withView(initialTable(), publicView), publicView).seat, "");
  assert.equal(marks(seated(viewOf({ seat: 2 })), viewOf({ seat: 2 })).seat, "2");
});

test("a waiting game: free seats (not those kept for an invited player), the seat kept for me", () => {
  const empty = { joined: false, name: null };
  const seats = [seatOf(0), seatOf(1, empty), seatOf(2, { ...empty, reserved_for: "me" }), seatOf(3, { ...empty, reserved_for: "other" })];
  const watcher = withView(initialTable(), viewOf({ status: "waiting", seats, seat: undefined }));
  assert.deepEqual(joinOf(watcher, "me"), { seated: false, free: [1], kept: 2 });
  assert.deepEqual(joinOf(watcher, "someone"), { seated: false, free: [1], kept: null });
  assert.deepEqual(joinOf(seated(viewOf({ status: "waiting", seats })), "me"), { seated: true, free: [1], kept: null });
  assert.equal(joinOf(seated(viewOf()), "me"), null); // started: nothing to join
});

test("a finished game: a seated player asks for the rematch; once made, anyone is linked to it", () => {
  const finished = viewOf({ status: "finished", action: null });
  assert.deepEqual(rematchOf(seated(finished)), { ask: true, busy: false, error: null });
  assert.equal(rematchOf(withView(initialTable(), { ...finished, seat: undefined })), null);
  assert.equal(rematchOf(seated({ ...finished, expired: true })), null);
  const made = withRematch(withView(initialTable(), { ...finished, seat: undefined }), "g2");
  assert.deepEqual(rematchOf(made), { link: "g2" });
  assert.equal(withRematch(made, "g3").view?.rematch, "g2"); // the first one made stays
});

test("after a seat is taken the game is read again from its start; the page's own state stays", () => {
  let state = seated(viewOf(), { connection: "open" });
  state = withEvent(withEvent(state, event(1, "RoundDealt", { number: 1 })), event(2, "CardPlayed", { seat: 0, card: "red-3" }));
  const again = restarted(started(state));
  assert.equal(again.view, null);
  assert.deepEqual([again.tricks, again.playing, again.roundNumber, again.liveFrom], [[], [], 0, Infinity]);
  assert.equal(again.connection, "open");
});

test("a trick taken while the page is open stays on the table for its time, though the next has begun", () => {
  let state = started(seated(viewOf({ version: 10 })));
  const trick = [event(11, "CardPlayed", { seat: 0, card: "red-3" }), event(12, "CardPlayed", { seat: 1, card: "red-9" })];
  for (const e of trick) state = withEvent(state, e, 1000);
  state = withEvent(state, event(13, "TrickTaken", { number: 3, winner: 1 }), 1000);
  const taken = { round: 0, number: 3, winner: 1, cards: [{ seat: 0, card: "red-3" }, { seat: 1, card: "red-9" }] };
  state = withEvent(state, event(14, "CardPlayed", { seat: 1, card: "blue-1" }), 1100); // a bot leads at once
  assert.deepEqual(heldTrick(state, 1100), taken);
  assert.deepEqual(heldTrick(state, 1000 + TRICK_HOLD_MS - 1), taken);
  assert.equal(heldTrick(state, 1000 + TRICK_HOLD_MS), null); // its time is over: the new trick shows
  assert.equal(heldTrick(released(state), 1100), null); // the seat plays: its card shows at once
  assert.equal(heldTrick(withEvent(state, event(15, "RoundDealt", { number: 2 }), 1100), 1100), null);
});

test("a slower hold is kept as chosen; the tricks of the history replayed are not held", () => {
  let state = seated(viewOf({ version: 20 }), { holdMs: 5000 });
  state = withEvent(state, event(5, "TrickTaken", { number: 1, winner: 0 }), 0); // replayed history
  assert.equal(heldTrick(state, 1), null);
  state = started(state);
  state = withEvent(state, event(21, "TrickTaken", { number: 2, winner: 2 }), 0);
  assert.equal(heldTrick(state, 4999)?.winner, 2);
  assert.equal(initialTable().holdMs, TRICK_HOLD_MS);
});

test("a player holds a seat when their inbox has the game, not as an invitation still", () => {
  /** @param {boolean} invited @returns {import("../../service/web/ui/js/types.js").InboxEntry} */
  const entry = (invited) => ({
    game_id: "g",
    seat: 1,
    status: "waiting",
    players: 4,
    variant: "standard",
    my_turn: invited,
    action: invited ? "join" : null,
    invited,
    due_since: null,
    deadline: null,
    updated_at: "2026-01-01T10:00:00Z",
  });
  assert.equal(holdsSeat([]), false); // no seat: the seat's view is not asked (it is a 403)
  assert.equal(holdsSeat([entry(true)]), false); // kept for them, not joined yet
  assert.equal(holdsSeat([entry(false)]), true);
  // Which seat (the review draws it at the bottom): none for an invitation only.
  assert.equal(heldSeat([]), null);
  assert.equal(heldSeat([entry(true)]), null);
  assert.equal(heldSeat([entry(true), { ...entry(false), seat: 3 }]), 3);
  assert.equal(heldSeat([{ ...entry(false), seat: 0 }]), 0); // seat 0 is a seat, not "none"
});
