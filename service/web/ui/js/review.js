// A finished game's hand review (#/game/<id>/review; docs/api.md "Hand review"): the
// page reads the game (its seats' names), its record (every hand and move, as JSON:
// docs/record-format.md: the table at each decision is drawn from it) and, for a player,
// their games (the seat they held is drawn at the bottom, as at the table), asks for the
// review (POST: done already, or queued for the worker), then reads it with a growing
// pause between reads (state/review.js pollDelay) until it is done or failed, and shows
// it move by move (view/review.js). The keys: ← → step, ↓ ↑ the next or previous
// mistake, Home and End either end. Leaving the page aborts what it asked for and drops
// its keys.

import { get, post } from "./api.js";
import { pause } from "./dom.js";
import { player } from "./player.js";
import { refusalOf } from "./problem.js";
import { acted, initialReview, jumped, keyAction, phaseOf, pollDelay, withReview } from "./state/review.js";
import { heldSeat } from "./state/table.js";
import { reviewView } from "./view/review.js";

/** @typedef {import("./types.js").View} View */
/** @typedef {import("./state/review.js").Review} Review */

/** Where a key pressed is the person's own: typing or choosing. */
const KEEPS_KEYS = "input, select, textarea, [contenteditable]";

/**
 * The review page in `main`; returns what leaving it does.
 * @param {HTMLElement} main
 * @param {string} gameId
 * @returns {() => void}
 */
export function reviewPage(main, gameId) {
  const leaving = new AbortController();
  const { signal } = leaving;
  const path = `/v1/games/${encodeURIComponent(gameId)}/review`;
  let state = initialReview();
  /** @type {View | null} the game's public view: the seats' names */
  let table = null;
  const view = reviewView(main, gameId, {
    act: (action) => show(acted(state, action)),
    jump: (index) => show(jumped(state, index)),
    retry: () => ask(),
  });

  /** @param {import("./state/review.js").ReviewState} next */
  function show(next) {
    state = next;
    view.render(state, table);
  }

  /** @param {KeyboardEvent} event */
  function onKey(event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const target = /** @type {Element | null} */ (event.target);
    if (target?.closest?.(KEEPS_KEYS) || phaseOf(state.review) !== "done") return;
    const action = keyAction(event.key);
    if (!action) return;
    event.preventDefault();
    show(acted(state, action));
  }

  /** Ask for the review, then read it until the worker is done with it (or it failed). */
  async function ask() {
    try {
      /** @type {Review} */
      let found = await post(path, undefined, { signal });
      for (let reads = 0; phaseOf(found) === "waiting"; reads += 1) {
        show(withReview(state, found));
        if (!(await pause(pollDelay(reads), signal))) return;
        found = await get(path, { signal });
      }
      show(withReview(state, found));
    } catch (err) {
      if (!signal.aborted) view.failed(refusalOf(err));
    }
  }

  (async () => {
    const game = `/v1/games/${encodeURIComponent(gameId)}`;
    // Without the view the seats are named "Seat n", without the record no table is
    // drawn, without the player's games their seat is not at the bottom: the review
    // still is.
    const who = player();
    const [named, recorded, mine] = await Promise.allSettled([
      get(game, { signal }),
      get(`${game}/record`, { signal }),
      who ? get(`/v1/me/games?status=all&game=${encodeURIComponent(gameId)}`, { token: who.token, signal }) : null,
    ]);
    if (named.status === "fulfilled") table = named.value;
    if (recorded.status === "fulfilled") state = { ...state, record: recorded.value };
    if (mine.status === "fulfilled" && mine.value) state = { ...state, me: heldSeat(mine.value.games) };
    if (!signal.aborted) ask();
  })();
  document.addEventListener("keydown", onKey);
  return () => {
    leaving.abort();
    document.removeEventListener("keydown", onKey);
  };
}
