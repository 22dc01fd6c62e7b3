// A finished game's table at any move of its hand record (docs/record-format.md, as
// JSON), every hand face up: what the hand review draws at each decision with the table's
// own board (board.js). The record is replayed from its first round: each seat's hand (as
// dealt while the passes are chosen, then exchanged, less the cards played), the passes
// made, the trick under way and the last one taken, the tricks and bosses each seat has
// won in the round, the Seven Followers seals, the trump suit, and the rounds before with
// the scores they gave (in Seven Followers a point per suit sealed, the moment it is
// sealed, as the engine scores it). Pure: no DOM, no fetch.

import { isBoss, SUITS, sortCards, suitOf } from "./cards.js";

/** @typedef {import("../types.js").View} View */
/** @typedef {import("../types.js").SeatSummary} SeatSummary */
/** @typedef {import("../types.js").PlayedCard} PlayedCard */
/** @typedef {import("../types.js").Trick} Trick */

/**
 * A move of a record's round: only passes and plays change the table.
 * @typedef {{type: "pass", seat: number, cards: (string | null)[]} | {type: "play", seat: number, card: string} | {type: "leave", seat: number, bot: import("../types.js").BotLevel} | {type: string, seat?: number}} RecordMove
 */

/**
 * A round's result in a record.
 * @typedef {object} RecordResult
 * @property {string} reason
 * @property {number[]} winners
 * @property {number[]} points
 * @property {string[]} bosses
 */

/**
 * A round of a record: the hands dealt (by seat; null: hidden), trump, the moves in
 * order, each trick's winner, the result.
 * @typedef {object} RecordRound
 * @property {number} number
 * @property {(string[] | null)[]} hands
 * @property {string | null} trump
 * @property {RecordMove[]} moves
 * @property {number[]} [tricks]
 * @property {RecordResult | null} [result]
 */

/**
 * GET /v1/games/{id}/record as JSON: what the client reads of it.
 * @typedef {object} GameRecord
 * @property {number} players
 * @property {string} variant
 * @property {string} [scoring]
 * @property {{turn_seconds: number, on_timeout: "autoplay" | "forfeit"} | null} [clock]
 * @property {{name: string | null, bot: string | null}[]} [seats]
 * @property {RecordRound[]} rounds
 */

/**
 * The table at a move: a View (types.js) with every hand, and the cards each seat has
 * passed while the passes are still being chosen (null: not yet, or exchanged).
 * @typedef {View & {hands: string[][], given: (string[] | null)[]}} RecordTable
 */

/** Who gets each card of `from`'s pass (docs/rules.md R-3.2, R-7): three players pass to
 * the left, four to the partner; Seven Followers one card to each other seat, in the order
 * seat+1, +2, +3.
 * @param {GameRecord} record @param {number} from @param {number} index */
export function passedTo(record, from, index) {
  const n = record.players;
  if (record.variant.startsWith("seven_followers")) return (from + index + 1) % n;
  return (from + (n === 4 ? 2 : 1)) % n;
}

/** A seat's team with four players: partners sit across (seats 0 and 2, 1 and 3).
 * @param {number} seat */
function teamOf(seat) {
  return seat % 2;
}

/** The suits a team seals on taking a trick: those whose two 7s its seats
 * have captured in the round, but those it has sealed already and, in the short variant,
 * those the other team has; in suit order.
 * @param {GameRecord} record @param {number} team @param {string[]} captured the team's
 * bosses this round @param {string[][]} seals by team, the game's so far */
function newSeals(record, team, captured, seals) {
  const closed = record.variant === "seven_followers_short" ? seals[1 - team] : [];
  return SUITS.filter(
    (suit) => captured.filter((c) => suitOf(c) === suit).length === 2 && !seals[team].includes(suit) && !closed.includes(suit),
  );
}

/**
 * The table just before move `upTo` of round `number` (its index in the round's moves),
 * every hand shown; null when the record does not hold that round or hides a hand.
 * `game`: the game's view, for its seats (names, teams, players) and whether it is rated;
 * without it, the record's names. Each seat's bot is the one seated then (the record's).
 * @param {GameRecord} record
 * @param {number} number
 * @param {number} upTo
 * @param {View | null} [game]
 * @returns {RecordTable | null}
 */
export function tableAt(record, number, upTo, game = null) {
  const round = record.rounds.find((r) => r.number === number);
  if (!round || round.hands.some((hand) => !hand)) return null;
  const n = record.players;
  const sevenFollowers = record.variant.startsWith("seven_followers");
  /** @type {string[][]} by team, the suits sealed so far (Seven Followers) */
  const seals = [[], []];
  const scores = Array(n === 4 ? 2 : n).fill(0);
  /** @type {import("../types.js").RoundResult[]} */
  const results = [];
  const hands = /** @type {string[][]} */ (round.hands).map((hand) => [...hand]);
  /** @type {(string[] | null)[]} */
  const given = Array(n).fill(null);
  let exchanged = false;
  const tricksWon = Array(n).fill(0);
  /** @type {string[][]} */
  const bosses = Array.from({ length: n }, () => []);
  /** @type {PlayedCard[]} */
  let trick = [];
  /** @type {Trick | null} */
  let lastTrick = null;
  /** @type {string | null} */
  let firstPlayed = null;
  // Each seat's bot as it stood: the one seated at the start (the record's seats), then the
  // one that took a seat over when its player left ("leave" moves); the game's view has
  // only the last.
  /** @type {(import("../types.js").BotLevel | null)[]} */
  const bots = Array.from({ length: n }, (_, seat) => /** @type {import("../types.js").BotLevel | null} */ (record.seats?.[seat]?.bot ?? null));
  // The rounds before only for their seals and results; the round shown up to the move.
  for (const r of record.rounds.filter((x) => x.number <= number)) {
    const current = r.number === number;
    /** @type {string[][]} by team, the bosses captured in the round */
    const captured = [[], []];
    let taken = 0;
    /** @type {PlayedCard[]} */
    let played = [];
    for (const move of current ? r.moves.slice(0, upTo) : r.moves) {
      if (move.type === "leave" && "bot" in move) {
        bots[move.seat] = move.bot;
      } else if (current && move.type === "pass" && "cards" in move) {
        given[move.seat] = move.cards.filter((c) => c !== null);
        if (given.every((g) => g !== null)) {
          given.forEach((cards, from) =>
            (cards ?? []).forEach((card, i) => {
              hands[from] = hands[from].filter((c) => c !== card);
              hands[passedTo(record, from, i)].push(card);
            }),
          );
          exchanged = true;
        }
      } else if (move.type === "play" && "card" in move) {
        played.push({ seat: move.seat, card: move.card });
        if (current) {
          firstPlayed ??= move.card;
          hands[move.seat] = hands[move.seat].filter((c) => c !== move.card);
        }
        if (played.length < n) continue;
        const winner = r.tricks?.[taken] ?? played[0].seat;
        taken += 1;
        const won = played.map((p) => p.card).filter(isBoss);
        if (sevenFollowers) {
          const team = teamOf(winner);
          captured[team].push(...won);
          const sealed = newSeals(record, team, captured[team], seals);
          // As the engine: a team's seals in suit order, a point each the moment it seals.
          seals[team] = SUITS.filter((suit) => seals[team].includes(suit) || sealed.includes(suit));
          scores[team] += sealed.length;
        }
        if (current) {
          tricksWon[winner] += 1;
          bosses[winner].push(...won);
          lastTrick = { number: taken, cards: played, winner };
        }
        played = [];
      }
    }
    if (current) trick = played;
    else if (r.result) {
      const { reason, winners, points, bosses: scored } = r.result;
      results.push({ number: r.number, reason, winners, points, bosses_scored: scored });
      // Seven Followers rounds' points are their seals, scored above as they were made.
      if (!sevenFollowers) points.forEach((p, side) => (scores[side] += p));
    }
  }
  const passing = !exchanged && firstPlayed === null;
  return {
    id: game?.id ?? "",
    version: 0,
    players: n,
    scoring: record.scoring ?? game?.scoring ?? "basic",
    variant: record.variant,
    status: passing ? "passing" : "playing",
    seats: Array.from({ length: n }, (_, seat) => ({
      ...(game?.seats[seat] ?? {
        seat,
        name: record.seats?.[seat]?.name ?? null,
        team: n === 4 ? teamOf(seat) : null,
        reserved_for: null,
        player_id: null,
      }),
      bot: bots[seat],
      joined: true,
      passed: passing && given[seat] !== null,
      hand_size: hands[seat].length,
      tricks_won: tricksWon[seat],
      bosses: sortCards(bosses[seat]),
      deadline: null,
    })),
    round: {
      number,
      trump: round.trump,
      // Seven Followers turns up no trump: the round's first card names its suit.
      trump_suit: round.trump ? suitOf(round.trump) : firstPlayed && suitOf(firstPlayed),
      turn: round.moves[upTo]?.seat ?? null,
      trick,
      last_trick: lastTrick,
    },
    scores,
    rounds: results,
    winner: null,
    seals: sevenFollowers ? seals : null,
    clock: record.clock ?? null,
    fairness: { algorithm: "", commitment: null, server_seed: null },
    rated: game?.rated ?? false,
    rematch: null,
    expired: false,
    hands: hands.map(sortCards),
    given: passing ? given : Array(n).fill(null),
  };
}
