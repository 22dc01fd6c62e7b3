// Ratings next to players' names (docs/api.md "Ratings, profiles and leaderboards"): each
// player's profile asked once a page load (a table redrawn at every event must not ask
// again), a link to a profile, and the rating badge. The ladders are state/ladders.js.

import { get } from "./api.js";
import { fill, h } from "./dom.js";
import { t } from "./i18n.js";

/** @typedef {import("./types.js").LadderRating} LadderRating */
/** @typedef {import("./types.js").Profile} Profile */

/**
 * A profile asked for: its promise, and its value once come (undefined before, null when
 * it could not be had).
 * @typedef {{promise: Promise<Profile>, value: Profile | null | undefined}} Asked
 */

/** @type {Map<string, Asked>} player id → the profile asked for */
const profiles = new Map();

/** A player's profile (GET /v1/players/{id}), asked once a page load; `fresh` asks again.
 * @param {string} playerId
 * @param {{fresh?: boolean}} [options]
 * @returns {Asked} */
export function profileOf(playerId, { fresh = false } = {}) {
  let found = profiles.get(playerId);
  if (!found || fresh) {
    /** @type {Asked} */
    const asked = {
      value: undefined,
      promise: get(`/v1/players/${encodeURIComponent(playerId)}`).then(
        (/** @type {Profile} */ profile) => {
          asked.value = profile;
          return profile;
        },
        (err) => {
          asked.value = null;
          throw err;
        },
      ),
    };
    asked.promise.catch(() => {}); // a badge without a profile just stays empty
    profiles.set(playerId, asked);
    found = asked;
  }
  return found;
}

/** The rating as shown: the ordinal rounded, a mark while it is provisional.
 * @param {LadderRating | null} rating */
export function ratingText(rating) {
  if (!rating) return t("rating_new");
  const value = Math.round(rating.ordinal);
  return rating.provisional ? t("rating_provisional_short", { rating: value }) : String(value);
}

/** @param {HTMLElement} span @param {Profile | null} profile @param {string} ladder */
function badgeFill(span, profile, ladder) {
  if (!profile) return;
  const rating = profile.ratings?.[ladder] || null;
  span.dataset.ladder = ladder;
  span.dataset.ordinal = rating ? String(Math.round(rating.ordinal)) : "";
  span.title = rating
    ? t("rating_title", { ladder: t(`ladder.${ladder}`), mu: rating.mu.toFixed(1), sigma: rating.sigma.toFixed(1), games: rating.games })
    : t("rating_none_title", { ladder: t(`ladder.${ladder}`) });
  fill(span, ratingText(rating));
  span.hidden = false;
}

/** A badge with a player's rating in `ladder`, filled when their profile has come.
 * @param {string} playerId @param {string} ladder */
export function ratingBadge(playerId, ladder) {
  const span = h("span", { class: "badge rating", dataset: { ratingOf: playerId }, hidden: true });
  const found = profileOf(playerId);
  if (found.value !== undefined) badgeFill(span, found.value, ladder);
  else found.promise.then((profile) => badgeFill(span, profile, ladder), () => {});
  return span;
}

/** A player's name, linking to their profile.
 * @param {string} playerId @param {string} name @param {import("./dom.js").Props} [props] */
export function playerLink(playerId, name, props = {}) {
  return h("a", { href: `#/players/${playerId}`, class: "player-link", dataset: { player: playerId }, ...props }, name);
}
