// state/review.js: stepping through a review, the next mistake, the table at a decision
// (from the record), the options best first, the summary's rows, keys, and the wait
// between reads.

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  BLUNDER,
  MISTAKE,
  POLL_FIRST_MS,
  POLL_MAX_MS,
  acted,
  initialReview,
  jumped,
  keyAction,
  markOf,
  nextMistake,
  optionRows,
  phaseOf,
  pollDelay,
  sameCards,
  stepped,
  summaryRows,
  tableShown,
  toMistake,
  withReview,
} from "../../service/web/ui/js/state/review.js";

/** @typedef {import("../../service/web/ui/js/state/review.js").Decision} Decision */

/** @param {number} seat @param {string[]} chosen @param {number} loss @returns {Decision} */
const pass = (seat, chosen, loss = 0) => ({
  seq: 0,
  round: 1,
  trick: null,
  seat,
  kind: "pass",
  chosen,
  best: chosen,
  options: [{ cards: chosen, value: 0.5 }],
  loss,
});

/** @param {number} seat @param {number} trick @param {string} chosen @param {number} loss @param {number} [round] @returns {Decision} */
const play = (seat, trick, chosen, loss = 0, round = 1) => ({
  seq: 0,
  round,
  trick,
  seat,
  kind: "play",
  chosen,
  best: loss ? "blue-8" : chosen,
  options: loss ? [{ cards: chosen, value: 0.6 - loss }, { cards: "blue-8", value: 0.6 }] : [{ cards: chosen, value: 0.5 }],
  loss,
});

const DECISIONS = [
  pass(0, ["green-1", "green-2", "green-3"]),
  pass(1, ["red-8", "red-9", "red-10"], 0.3),
  pass(2, ["pink-4", "pink-5", "pink-6"]),
  play(0, 1, "green-4"),
  play(1, 1, "green-5", 0.12),
  play(2, 1, "green-6"),
  play(2, 2, "red-6", 0.05),
  play(0, 2, "red-7"),
];

/** @type {import("../../service/web/ui/js/state/review.js").Review} */
const DONE = {
  status: "done",
  level: "expert",
  decisions: DECISIONS,
  summary: [
    { seat: 1, decisions: 2, mistakes: 2, blunders: 1, accuracy: 71.26 },
    { seat: 0, decisions: 3, mistakes: 0, blunders: 0, accuracy: 100 },
    { seat: 2, decisions: 3, mistakes: 0, blunders: 0, accuracy: 98.04 },
  ],
};

const shown = () => withReview(initialReview(), DONE);

test("the phase: waiting while queued or running (or not read yet), then done or failed", () => {
  assert.equal(phaseOf(null), "waiting");
  assert.equal(phaseOf({ status: "queued" }), "waiting");
  assert.equal(phaseOf({ status: "running", decisions: [DECISIONS[0]] }), "waiting");
  assert.equal(phaseOf(DONE), "done");
  assert.equal(phaseOf({ status: "failed" }), "failed");
});

test("reads while the worker is on it back off, from a second to ten at most", () => {
  assert.equal(pollDelay(0), POLL_FIRST_MS);
  assert.equal(pollDelay(1), 1500);
  const delays = Array.from({ length: 12 }, (_, i) => pollDelay(i));
  for (let i = 1; i < delays.length; i += 1) assert.ok(delays[i] >= delays[i - 1]);
  assert.equal(delays.at(-1), POLL_MAX_MS);
});

test("stepping goes back and forward one decision, never past either end", () => {
  let state = shown();
  assert.equal(state.at, 0);
  assert.equal(stepped(state, -1).at, 0);
  state = stepped(stepped(state, 1), 1);
  assert.equal(state.at, 2);
  assert.equal(stepped(state, -1).at, 1);
  assert.equal(jumped(state, 99).at, DECISIONS.length - 1);
  assert.equal(stepped(jumped(state, 99), 1).at, DECISIONS.length - 1);
  assert.equal(jumped(initialReview(), 3).at, 0); // nothing read: nothing to step to
});

test("a review read again keeps the decision shown", () => {
  const state = jumped(shown(), 4);
  assert.equal(withReview(state, { ...DONE }).at, 4);
  assert.equal(withReview(state, { ...DONE, decisions: DECISIONS.slice(0, 2) }).at, 1);
});

test("mistakes lose at least 0.10, blunders 0.25: the contract's thresholds", () => {
  assert.equal(MISTAKE, 0.1);
  assert.equal(BLUNDER, 0.25);
  assert.equal(markOf(play(0, 1, "x-1", 0.09999)), null);
  assert.equal(markOf(play(0, 1, "x-1", 0.1)), "mistake");
  assert.equal(markOf(play(0, 1, "x-1", 0.2499)), "mistake");
  assert.equal(markOf(play(0, 1, "x-1", 0.25)), "blunder");
});

test("the next mistake: the first one after the decision shown, and back", () => {
  const state = shown();
  assert.equal(nextMistake(state), 1); // the blundered pass
  assert.equal(toMistake(state).at, 1);
  assert.equal(toMistake(toMistake(state)).at, 4); // 0.12; 0.05 at 6 is no mistake
  assert.equal(nextMistake(jumped(state, 4)), null);
  assert.equal(toMistake(jumped(state, 4)).at, 4); // none left: stays
  assert.equal(nextMistake(jumped(state, 7), -1), 4);
  assert.equal(nextMistake(jumped(state, 1), -1), null);
});

test("the options, best first, each with its loss, the chosen and the best marked", () => {
  const rows = optionRows(DECISIONS[4]);
  assert.deepEqual(
    rows.map((r) => [r.cards, r.best, r.chosen]),
    [
      ["blue-8", true, false],
      ["green-5", false, true],
    ],
  );
  assert.ok(Math.abs(rows[1].loss - 0.12) < 1e-9);
  assert.equal(rows[0].loss, 0);
  assert.ok(sameCards(["b-1", "a-2", "c-3"], ["a-2", "b-1", "c-3"]));
  assert.ok(!sameCards(["b-1", "a-2", "c-3"], ["a-2", "b-1", "c-4"]));
});

test("the summary: one row per seat in seat order, accuracy to a tenth, the first mistake", () => {
  assert.deepEqual(summaryRows(shown()), [
    { seat: 0, decisions: 3, mistakes: 0, blunders: 0, accuracy: 100, firstMistake: null },
    { seat: 1, decisions: 2, mistakes: 2, blunders: 1, accuracy: 71.3, firstMistake: 1 },
    { seat: 2, decisions: 3, mistakes: 0, blunders: 0, accuracy: 98, firstMistake: null },
  ]);
  assert.deepEqual(summaryRows(initialReview()), []);
});

test("keys: arrows step and jump between mistakes, Home and End go to either end", () => {
  assert.equal(keyAction("ArrowLeft"), "back");
  assert.equal(keyAction("ArrowRight"), "forward");
  assert.equal(keyAction("ArrowDown"), "next_mistake");
  assert.equal(keyAction("ArrowUp"), "previous_mistake");
  assert.equal(keyAction("a"), null);
  let state = shown();
  state = acted(state, "forward");
  assert.equal(state.at, 1);
  state = acted(state, "next_mistake");
  assert.equal(state.at, 4);
  state = acted(state, "previous_mistake");
  assert.equal(state.at, 1);
  state = acted(state, "last");
  assert.equal(state.at, 7);
  state = acted(state, "back");
  assert.equal(state.at, 6);
  assert.equal(acted(state, "first").at, 0);
});

test("the table at a decision: the record played up to the decision's move, every hand shown", () => {
  /** @type {import("../../service/web/ui/js/state/record.js").GameRecord} */
  const record = {
    players: 3,
    variant: "standard",
    rounds: [
      {
        number: 1,
        trump: "yellow-7",
        hands: [
          ["green-1", "green-2", "green-3", "green-4", "red-7"],
          ["red-8", "red-9", "red-10", "green-5", "blue-9"],
          ["pink-4", "pink-5", "pink-6", "green-6", "red-6"],
        ],
        moves: [
          { type: "pass", seat: 0, cards: ["green-1", "green-2", "green-3"] },
          { type: "pass", seat: 1, cards: ["red-8", "red-9", "red-10"] },
          { type: "pass", seat: 2, cards: ["pink-4", "pink-5", "pink-6"] },
          { type: "play", seat: 0, card: "green-4" },
          { type: "play", seat: 1, card: "green-5" },
          { type: "play", seat: 2, card: "green-6" },
          { type: "play", seat: 2, card: "red-6" },
          { type: "play", seat: 0, card: "red-7" },
        ],
        tricks: [2],
        result: null,
      },
    ],
  };
  const at = (/** @type {number} */ index) => tableShown({ ...jumped(withReview(initialReview(), DONE), index), record });
  // Seat 1's pass: every hand as dealt; seat 0 has passed (its three cards given).
  const passing = at(1);
  assert.equal(passing?.status, "passing");
  assert.equal(passing?.round?.turn, 1);
  assert.deepEqual(passing?.hands[1], ["green-5", "red-8", "red-9", "red-10", "blue-9"]);
  assert.deepEqual(passing?.given, [["green-1", "green-2", "green-3"], null, null]);
  assert.deepEqual(passing?.seats.map((s) => s.passed), [true, false, false]);
  // Seat 2's play into the first trick: the passes exchanged (three players: to the
  // left), the two cards played before it on the table and out of their hands.
  const third = at(5);
  assert.equal(third?.status, "playing");
  assert.equal(third?.round?.turn, 2);
  assert.deepEqual(third?.round?.trick, [
    { seat: 0, card: "green-4" },
    { seat: 1, card: "green-5" },
  ]);
  assert.deepEqual(third?.hands, [
    ["pink-4", "pink-5", "pink-6", "red-7"],
    ["green-1", "green-2", "green-3", "blue-9"],
    ["green-6", "red-6", "red-8", "red-9", "red-10"],
  ]);
  assert.deepEqual(third?.given, [null, null, null]);
  // Seat 0's second play: the first trick taken by seat 2, the second under way.
  const last = at(7);
  assert.deepEqual(last?.round?.trick, [{ seat: 2, card: "red-6" }]);
  assert.equal(last?.round?.last_trick?.winner, 2);
  assert.deepEqual(last?.seats.map((s) => [s.tricks_won, s.hand_size]), [[0, 4], [0, 4], [1, 3]]);
  // No record, or none of the decision's move: no table.
  assert.equal(tableShown(jumped(withReview(initialReview(), DONE), 5)), null);
  const other = { ...record, rounds: [{ ...record.rounds[0], moves: record.rounds[0].moves.slice(0, 3) }] };
  assert.equal(tableShown({ ...jumped(withReview(initialReview(), DONE), 5), record: other }), null);
});
