// Profiles and leaderboards, as pure functions: a rating history as the points of its
// chart, the ladder a profile shows first, and a leaderboard link's ladder and page
// size. profile.js wires them to the API, view/profile.js draws them; tests/js/profile.test.js
// runs them.

import { LADDERS } from "./ladders.js";

/** @typedef {import("../types.js").Profile} Profile */

/**
 * A rating history's entry (GET /v1/players/{id}/ratings/{ladder}): the rating before
 * and after a rated game, and when.
 * @typedef {{before: {mu: number, sigma: number}, after: {mu: number, sigma: number}, at: string}} HistoryEntry
 */

/** A leaderboard's page size, unless its link says (1–200). */
const BOARD_PAGE = 50;

/** The ordinal of a rating: mu − 3σ. @param {{mu: number, sigma: number}} r */
export const ordinal = (r) => r.mu - 3 * r.sigma;

/** A rating as shown: one decimal. @param {number} x */
export const round1 = (x) => (Math.round(x * 10) / 10).toFixed(1);

/**
 * The chart's frame: its size and margins (the SVG's units).
 * @typedef {{width: number, height: number, left: number, right: number, top: number, bottom: number}} Frame
 */

/** @type {Frame} */
export const FRAME = { width: 480, height: 180, left: 44, right: 12, top: 12, bottom: 24 };

/**
 * A rating history as a chart's points: the ordinal before the first game, then after
 * each one, placed in `frame` (x evenly, y between the lowest and highest value, which
 * are at least 2 apart so that a flat line sits mid-chart).
 * @param {readonly HistoryEntry[]} history
 * @param {Frame} [frame]
 */
export function chartPoints(history, frame = FRAME) {
  const values = history.length ? [ordinal(history[0].before), ...history.map((e) => ordinal(e.after))] : [];
  let low = Math.min(...values);
  let high = Math.max(...values);
  if (!(high - low > 1)) {
    low -= 1;
    high += 1;
  }
  const { width, height, left, right, top, bottom } = frame;
  /** @param {number} i */
  const x = (i) => left + (values.length > 1 ? (i * (width - left - right)) / (values.length - 1) : (width - left - right) / 2);
  /** @param {number} v */
  const y = (v) => top + ((high - v) * (height - top - bottom)) / (high - low);
  return {
    low,
    high,
    y,
    points: values.map((value, i) => ({ value, x: x(i), y: y(value), entry: i > 0 ? history[i - 1] : null })),
  };
}

/**
 * The ladders a player is rated in, and the one shown first: where they played most.
 * @param {Profile} profile
 */
export function laddersOf(profile) {
  const played = LADDERS.filter((l) => profile.ratings[l]);
  const games = (/** @type {string} */ l) => profile.ratings[l]?.games ?? 0;
  const best = played.length ? played.reduce((a, b) => (games(b) > games(a) ? b : a)) : null;
  return { played, best };
}

/**
 * A leaderboard link's ladder (the first one when none or unknown) and page size
 * (its `limit`, 1–200; else BOARD_PAGE).
 * @param {URLSearchParams} params
 */
export function boardOf(params) {
  const asked = params.get("ladder") ?? "";
  return {
    ladder: LADDERS.includes(asked) ? asked : LADDERS[0],
    limit: Math.min(200, Math.max(1, Number(params.get("limit")) || BOARD_PAGE)),
  };
}
