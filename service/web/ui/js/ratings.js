// Ratings next to players' names (docs/api.md "Ratings, profiles and leaderboards"): the
// ladder a game is rated in, each player's profile asked once a page load (a table
// redrawn at every event must not ask again), a link to a profile, and the rating badge.

import { get } from "./api.js";
import { fill, h } from "./dom.js";
import { t } from "./i18n.js";

export const LADDERS = ["standard-3p", "standard-4p", "seven-followers"];

/** The ladder a game of `variant` with `players` seats is rated in. */
export function ladderOf(variant, players) {
  if (String(variant).startsWith("seven_followers")) return "seven-followers";
  return players === 3 ? "standard-3p" : "standard-4p";
}

const profiles = new Map(); // player id → {promise, value}

/** A player's profile (GET /v1/players/{id}), asked once a page load; `fresh` asks again. */
export function profileOf(playerId, { fresh = false } = {}) {
  let found = profiles.get(playerId);
  if (!found || fresh) {
    found = { value: undefined };
    found.promise = get(`/v1/players/${encodeURIComponent(playerId)}`).then(
      (profile) => {
        found.value = profile;
        return profile;
      },
      (err) => {
        found.value = null;
        throw err;
      },
    );
    found.promise.catch(() => {}); // a badge without a profile just stays empty
    profiles.set(playerId, found);
  }
  return found;
}

/** The rating as shown: the ordinal rounded, a mark while it is provisional. */
export function ratingText(rating) {
  if (!rating) return t("rating_new");
  const value = Math.round(rating.ordinal);
  return rating.provisional ? t("rating_provisional_short", { rating: value }) : String(value);
}

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

/** A badge with a player's rating in `ladder`, filled when their profile has come. */
export function ratingBadge(playerId, ladder) {
  const span = h("span", { class: "badge rating", dataset: { ratingOf: playerId }, hidden: true });
  const found = profileOf(playerId);
  if (found.value !== undefined) badgeFill(span, found.value, ladder);
  else found.promise.then((profile) => badgeFill(span, profile, ladder), () => {});
  return span;
}

/** A player's name, linking to their profile. */
export function playerLink(playerId, name, props = {}) {
  return h("a", { href: `#/players/${playerId}`, class: "player-link", dataset: { player: playerId }, ...props }, name);
}
