// state/record.js: a finished game's table at any move of its hand record: the passes
// (three players to the left, four to the partner, Seven Followers one card to each
// other seat), the tricks and bosses won, the rounds before and their scores, the Seven
// Followers trump suit and seals, the game's seats.

import assert from "node:assert/strict";
import { test } from "node:test";

import { tableAt } from "../../service/web/ui/js/state/record.js";

/** @typedef {import("../../service/web/ui/js/state/record.js").GameRecord} GameRecord */
/** @typedef {import("../../service/web/ui/js/state/record.js").RecordRound} RecordRound */

const SUITS4 = ["green", "red", "pink", "blue"];

/** A round's plays, each [seat, card] in order. @param {[number, string][]} made */
const plays = (...made) => made.map(([seat, card]) => ({ type: "play", seat, card }));

/** Four hands of four cards, a suit each (seat 0 green, 1 red, 2 pink, 3 blue), each
 * seat passing its 1, 2 and 3.
 * @param {string} variant @returns {GameRecord} */
function passes(variant) {
  const hands = SUITS4.map((suit) => [1, 2, 3, 4].map((rank) => `${suit}-${rank}`));
  const moves = hands.map((hand, seat) => ({ type: "pass", seat, cards: hand.slice(0, 3) }));
  return { players: 4, variant, rounds: [{ number: 1, trump: null, hands, moves, tricks: [], result: null }] };
}

test("four players pass to the partner; Seven Followers one card to each other seat", () => {
  assert.deepEqual(tableAt(passes("standard"), 1, 4)?.hands[0], ["green-4", "pink-1", "pink-2", "pink-3"]);
  // Seat 0 gets seat 3's first card, seat 2's second, seat 1's third.
  assert.deepEqual(tableAt(passes("seven_followers"), 1, 4)?.hands[0], ["green-4", "pink-2", "red-3", "blue-1"]);
  // Before the last pass nothing is exchanged: the three passes made are given aside.
  const before = tableAt(passes("standard"), 1, 3);
  assert.equal(before?.status, "passing");
  assert.deepEqual(before?.hands[0], ["green-1", "green-2", "green-3", "green-4"]);
  assert.deepEqual(before?.given.map((g) => g?.length ?? null), [3, 3, 3, null]);
  assert.equal(before?.round?.turn, 3);
});

/** A three-player round: seat 0 leads two tricks, the first (two 7s in it) taken by
 * seat 1, the second by seat 0.
 * @param {number} number @returns {RecordRound} */
function round(number) {
  return {
    number,
    trump: "yellow-1",
    hands: [
      ["green-7", "red-5", "blue-2"],
      ["green-9", "red-6", "blue-3"],
      ["pink-7", "red-9", "blue-4"],
    ],
    moves: plays([0, "green-7"], [1, "green-9"], [2, "pink-7"], [1, "red-6"], [2, "red-9"], [0, "red-5"]),
    tricks: [1, 2],
    result: { reason: "bosses", winners: [1], points: [0, 2, 0], bosses: ["green-7", "pink-7"] },
  };
}

test("the tricks and bosses each seat won in the round, the last trick, the rounds before and their scores", () => {
  /** @type {GameRecord} */
  const record = { players: 3, variant: "standard", scoring: "advanced", rounds: [round(1), round(2), round(3)] };
  const table = tableAt(record, 3, 5);
  assert.equal(table?.scoring, "advanced");
  assert.equal(table?.round?.trump_suit, "yellow");
  assert.deepEqual(table?.round?.trick, [{ seat: 1, card: "red-6" }, { seat: 2, card: "red-9" }]);
  assert.deepEqual(table?.round?.last_trick, {
    number: 1,
    winner: 1,
    cards: [
      { seat: 0, card: "green-7" },
      { seat: 1, card: "green-9" },
      { seat: 2, card: "pink-7" },
    ],
  });
  assert.deepEqual(table?.seats.map((s) => [s.tricks_won, s.bosses, s.hand_size]), [
    [0, [], 2],
    [1, ["green-7", "pink-7"], 1],
    [0, [], 1],
  ]);
  // Rounds 1 and 2 are over: their results, and the scores they add up to.
  assert.deepEqual(table?.rounds.map((r) => r.number), [1, 2]);
  assert.deepEqual(table?.rounds[0].bosses_scored, ["green-7", "pink-7"]);
  assert.deepEqual(table?.scores, [0, 4, 0]);
  assert.equal(table?.round?.turn, 0);
  assert.equal(table?.seals, null);
});

test("the game's seats name the table's; without them the record's names and bots, four players in teams", () => {
  /** @type {GameRecord} */
  const record = { ...passes("standard"), seats: [0, 1, 2, 3].map((s) => ({ name: `P${s}`, bot: s === 3 ? "basic" : null })) };
  const table = tableAt(record, 1, 0);
  assert.deepEqual(table?.seats.map((s) => [s.name, s.team, s.bot]), [
    ["P0", 0, null],
    ["P1", 1, null],
    ["P2", 0, null],
    ["P3", 1, "basic"],
  ]);
  const game = /** @type {import("../../service/web/ui/js/types.js").View} */ (
    /** @type {unknown} */ ({ id: "g", rated: true, seats: table?.seats.map((s) => ({ ...s, name: `Named ${s.seat}`, hand_size: 0 })) })
  );
  const named = tableAt(record, 1, 0, game);
  assert.equal(named?.rated, true);
  assert.deepEqual(named?.seats.map((s) => [s.name, s.hand_size]), [
    ["Named 0", 4],
    ["Named 1", 4],
    ["Named 2", 4],
    ["Named 3", 4],
  ]);
});

test("Seven Followers: the first card names the trump suit; a team capturing both 7s of a suit seals it", () => {
  /** @param {string} variant @returns {GameRecord} */
  const record = (variant) => ({
    players: 4,
    variant,
    rounds: [
      {
        number: 1,
        trump: null,
        hands: [["green-7", "pink-1"], ["green-1", "pink-7"], ["green-7b", "pink-7b"], ["green-2", "pink-2"]],
        moves: plays([0, "green-7"], [1, "green-1"], [2, "green-7b"], [3, "green-2"], [2, "pink-7b"], [3, "pink-2"], [0, "pink-1"], [1, "pink-7"]),
        tricks: [2, 1],
        result: null,
      },
    ],
  });
  const first = tableAt(record("seven_followers"), 1, 0);
  assert.equal(first?.round?.trump_suit, null);
  assert.deepEqual(first?.seals, [[], []]);
  const after = tableAt(record("seven_followers"), 1, 4);
  assert.equal(after?.round?.trump_suit, "green");
  assert.deepEqual(after?.seals, [["green"], []]);
  // Team 1 took pink-7b and pink-7 together: pink sealed. Each 7 apart seals nothing.
  assert.deepEqual(tableAt(record("seven_followers"), 1, 8)?.seals, [["green"], ["pink"]]);
  // A second round where team 1 takes both green 7s: its seal too, but in the short
  // variant, where a suit is sealed by the first team only.
  /** @param {string} variant */
  const twice = (variant) => {
    const one = record(variant).rounds[0];
    return { ...record(variant), rounds: [one, { ...one, number: 2, tricks: [1, 1] }] };
  };
  assert.deepEqual(tableAt(twice("seven_followers"), 2, 4)?.seals, [["green"], ["pink", "green"]]);
  assert.deepEqual(tableAt(twice("seven_followers_short"), 2, 4)?.seals, [["green"], ["pink"]]);
});

test("no table for a round the record does not hold, or whose hands it hides", () => {
  const record = passes("standard");
  assert.equal(tableAt(record, 2, 0), null);
  const hidden = { ...record, rounds: [{ ...record.rounds[0], hands: [null, null, null, null] }] };
  assert.equal(tableAt(hidden, 1, 0), null);
});
