// The rating ladders (docs/api.md "Ratings, profiles and leaderboards"), and the one a
// game is rated in.

export const LADDERS = ["standard-3p", "standard-4p", "seven-followers"];

/** The ladder a game of `variant` with `players` seats is rated in.
 * @param {string} variant @param {number} players */
export function ladderOf(variant, players) {
  if (String(variant).startsWith("seven_followers")) return "seven-followers";
  return players === 3 ? "standard-3p" : "standard-4p";
}
