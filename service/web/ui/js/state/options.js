// The options a game is made with, as the server takes them: a search for one (Play now,
// POST /v1/seeks) and a new game (POST /v1/games) share its mode (players, scoring,
// variant, rated). Pure: view/options.js is the one form both are chosen in.

/**
 * A game's mode, as the options form says it.
 * @typedef {object} Mode
 * @property {number} players
 * @property {string} scoring
 * @property {string} variant
 * @property {boolean} rated
 */

/** The bot levels a seat may be given (the seat choices that are not "me", "open" or
 * "invite"). */
export const BOT_LEVELS = ["random", "basic", "strong", "expert"];

/**
 * A search's request (POST /v1/seeks): the mode, and bots after `botsAfter` seconds when
 * wanted (null: no bots).
 * @param {Mode} mode
 * @param {number | null} botsAfter
 */
export function seekRequest(mode, botsAfter) {
  /** @type {{players: number, scoring: string, variant: string, bots_after_seconds?: number, rated?: true}} */
  const ask = { players: mode.players, scoring: mode.scoring, variant: mode.variant };
  if (botsAfter !== null) ask.bots_after_seconds = botsAfter;
  if (mode.rated) ask.rated = true;
  return ask;
}

/**
 * What "Play now" was last asked with, remembered across page loads: the mode, whether
 * bots were wanted and after how long.
 * @typedef {Mode & {bots: boolean, bots_after_seconds: number}} PlayNowChoice
 */

/** What the options form offers (view/options.js), the first of each by default. */
export const PLAYERS = [4, 3];
export const SCORINGS = ["basic", "advanced"];
export const VARIANTS = ["standard", "seven_followers", "seven_followers_short"];

/**
 * A remembered "Play now" choice as it was stored (parsed JSON, or anything else), if it
 * still is one the form offers; else null (then the form's defaults stand).
 * @param {unknown} stored
 * @returns {PlayNowChoice | null}
 */
export function playNowChoice(stored) {
  if (!stored || typeof stored !== "object") return null;
  const { players, scoring, variant, rated, bots, bots_after_seconds: seconds } = /** @type {Record<string, unknown>} */ (stored);
  const valid =
    typeof players === "number" &&
    PLAYERS.includes(players) &&
    typeof scoring === "string" &&
    SCORINGS.includes(scoring) &&
    typeof variant === "string" &&
    VARIANTS.includes(variant) &&
    typeof rated === "boolean" &&
    typeof bots === "boolean" &&
    Number.isInteger(seconds) &&
    Number(seconds) >= 5 &&
    Number(seconds) <= 600;
  return valid ? { players, scoring, variant, rated, bots, bots_after_seconds: Number(seconds) } : null;
}

/**
 * What a new game's form says beyond its mode: the clock (null: none), whether it is
 * public, and each seat's choice ("me", "open", a bot level, "invite") with the player
 * id typed for an invitation.
 * @typedef {object} NewGameChoices
 * @property {{turn_seconds: number, on_timeout: string} | null} clock
 * @property {boolean} isPublic
 * @property {{choice: string, invite: string}[]} seats
 */

/**
 * @typedef {object} NewGameBody
 * @property {number} players
 * @property {string} scoring
 * @property {string} variant
 * @property {{seat: number, level: string}[]} bots
 * @property {{turn_seconds: number, on_timeout: string}} [clock]
 * @property {"public"} [visibility]
 * @property {true} [rated]
 * @property {{player_id: string, seat: number}[]} [invite]
 */

/**
 * A new game's request (POST /v1/games), and the seat this browser's player takes in it
 * (null: none); or the message saying why it cannot be sent (a player takes one seat).
 * The server judges the rest (a three-player Seven Followers is its 422).
 * @param {Mode} mode
 * @param {NewGameChoices} choices
 * @returns {{body: NewGameBody, mine: number | null} | {error: string}}
 */
export function newGameRequest(mode, { clock, isPublic, seats }) {
  /** @type {NewGameBody} */
  const body = { players: mode.players, scoring: mode.scoring, variant: mode.variant, bots: [] };
  if (clock) body.clock = clock;
  if (isPublic) body.visibility = "public";
  if (mode.rated) body.rated = true;
  /** @type {number[]} */
  const mine = [];
  /** @type {{player_id: string, seat: number}[]} */
  const invite = [];
  for (let seat = 0; seat < mode.players; seat += 1) {
    const { choice, invite: playerId } = seats[seat];
    if (BOT_LEVELS.includes(choice)) body.bots.push({ seat, level: choice });
    if (choice === "me") mine.push(seat);
    if (choice === "invite") invite.push({ player_id: playerId.trim(), seat });
  }
  if (invite.length) body.invite = invite;
  if (mine.length > 1) return { error: "one_seat_only" };
  return { body, mine: mine.length ? mine[0] : null };
}
