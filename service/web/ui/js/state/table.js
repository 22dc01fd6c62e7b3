// A game's table as pure functions (lichess's round ctrl, without its DOM): the state the
// page holds (the latest view, the tricks the event stream told of, the cards chosen to
// pass, a round's end held until Continue), its next state after each view, event and
// answer, and what the page shows, derived from it. No DOM, no fetch: table.js wires it
// to the API and the event stream, view/table.js draws it; tests/js/table.test.js runs it.

import { sortCards } from "./cards.js";

/** @typedef {import("../types.js").View} View */
/** @typedef {import("../types.js").GameEvent} GameEvent */
/** @typedef {import("../types.js").PlayedCard} PlayedCard */
/** @typedef {import("../types.js").Refusal} Refusal */
/** @typedef {import("../types.js").RoundResult} RoundResult */

/**
 * A trick the event stream told of: its round, number, cards in play order and winner.
 * @typedef {object} SeenTrick
 * @property {number} round
 * @property {number} number
 * @property {PlayedCard[]} cards
 * @property {number} winner
 */

/**
 * A round that ended while the page was open: RoundEnded's data and the round's last
 * trick. Shown until the person presses Continue; the game goes on meanwhile (the server
 * waits for nobody), the panel only holds the display.
 * @typedef {{result: RoundResult, trick: SeenTrick | null}} RoundEnd
 */

/** @typedef {"connecting" | "open" | "reconnecting" | "ended" | "failed"} Connection */

/**
 * @typedef {object} TableState
 * @property {View | null} view the latest view: the player's seat's, or the public's
 * @property {string | null} token the player's token, when it opened a seat's view here
 * @property {SeenTrick[]} tricks every trick of the game (the stream replays it first)
 * @property {PlayedCard[]} playing the trick under way, from the events
 * @property {number} roundNumber the round under way, from the events
 * @property {string[]} chosen the cards chosen to pass, in target order
 * @property {boolean} busy a command is under way
 * @property {Refusal | null} error the last refusal
 * @property {Connection} connection the event stream's
 * @property {Refusal | null} rematchError
 * @property {number} liveFrom events after this one happen while the page is open (the
 *   stream replays the game's history first): only those show a round's end
 * @property {RoundEnd | null} roundEnd
 * @property {{trick: SeenTrick, until: number} | null} held a trick taken while the page
 *   is open, kept on the table until `until` (ms, the page's clock) though the next has begun
 * @property {number} holdMs how long a taken trick stays on the table
 */

/** How long a taken trick stays on the table by default (ms): card tables keep it in
 * view about a second, even when a bot leads the next one at once. */
export const TRICK_HOLD_MS = 1200;
/** The lengths a person may choose instead (the Tricks panel). */
export const TRICK_HOLDS_MS = [1200, 2500, 5000];

/**
 * A table before anything is known of the game.
 * @param {number} [holdMs] how long a taken trick stays on the table
 * @returns {TableState}
 */
export function initialTable(holdMs = TRICK_HOLD_MS) {
  return {
    held: null,
    holdMs,
    view: null,
    token: null,
    tricks: [],
    playing: [],
    roundNumber: 0,
    chosen: [],
    busy: false,
    error: null,
    connection: "connecting",
    rematchError: null,
    liveFrom: Infinity,
    roundEnd: null,
  };
}

/**
 * The game as it is again, from its first event (a seat was just taken or declined):
 * what the stream told is forgotten, the page's own (busy, error, connection) kept.
 * @param {TableState} state
 * @returns {TableState}
 */
export function restarted(state) {
  return { ...state, view: null, tricks: [], playing: [], roundNumber: 0, chosen: [], liveFrom: Infinity, roundEnd: null, held: null };
}

/**
 * A view arrives (the first read, the stream's, a command's answer): one older than the
 * view shown is dropped. Cards chosen to pass stay chosen while the same pass is awaited;
 * a new round (or no pass to make) starts afresh.
 * @param {TableState} state
 * @param {View} view
 * @returns {TableState}
 */
export function withView(state, view) {
  if (state.view && view.version < state.view.version) return state;
  const before = state.view;
  const samePass = view.action === "pass" && before?.round?.number === view.round?.number;
  const hand = view.hand ?? [];
  return { ...state, view, chosen: samePass ? state.chosen.filter((c) => hand.includes(c)) : [] };
}

/**
 * The first view is shown: the events the stream brings from now on beyond it happen
 * while the page is open.
 * @param {TableState} state
 * @returns {TableState}
 */
export function started(state) {
  return { ...state, liveFrom: state.view ? state.view.version : Infinity };
}

/**
 * An event of the game's stream: the tricks as they are played, a trick taken while the
 * page is open (held on the table for `holdMs` from `now`), and a round's end while the
 * page is open.
 * @param {TableState} state
 * @param {GameEvent} event
 * @param {number} [now] the page's clock (ms)
 * @returns {TableState}
 */
export function withEvent(state, event, now = Date.now()) {
  switch (event.type) {
    case "RoundDealt":
      return { ...state, roundNumber: event.data.number, playing: [], held: null };
    case "CardPlayed":
      return { ...state, playing: [...state.playing, { seat: event.data.seat, card: event.data.card }] };
    case "TrickTaken": {
      const trick = { round: state.roundNumber, number: event.data.number, cards: state.playing, winner: event.data.winner };
      const held = event.seq > state.liveFrom ? { trick, until: now + state.holdMs } : state.held;
      return { ...state, tricks: [...state.tricks, trick], playing: [], held };
    }
    case "RoundEnded": {
      if (event.seq <= state.liveFrom) return state;
      /** @type {RoundResult} */
      const result = event.data;
      const trick = state.tricks.filter((x) => x.round === result.number).at(-1) || null;
      return { ...state, roundEnd: { result, trick } };
    }
    default:
      return state;
  }
}

/**
 * The taken trick the table still shows at `now` (the next trick's cards wait), or null.
 * @param {TableState} state
 * @param {number} [now] the page's clock (ms)
 * @returns {SeenTrick | null}
 */
export function heldTrick(state, now = Date.now()) {
  return state.held && now < state.held.until ? state.held.trick : null;
}

/**
 * The seat plays: what it plays shows at once, no taken trick held over it.
 * @param {TableState} state
 * @returns {TableState}
 */
export function released(state) {
  return state.held ? { ...state, held: null } : state;
}

/**
 * A card of the hand pressed while passing: chosen (three at most, in target order), or
 * no longer.
 * @param {TableState} state
 * @param {string} card
 * @returns {TableState}
 */
export function toggled(state, card) {
  if (state.chosen.includes(card)) return { ...state, chosen: state.chosen.filter((c) => c !== card) };
  if (state.chosen.length >= 3) return state;
  return { ...state, chosen: [...state.chosen, card] };
}

/**
 * "Continue" pressed: the round's end gives way to the table as it is now.
 * @param {TableState} state
 * @returns {TableState}
 */
export function continued(state) {
  return { ...state, roundEnd: null };
}

/**
 * The finished game's rematch, learnt by reading its view (its stream has ended).
 * @param {TableState} state
 * @param {string | null} rematch
 * @returns {TableState}
 */
export function withRematch(state, rematch) {
  if (!rematch || !state.view || state.view.rematch) return state;
  return { ...state, view: { ...state.view, rematch } };
}

// --- what the page shows ---------------------------------------------------------------

/**
 * Whether the page acts for a seat: the player's token opened the seat's view.
 * @param {TableState} state
 */
export function isSeated(state) {
  return state.token !== null && state.view?.seat !== undefined;
}

/**
 * The round's end to show: none once the game is over (the final result says it all).
 * @param {TableState} state
 */
export function shownRoundEnd(state) {
  return state.view?.status === "finished" ? null : state.roundEnd;
}

/**
 * The table's marks (its element's data attributes, which the browser tests and the
 * stylesheet read). While a round's end is shown there is nothing to do but Continue.
 * @param {TableState} state
 * @param {View} view the state's view
 */
export function marks(state, view) {
  const seated = isSeated(state);
  const roundEnd = shownRoundEnd(state);
  return {
    status: view.status,
    version: String(view.version),
    action: seated && !roundEnd ? view.action || "" : "",
    roundEnd: roundEnd ? String(roundEnd.result.number) : null,
    busy: state.busy ? "1" : "",
    seat: seated ? String(view.seat) : "",
    connection: state.connection,
  };
}

/**
 * What the hand's prompt says: pass (to one seat; `to` null: one card to each other seat,
 * Seven Followers), wait for the others' passes, play, wait for a seat, wait for players.
 * @typedef {{kind: "pass", to: number | null} | {kind: "pass_waiting"} | {kind: "your_turn"}
 *   | {kind: "waiting_for", seat: number} | {kind: "waiting_players"}} Prompt
 */

/** @typedef {"legal" | "illegal" | "idle"} CardState */

/**
 * The hand as the page shows it.
 * @typedef {object} Hand
 * @property {Prompt | null} prompt
 * @property {boolean} acting the seat has something to do
 * @property {boolean} passing choosing the cards to pass: a card pressed is chosen
 * @property {{card: string, state: CardState, chosen: boolean | null}[]} cards sorted by
 *   suit and rank; `chosen` null when not passing
 * @property {{to: number | null, card: string | null}[] | null} slots the three cards to
 *   pass (Seven Followers: each to the seat `to`)
 * @property {boolean} canPass
 * @property {{given: string[], received: string[] | null} | null} passed the pass made,
 *   and the cards received once exchanged
 */

/**
 * The seat's hand, its prompt and what can be done with it; null where the page holds no
 * seat or the game is over.
 * @param {TableState} state
 * @returns {Hand | null}
 */
export function handOf(state) {
  const view = state.view;
  if (!view || !isSeated(state) || view.status === "finished" || view.seat === undefined) return null;
  const seat = view.seat;
  const action = view.action ?? null;
  const passing = view.status === "passing" && action === "pass";
  const playing = action === "play" && !state.busy;
  const sevenFollowers = view.variant.startsWith("seven_followers");
  /** @type {Prompt | null} */
  let prompt = null;
  if (passing) prompt = { kind: "pass", to: sevenFollowers ? null : (seat + (view.players === 4 ? 2 : 1)) % view.players };
  else if (view.status === "passing") prompt = { kind: "pass_waiting" };
  else if (view.status === "playing" && action === "play") prompt = { kind: "your_turn" };
  else if (view.status === "playing" && view.round?.turn != null) prompt = { kind: "waiting_for", seat: view.round.turn };
  else if (view.status === "waiting") prompt = { kind: "waiting_players" };
  const legal = view.legal ?? [];
  const cards = sortCards(view.hand ?? []).map((card) => {
    /** @type {CardState} */
    let shown = "idle";
    if (passing && !state.busy) shown = "legal";
    else if (playing) shown = legal.includes(card) ? "legal" : "illegal";
    return { card, state: shown, chosen: passing ? state.chosen.includes(card) : null };
  });
  const slots = passing
    ? [0, 1, 2].map((i) => ({ to: sevenFollowers ? (seat + i + 1) % view.players : null, card: state.chosen[i] ?? null }))
    : null;
  const pass = view.pass ?? null;
  const received = pass && pass.received.every((c) => c) ? /** @type {string[]} */ (pass.received) : null;
  return {
    prompt,
    acting: Boolean(action),
    passing,
    cards,
    slots,
    canPass: state.chosen.length === 3 && !state.busy,
    passed: pass ? { given: pass.given, received } : null,
  };
}

/**
 * Whether this browser's player holds a seat of the game, from their inbox's entry of it
 * (`GET /v1/me/games?game=`): an entry not still an invitation. Asked before the seat's
 * view, which refuses a player without a seat (a 403 in the browser's console).
 * @param {readonly import("../types.js").InboxEntry[]} entries
 */
export function holdsSeat(entries) {
  return heldSeat(entries) !== null;
}

/**
 * The seat the player holds in the game (its entries in the player's games), or null:
 * a seat only kept for them (an invitation) is not held.
 * @param {readonly {seat: number, invited?: boolean}[]} entries
 * @returns {number | null}
 */
export function heldSeat(entries) {
  return entries.find((e) => !e.invited)?.seat ?? null;
}

/**
 * A waiting game's seats for this browser: the free ones (a seat kept for an invited
 * player is theirs alone), the seat kept for this player (an invitation to accept or
 * decline), and whether the page sits already. Null once the game has started.
 * @param {TableState} state
 * @param {string | null} me this browser's player's id
 */
export function joinOf(state, me) {
  const view = state.view;
  if (!view || view.status !== "waiting") return null;
  const seated = isSeated(state);
  const kept = me && !seated ? view.seats.find((s) => !s.joined && s.reserved_for === me) : undefined;
  return {
    seated,
    free: view.seats.filter((s) => !s.joined && !s.reserved_for).map((s) => s.seat),
    kept: kept ? kept.seat : null,
  };
}

/**
 * A finished game played again: the rematch made (by anyone) is a link to its table;
 * else a seated player may ask for it. Null when neither (an expired game, a watcher).
 * @param {TableState} state
 * @returns {{link: string} | {ask: true, busy: boolean, error: Refusal | null} | null}
 */
export function rematchOf(state) {
  const view = state.view;
  if (!view || view.expired) return null;
  if (view.rematch) return { link: view.rematch };
  if (!isSeated(state)) return null;
  return { ask: true, busy: state.busy, error: state.rematchError };
}

/**
 * The tricks of the game, round by round (the round under way open).
 * @param {TableState} state
 * @returns {{round: number, open: boolean, tricks: SeenTrick[]}[]}
 */
export function trickRounds(state) {
  const rounds = [...new Set(state.tricks.map((x) => x.round))];
  return rounds.map((round) => ({ round, open: round === state.roundNumber, tricks: state.tricks.filter((x) => x.round === round) }));
}
