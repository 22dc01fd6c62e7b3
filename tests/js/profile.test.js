// state/profile.js: a rating history as its chart's points, the ladder a profile shows
// first, a leaderboard link's ladder and page size.

import assert from "node:assert/strict";
import { test } from "node:test";

import { FRAME, boardOf, chartPoints, laddersOf, ordinal } from "../../service/web/ui/js/state/profile.js";

/** @param {number} before @param {number} after @param {string} at */
const game = (before, after, at) => ({ before: { mu: before, sigma: 0 }, after: { mu: after, sigma: 0 }, at });

test("the chart: the rating before the first game, then after each one, left to right, higher up", () => {
  const history = [game(10, 14, "t1"), game(14, 12, "t2")];
  const { low, high, points } = chartPoints(history);
  assert.deepEqual(
    points.map((p) => [p.value, p.entry?.at ?? null]),
    [
      [10, null],
      [14, "t1"],
      [12, "t2"],
    ],
  );
  assert.deepEqual([low, high], [10, 14]);
  assert.equal(points[0].x, FRAME.left);
  assert.equal(points[2].x, FRAME.width - FRAME.right);
  assert.equal(points[1].y, FRAME.top); // the highest at the top
  assert.equal(points[0].y, FRAME.height - FRAME.bottom); // the lowest at the bottom
  assert.ok(points[2].y < points[0].y && points[2].y > points[1].y);
});

test("the chart: one game's flat line sits mid-chart, between values 2 apart", () => {
  const { low, high, points } = chartPoints([game(5, 5, "t1")]);
  assert.deepEqual([low, high], [4, 6]);
  assert.equal(points[0].y, points[1].y);
  assert.equal(points[0].y, FRAME.top + (FRAME.height - FRAME.top - FRAME.bottom) / 2);
  assert.equal(ordinal({ mu: 25, sigma: 3 }), 16);
});

test("a profile shows first the ladder played most; none when it has no rating", () => {
  /** @param {Record<string, number>} games */
  const profile = (games) => ({
    id: "p",
    name: "P",
    stats: { games: 0, wins: 0, rated_games: 0, abandoned: 0 },
    ratings: Object.fromEntries(Object.entries(games).map(([l, n]) => [l, { mu: 25, sigma: 8, ordinal: 1, games: n, provisional: true }])),
  });
  assert.deepEqual(laddersOf(profile({ "standard-4p": 2, "seven-followers": 5 })), { played: ["standard-4p", "seven-followers"], best: "seven-followers" });
  assert.deepEqual(laddersOf(profile({ "standard-3p": 3, "standard-4p": 3 })).best, "standard-3p");
  assert.deepEqual(laddersOf(profile({})), { played: [], best: null });
});

test("a leaderboard link: its ladder (the first when unknown) and its page size (1 to 200, else 50)", () => {
  assert.deepEqual(boardOf(new URLSearchParams("ladder=seven-followers&limit=2")), { ladder: "seven-followers", limit: 2 });
  assert.deepEqual(boardOf(new URLSearchParams("ladder=chess&limit=5000")), { ladder: "standard-3p", limit: 200 });
  assert.deepEqual(boardOf(new URLSearchParams("limit=0")), { ladder: "standard-3p", limit: 50 });
  assert.deepEqual(boardOf(new URLSearchParams("limit=-3")), { ladder: "standard-3p", limit: 1 });
});
