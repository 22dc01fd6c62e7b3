// The API's answers as the client reads them, for the JSDoc types that `tsc --checkJs`
// checks (docs/web-client.md "Its JavaScript"): only the fields the client uses, named
// as openapi/openapi.yaml names their schemas. Types only: no page loads this module.

/**
 * A refusal (RFC 9457 problem details).
 * @typedef {object} Problem
 * @property {string} [title]
 * @property {string} [code]
 * @property {string} [detail]
 * @property {number} [status]
 * @property {string} [banned_until]
 * @property {Ban} [ban]
 */

/**
 * A running ban (docs/api.md "Reputation and bans"): until when, and the abandonment
 * that brought it (`count`: the abandonments in the 24 hours up to it).
 * @typedef {object} Ban
 * @property {string} until
 * @property {"left" | "resigned" | "forfeited"} reason
 * @property {string} at
 * @property {number} count
 */

/**
 * A refused request, as a page shows it (problem.js): an ApiError, or any Error (its
 * message as the title).
 * @typedef {object} Refusal
 * @property {string} message
 * @property {string | null} [code]
 * @property {Problem} [problem]
 */

/** @typedef {"waiting" | "passing" | "playing" | "finished" | "dealing"} Status */
/** @typedef {"random" | "basic" | "strong" | "expert"} BotLevel */

/**
 * @typedef {object} PlayedCard
 * @property {number} seat
 * @property {string} card
 */

/**
 * @typedef {object} Trick
 * @property {number} number
 * @property {PlayedCard[]} cards
 * @property {number} winner
 */

/**
 * @typedef {object} Round
 * @property {number} number
 * @property {string | null} trump
 * @property {string | null} trump_suit
 * @property {number | null} turn
 * @property {PlayedCard[]} trick
 * @property {Trick | null} last_trick
 */

/**
 * A round's result (RoundEnded's data too).
 * @typedef {object} RoundResult
 * @property {number} number
 * @property {string} reason
 * @property {number[]} winners
 * @property {number[]} points
 * @property {string[]} bosses_scored
 */

/**
 * @typedef {object} SeatSummary
 * @property {number} seat
 * @property {string | null} name
 * @property {number | null} team
 * @property {boolean} joined
 * @property {boolean} passed
 * @property {number} hand_size
 * @property {number} tricks_won
 * @property {string[]} bosses
 * @property {BotLevel | null} bot
 * @property {string | null} deadline
 * @property {string | null} reserved_for
 * @property {string | null} player_id
 */

/**
 * @typedef {object} ClockView
 * @property {number} turn_seconds
 * @property {"autoplay" | "forfeit"} on_timeout
 */

/**
 * @typedef {object} Fairness
 * @property {string} algorithm
 * @property {string | null} commitment
 * @property {string | null} server_seed
 */

/**
 * A seat's pass: the cards given, and those received (null until the exchange).
 * @typedef {object} PassView
 * @property {string[]} given
 * @property {(string | null)[]} received
 */

/**
 * A game as the public sees it (GameView); a seat's view (SeatView) adds `seat`, `hand`,
 * `legal`, `action` and `pass`. The operators' state at an event (OperatorState) adds
 * every `hands`.
 * @typedef {object} View
 * @property {string} id
 * @property {number} version
 * @property {number} players
 * @property {string} scoring
 * @property {string} variant
 * @property {Status} status
 * @property {SeatSummary[]} seats
 * @property {Round | null} round
 * @property {number[]} scores
 * @property {RoundResult[]} rounds
 * @property {number[] | null} winner
 * @property {string[][] | null} seals
 * @property {ClockView | null} clock
 * @property {Fairness} fairness
 * @property {boolean} rated
 * @property {string | null} rematch
 * @property {boolean} expired
 * @property {number} [seat]
 * @property {string[]} [hand]
 * @property {string[]} [legal]
 * @property {"pass" | "play" | "join" | null} [action]
 * @property {PassView | null} [pass]
 * @property {string[][]} [hands]
 */

/**
 * An event of a game's feed or stream (`data` as its type has it).
 * @typedef {object} GameEvent
 * @property {number} seq
 * @property {string} type
 * @property {any} data
 */

/**
 * A game of the player's inbox (GET /v1/me/games, the player stream).
 * @typedef {object} InboxEntry
 * @property {string} game_id
 * @property {number} seat
 * @property {Status} status
 * @property {number} players
 * @property {string} variant
 * @property {boolean} my_turn
 * @property {"pass" | "play" | "join" | null} action
 * @property {boolean} invited
 * @property {boolean} [rated]
 * @property {string | null} due_since
 * @property {string | null} deadline
 * @property {string} updated_at
 * @property {{player_id: string, name: string} | null} [invited_by]
 * @property {string | null} [rematch_of]
 */

/**
 * @typedef {object} LobbySeat
 * @property {number} seat
 * @property {string | null} name
 * @property {BotLevel | null} bot
 * @property {string | null} player_id
 * @property {string | null} reserved_for
 */

/**
 * A public table waiting for players (GET /v1/lobby, the lobby stream).
 * @typedef {object} LobbyGame
 * @property {string} game_id
 * @property {number} players
 * @property {string} scoring
 * @property {string} variant
 * @property {boolean} rated
 * @property {ClockView | null} clock
 * @property {LobbySeat[]} seats
 * @property {number} open_seats
 * @property {string} created_at
 */

/**
 * A quick-play search (POST /v1/seeks).
 * @typedef {object} Seek
 * @property {string} id
 * @property {"open" | "matched" | "cancelled" | "expired"} status
 * @property {number} players
 * @property {string} scoring
 * @property {string} variant
 * @property {boolean} rated
 * @property {number | null} bots_after_seconds
 * @property {string} created_at
 * @property {string | null} game_id
 */

/**
 * A page of a list the API pages with a cursor.
 * @template T
 * @typedef {{games: T[], next_cursor: string | null}} GamesPage
 */

/**
 * This browser's player, as player.js keeps it.
 * @typedef {object} Player
 * @property {string} id
 * @property {string} name
 * @property {string} token
 * @property {string | null} [token_id]
 */

/**
 * A session (POST /v1/sessions): the player signed in, and their new token.
 * @typedef {object} Session
 * @property {{id: string, name: string}} player
 * @property {string} token
 * @property {string} token_id
 */

/**
 * One of the player's tokens (GET /v1/me/tokens).
 * @typedef {object} Token
 * @property {string} id
 * @property {boolean} current
 */

/**
 * A player's rating in a ladder.
 * @typedef {object} LadderRating
 * @property {number} mu
 * @property {number} sigma
 * @property {number} ordinal
 * @property {number} games
 * @property {boolean} provisional
 */

/**
 * A player's profile (GET /v1/players/{id}).
 * @typedef {object} Profile
 * @property {string} id
 * @property {string} name
 * @property {BotLevel | null} [bot]
 * @property {string | null} [created_at]
 * @property {Record<string, LadderRating | undefined>} ratings
 * @property {{games: number, wins: number, rated_games: number, abandoned: number}} stats
 * @property {{score: number, finished: number, abandoned: number, timeouts: number} | null} [reputation]
 * @property {string | null} [banned_until]
 * @property {Ban | null} [ban]
 */

export {};
