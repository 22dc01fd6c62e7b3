// A finished game's hand review (docs/api.md "Hand review"), as the review page holds it:
// the review as the API gave it, the decision shown, stepping back and forth, the next
// mistake, each seat's summary row, how long to wait before asking again while the
// worker computes it, and the table as it stood at a decision (from the game's record:
// state/record.js). Pure: no DOM, no fetch.

import { tableAt } from "./record.js";

/**
 * An option a seat had, and what the expert's search made of it: `cards` a card id (a
 * play) or three sorted ids (a pass); `value` the seat's side's expected share, 0 to 1.
 * @typedef {object} ReviewOption
 * @property {string | string[]} cards
 * @property {number} value
 */

/**
 * A pass or a play of the game, reviewed (openapi: Decision).
 * @typedef {object} Decision
 * @property {number} seq
 * @property {number} round
 * @property {number | null} trick from 1 within the round; null for a pass
 * @property {number} seat
 * @property {"pass" | "play"} kind
 * @property {string | string[]} chosen
 * @property {string | string[]} best
 * @property {ReviewOption[]} options
 * @property {number} loss value(best) − value(chosen), ≥ 0
 */

/**
 * A seat's summary (openapi: SeatReview).
 * @typedef {object} SeatReview
 * @property {number} seat
 * @property {number} decisions
 * @property {number} mistakes
 * @property {number} blunders
 * @property {number} accuracy 0 to 100
 */

/**
 * GET /v1/games/{id}/review (openapi: Review); POST answers `{status}` alone while queued.
 * @typedef {object} Review
 * @property {"queued" | "running" | "done" | "failed"} status
 * @property {string} [level]
 * @property {Decision[]} [decisions]
 * @property {SeatReview[]} [summary]
 */

/** @typedef {import("./record.js").GameRecord} GameRecord */
/** @typedef {import("./record.js").RecordTable} RecordTable */
/** @typedef {import("../types.js").View} View */

/**
 * The page's state: the review as last read (null before), the decision shown, and the
 * game's record (null until read, or when it could not be: no hands then).
 * @typedef {object} ReviewState
 * @property {Review | null} review
 * @property {number} at the index of the decision shown
 * @property {GameRecord | null} [record]
 * @property {number | null} [me] the seat of the player looking, drawn at the bottom of
 *   the table (seat 0 there for anyone who held no seat in the game)
 */

/** A decision losing this much is a mistake, this much a blunder (the contract's). */
export const MISTAKE = 0.1;
export const BLUNDER = 0.25;

/** Waiting for the worker: the first read after a second, each next one half as long
 * again, never more than ten seconds apart. */
export const POLL_FIRST_MS = 1000;
export const POLL_MAX_MS = 10000;

/** @returns {ReviewState} */
export function initialReview() {
  return { review: null, at: 0 };
}

/** What the page shows for a review: the worker still on it, done, or failed.
 * @param {Review | null} review
 * @returns {"waiting" | "done" | "failed"} */
export function phaseOf(review) {
  if (review?.status === "done") return "done";
  if (review?.status === "failed") return "failed";
  return "waiting";
}

/** How long to wait before the read after `reads` reads of a review not yet done.
 * @param {number} reads */
export function pollDelay(reads) {
  return Math.min(POLL_MAX_MS, Math.round(POLL_FIRST_MS * 1.5 ** Math.max(0, reads)));
}

/** The review as read now; the decision shown stays where it was (within the review).
 * @param {ReviewState} state @param {Review} review
 * @returns {ReviewState} */
export function withReview(state, review) {
  return clamp({ ...state, review });
}

/** @param {ReviewState} state @returns {Decision[]} */
export function decisionsOf(state) {
  return state.review?.decisions ?? [];
}

/** @param {ReviewState} state @returns {ReviewState} */
function clamp(state) {
  const last = Math.max(0, decisionsOf(state).length - 1);
  const at = Math.min(Math.max(0, state.at), last);
  return at === state.at ? state : { ...state, at };
}

/** The decision `by` steps on (−1 back, +1 forward), never past either end.
 * @param {ReviewState} state @param {number} by
 * @returns {ReviewState} */
export function stepped(state, by) {
  return clamp({ ...state, at: state.at + by });
}

/** The decision at `index` (clamped). @param {ReviewState} state @param {number} index */
export function jumped(state, index) {
  return clamp({ ...state, at: index });
}

/** "blunder", "mistake", or null: what a decision's loss makes it.
 * @param {Decision} decision
 * @returns {"blunder" | "mistake" | null} */
export function markOf(decision) {
  if (decision.loss >= BLUNDER) return "blunder";
  if (decision.loss >= MISTAKE) return "mistake";
  return null;
}

/** The index of the first mistake (or blunder) after the one shown (`direction` +1), or
 * before it (−1); null when there is none that way.
 * @param {ReviewState} state @param {1 | -1} [direction]
 * @returns {number | null} */
export function nextMistake(state, direction = 1) {
  const decisions = decisionsOf(state);
  for (let i = state.at + direction; i >= 0 && i < decisions.length; i += direction) {
    if (markOf(decisions[i])) return i;
  }
  return null;
}

/** The state at the next mistake that way; the same state when there is none.
 * @param {ReviewState} state @param {1 | -1} [direction]
 * @returns {ReviewState} */
export function toMistake(state, direction = 1) {
  const found = nextMistake(state, direction);
  return found === null ? state : { ...state, at: found };
}

/** The same cards: a card id, or a pass's three (in any order).
 * @param {string | string[]} a @param {string | string[]} b */
export function sameCards(a, b) {
  const key = (/** @type {string | string[]} */ c) => (Array.isArray(c) ? [...c].sort().join(" ") : c);
  return key(a) === key(b);
}

/** The options, best first (ties in the order the review gives them), each with its
 * loss against the best and whether it was the one chosen.
 * @param {Decision} decision
 * @returns {{cards: string | string[], value: number, loss: number, chosen: boolean, best: boolean}[]} */
export function optionRows(decision) {
  const best = Math.max(...decision.options.map((o) => o.value));
  return decision.options
    .map((o, i) => ({ o, i }))
    .sort((a, b) => b.o.value - a.o.value || a.i - b.i)
    .map(({ o }) => ({
      cards: o.cards,
      value: o.value,
      loss: Math.max(0, best - o.value),
      chosen: sameCards(o.cards, decision.chosen),
      best: sameCards(o.cards, decision.best),
    }));
}

/**
 * The summary's rows, by seat: decisions, mistakes (blunders included, as the contract
 * counts them), blunders, accuracy rounded to a tenth, and the index of the seat's first
 * mistake (null when none) for the page to jump to.
 * @param {ReviewState} state
 * @returns {{seat: number, decisions: number, mistakes: number, blunders: number, accuracy: number, firstMistake: number | null}[]}
 */
export function summaryRows(state) {
  const decisions = decisionsOf(state);
  return [...(state.review?.summary ?? [])]
    .sort((a, b) => a.seat - b.seat)
    .map((s) => {
      const first = decisions.findIndex((d) => d.seat === s.seat && markOf(d) !== null);
      return {
        seat: s.seat,
        decisions: s.decisions,
        mistakes: s.mistakes,
        blunders: s.blunders,
        accuracy: Math.round(s.accuracy * 10) / 10,
        firstMistake: first < 0 ? null : first,
      };
    });
}

/** What a key pressed on the review page does: ← →, step; ↓ ↑, the next or previous
 * mistake; Home, End, the first or last decision. Null: not the page's key.
 * @param {string} key
 * @returns {"back" | "forward" | "next_mistake" | "previous_mistake" | "first" | "last" | null} */
export function keyAction(key) {
  return (
    /** @type {Record<string, "back" | "forward" | "next_mistake" | "previous_mistake" | "first" | "last">} */ ({
      ArrowLeft: "back",
      ArrowRight: "forward",
      ArrowDown: "next_mistake",
      ArrowUp: "previous_mistake",
      Home: "first",
      End: "last",
    })[key] ?? null
  );
}

/** The state after a key's action. @param {ReviewState} state @param {NonNullable<ReturnType<typeof keyAction>>} action
 * @returns {ReviewState} */
export function acted(state, action) {
  switch (action) {
    case "back":
      return stepped(state, -1);
    case "forward":
      return stepped(state, 1);
    case "next_mistake":
      return toMistake(state, 1);
    case "previous_mistake":
      return toMistake(state, -1);
    case "first":
      return jumped(state, 0);
    case "last":
      return jumped(state, decisionsOf(state).length - 1);
  }
}

/** The table as it stood when the decision shown was made, every hand face up (the
 * game is over); null without the record, or when it does not hold the decision's move.
 * `game`: the game's view, for its seats' names.
 * @param {ReviewState} state @param {View | null} [game]
 * @returns {RecordTable | null} */
export function tableShown(state, game = null) {
  const decision = decisionsOf(state)[state.at];
  const round = state.record?.rounds.find((r) => r.number === decision?.round);
  if (!state.record || !decision || !round) return null;
  const made = round.moves.findIndex((m) =>
    decision.kind === "pass" ? m.type === "pass" && m.seat === decision.seat : m.type === "play" && "card" in m && m.card === decision.chosen,
  );
  return made < 0 ? null : tableAt(state.record, decision.round, made, game);
}
