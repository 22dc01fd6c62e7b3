// The table as a view shows it: seats around, the trick in the middle, trump, seals,
// scores and round results. Shared by the game page (a seat's or the public view), the
// operators' console (the state at any event, every hand shown) and the hand review (a
// finished game's table at each decision, every hand shown: state/record.js).

import { cardFace, suitName } from "./cards.js";
import { h } from "./dom.js";
import { formatList, formatTime, t } from "./i18n.js";
import { playerLink, profileOf, ratingBadge } from "./ratings.js";
import { sortCards } from "./state/cards.js";
import { ladderOf } from "./state/ladders.js";

/** @typedef {import("./types.js").View} View */
/** @typedef {import("./types.js").RoundResult} RoundResult */

/** @type {Record<number, string[]>} */
const PLACES = { 4: ["south", "west", "north", "east"], 3: ["south", "west", "east"] };

/** Where seat `seat` sits for a viewer at `bottom` (play order is clockwise: the seat
 * after mine is on my left, R-2.1).
 * @param {View} view @param {number} seat @param {number} bottom */
export function place(view, seat, bottom) {
  const n = view.players;
  return PLACES[n][(seat - bottom + n) % n];
}

/** The name the server gives a bot it seats ("Basic bot 2", service/application/games/
 * handlers/seats.py): English, numbered from 1 (from 0 in games made before 2026-11-28,
 * which is why the page numbers it by its seat, not by its name). */
const SERVER_BOT_NAME = /^(Random|Basic|Strong|Expert) bot \d+$/;

/** A seat's name: the player's; a bot's in the page's language, numbered as the page
 * numbers seats (from 1); or "Seat 3" while nobody holds it. A player's seat that a bot
 * took over keeps the player's name.
 * @param {View} view @param {number} seat
 * @returns {string} */
export function seatName(view, seat) {
  const found = view.seats[seat];
  if (found?.bot && SERVER_BOT_NAME.test(found.name || "")) return t(`bot_name.${found.bot}`, { n: seat + 1 });
  if (found && !found.name && found.reserved_for) {
    // Kept for an invited player: their name once their profile has come (the table is
    // drawn again then: table.js), "Seat 2" until it has.
    const invited = profileOf(found.reserved_for).value;
    if (invited) return t("seat_kept_for", { name: invited.name });
  }
  return found && found.name ? found.name : t("seat_n", { n: seat + 1 });
}

/** A side: a team with four players, a seat with three.
 * @param {View} view @param {number} side */
export function sideName(view, side) {
  if (view.players === 4) {
    const members = view.seats.filter((s) => s.team === side).map((s) => seatName(view, s.seat));
    return t("team_with_members", { n: side + 1, members: formatList(members) });
  }
  return seatName(view, side);
}

/** "0:42", "1:02:03": what is left until `deadline` (ISO time).
 * @param {string} deadline @param {number} [now] */
export function remaining(deadline, now = Date.now()) {
  let seconds = Math.max(0, Math.ceil((Date.parse(deadline) - now) / 1000));
  const hours = Math.floor(seconds / 3600);
  seconds -= hours * 3600;
  const minutes = Math.floor(seconds / 60);
  seconds -= minutes * 60;
  const mm = String(minutes).padStart(hours ? 2 : 1, "0");
  const ss = String(seconds).padStart(2, "0");
  return hours ? t("clock_hms", { h: hours, m: mm, s: ss }) : t("clock_ms", { m: mm, s: ss });
}

/** Refresh every countdown on the page (called once a second: a display timer, not a
 * poll: nothing is asked of the server).
 * @param {ParentNode} root */
export function tickCountdowns(root) {
  for (const el of root.querySelectorAll("[data-deadline]")) {
    const left = el.querySelector(".left");
    if (left && el instanceof HTMLElement) left.textContent = remaining(el.dataset.deadline ?? "");
  }
}

/**
 * How the board shows the seats: who sits at the bottom, which seat is this page's, every
 * hand (the operators' console), and whether it is a past state (deadlines as times).
 * @typedef {object} BoardShown
 * @property {number} bottom
 * @property {number | null} me
 * @property {string[][] | null} hands
 * @property {boolean} history
 * @property {((seat: number, card: string) => Node) | null} face how a shown hand's card
 *   is drawn (the review marks the cards played and the expert's); null: its small face
 */

/** @param {View} view @param {number} seat @param {BoardShown} shown */
function seatBox(view, seat, { bottom, me, hands, history, face }) {
  const info = view.seats[seat];
  const round = view.round;
  // The server names a turn only while cards are played; the review's past table names
  // the seat deciding, its pass too.
  const turn = round !== null && round.turn === seat;
  const badges = [];
  if (view.players === 4 && info.team !== null) {
    badges.push(h("span", { class: `badge team team-${info.team}` }, t("team_n", { n: info.team + 1 })));
  }
  if (info.bot) {
    badges.push(h("span", { class: "badge bot" }, t("bot_badge", { level: t(`bot_level.${info.bot}`) })));
  }
  if (seat === me) badges.push(h("span", { class: "badge you" }, t("you")));
  // A seat the game records its player for (every seat of a rated game): their rating
  // in the game's ladder, their name a link to their profile.
  if (info.player_id) badges.push(ratingBadge(info.player_id, ladderOf(view.variant, view.players)));
  let doing = null;
  if (!info.joined) doing = info.reserved_for ? t("seat_invited_waiting") : t("seat_open");
  else if (view.status === "passing") doing = info.passed ? t("seat_passed") : t("seat_choosing");
  else if (turn) doing = t("seat_to_play");
  const hand = hands ? hands[seat] : null;
  return h(
    "section",
    {
      class: `seat ${place(view, seat, bottom)}${turn ? " turn" : ""}`,
      dataset: { seat },
      "aria-label": seatName(view, seat),
    },
    h("h3", { class: "name" }, info.player_id ? playerLink(info.player_id, seatName(view, seat)) : seatName(view, seat)),
    h("div", { class: "badges" }, badges),
    doing && h("p", { class: "doing" }, doing),
    info.deadline &&
      (history
        ? h("p", { class: "deadline" }, t("deadline_at", { time: formatTime(info.deadline) }))
        : h(
            "p",
            { class: "deadline", dataset: { deadline: info.deadline } },
            h("span", { class: "label" }, t("deadline_label")),
            " ",
            h("span", { class: "left", role: "timer" }, remaining(info.deadline)),
          )),
    info.joined &&
      h(
        "p",
        { class: "counts" },
        t("seat_counts", { cards: info.hand_size, tricks: info.tricks_won }),
      ),
    info.bosses.length > 0 &&
      h(
        "div",
        { class: "bosses", "aria-label": t("bosses_captured"), title: `${t("bosses_captured")} (${t("boss_title")})` },
        info.bosses.map((c) => cardFace(c, { small: true })),
      ),
    hand &&
      h(
        "div",
        { class: "hand-shown", dataset: { handSeat: seat }, "aria-label": t("hand_of", { name: seatName(view, seat) }) },
        sortCards(hand).map((c) => (face ? face(seat, c) : cardFace(c, { small: true }))),
      ),
  );
}

/** @param {View} view @param {number} bottom
 * @param {{cards: import("./types.js").PlayedCard[], winner: number} | null} held */
function trickArea(view, bottom, held) {
  const round = view.round;
  if (!round) return h("div", { class: "trick empty" });
  let cards = round.trick;
  let caption;
  let done = false;
  const taken = held || (cards.length === 0 ? round.last_trick : null);
  if (taken) {
    cards = taken.cards;
    caption = t("last_trick_won", { name: seatName(view, taken.winner) });
    done = true;
  } else if (cards.length === 0) {
    caption = view.status === "passing" ? t("passing_now") : "";
  } else {
    caption = t("current_trick");
  }
  return h(
    "div",
    // data-held: a trick taken while the page looked on, kept in view (not the view's last).
    { class: `trick${done ? " done" : ""}`, dataset: held ? { held: "" } : {}, "aria-label": caption || t("current_trick") },
    h("p", { class: "caption" }, caption),
    cards.map((p) =>
      h("div", { class: `played ${place(view, p.seat, bottom)}`, dataset: { seat: p.seat } }, cardFace(p.card)),
    ),
  );
}

/** @param {View} view */
function trumpInfo(view) {
  const round = view.round;
  if (!round) return null;
  if (round.trump) {
    return h(
      "div",
      { class: "trump" },
      h("span", { class: "label" }, t("trump_card")),
      cardFace(round.trump, { small: true }),
      h("span", {}, suitName(round.trump_suit)),
    );
  }
  return h(
    "div",
    { class: "trump" },
    h("span", { class: "label" }, t("trump_suit_label")),
    h("span", {}, round.trump_suit ? suitName(round.trump_suit) : t("trump_suit_pending")),
  );
}

/** @param {View} view */
function sealsInfo(view) {
  if (!view.seals) return null;
  return h(
    "div",
    { class: "seals" },
    view.seals.map((suits, team) =>
      h(
        "p",
        { dataset: { sealsTeam: team } },
        h("span", { class: "label" }, t("seals_of", { team: sideName(view, team) })),
        " ",
        suits.length
          ? suits.map((s) => h("span", { class: `chip suit-${s}` }, suitName(s)))
          : h("span", { class: "none" }, t("none")),
      ),
    ),
  );
}

/** The header of the table: status, round, trump, clock, seals.
 * @param {View} view */
export function tableHead(view) {
  const facts = [
    h("span", { class: "status" }, t(`status.${view.status}`)),
    view.rated && h("span", { id: "rated-game" }, h("span", { class: "badge rated" }, t("rated"))),
    view.round && h("span", {}, t("round_n", { n: view.round.number })),
    h("span", {}, t(`variant.${view.variant}`)),
    h("span", {}, t(`scoring.${view.scoring}`)),
    view.clock &&
      h(
        "span",
        {},
        t("clock_info", { seconds: view.clock.turn_seconds, outcome: t(`on_timeout.${view.clock.on_timeout}`) }),
      ),
  ];
  return h("div", { class: "table-head" }, h("p", { class: "facts" }, facts), trumpInfo(view), sealsInfo(view), bossLegend(view));
}

/** What the ★ on the 7s and the word "boss" mean.
 * @param {View} view */
export function bossLegend(view) {
  const text = view.variant.startsWith("seven_followers")
    ? t("boss_legend_sf")
    : t("boss_legend", { n: view.players === 4 ? 4 : 3 });
  return h("p", { class: "legend", id: "boss-legend" }, text);
}

/** Seats around the trick. `me`: the seat at the bottom (null: seat 0, as a watcher);
 * `hands`: every seat's hand, to show them (operators, the review), each card drawn by
 * `face` if given; `history`: a past state, whose deadlines are shown as times, not as
 * countdowns; `held`: a taken trick still shown in the middle, though the next one has
 * begun (state/table.js `heldTrick`).
 * @param {View} view
 * @param {{me?: number | null, hands?: string[][] | null, face?: BoardShown["face"], history?: boolean, held?: {cards: import("./types.js").PlayedCard[], winner: number} | null}} [shown] */
export function board(view, { me = null, hands = null, face = null, history = false, held = null } = {}) {
  const bottom = me ?? 0;
  const seats = view.seats.map((s) => seatBox(view, s.seat, { bottom, me, hands, history, face }));
  return h("div", { class: `board p${view.players}` }, seats, trickArea(view, bottom, held));
}

/** @param {View} view */
export function scoresPanel(view) {
  const sides = view.scores.map((_, side) => side);
  return h(
    "section",
    { class: "panel scores", "aria-labelledby": "scores-title" },
    h("h2", { id: "scores-title" }, t("scores")),
    h(
      "table",
      {},
      h(
        "tbody",
        {},
        sides.map((side) =>
          h(
            "tr",
            { dataset: { side }, class: view.winner && view.winner.includes(side) ? "winner" : null },
            h("th", { scope: "row" }, sideName(view, side)),
            h("td", { class: "score" }, String(view.scores[side])),
          ),
        ),
      ),
    ),
  );
}

/** A side as the rounds table names it: "Team 2", or the player.
 * @param {View} view @param {number} side */
function sideShort(view, side) {
  return view.players === 4 ? t("team_n", { n: side + 1 }) : seatName(view, side);
}

/** Who won a round and why: "Team 1 won: Team 2 took seven tricks". The losers
 * are the sides that did not win (seven tricks, running out of time, resigning).
 * @param {View} view @param {RoundResult} r */
export function roundResult(view, r) {
  if (!r.winners.length) return t("round_no_winner", { reason: t(`reason.${r.reason}`) });
  const sides = view.scores.map((_, side) => side);
  const losers = sides.filter((side) => !r.winners.includes(side));
  return t(`round_won.${r.reason}`, {
    winners: formatList(r.winners.map((w) => sideShort(view, w))),
    losers: formatList(losers.map((l) => sideShort(view, l))),
    n: r.bosses_scored.length,
  });
}

/** @param {View} view */
export function roundsPanel(view) {
  if (!view.rounds.length) return null;
  const sides = view.scores.map((_, side) => side);
  return h(
    "section",
    { class: "panel rounds", "aria-labelledby": "rounds-title" },
    h("h2", { id: "rounds-title" }, t("round_results")),
    h(
      "table",
      {},
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, t("round")),
          h("th", { scope: "col" }, t("result")),
          sides.map((side) => h("th", { scope: "col" }, sideShort(view, side))),
        ),
      ),
      h(
        "tbody",
        {},
        view.rounds.map((r) =>
          h(
            "tr",
            {},
            h("td", {}, String(r.number)),
            h("td", { class: "round-result" }, roundResult(view, r)),
            sides.map((side) => h("td", { class: "score" }, String(r.points[side] ?? 0))),
          ),
        ),
      ),
    ),
  );
}

/** Who won, in words.
 * @param {View} view */
export function winnerText(view) {
  if (view.expired) return t("game_expired");
  if (!view.winner || view.winner.length === 0) return t("nobody_won");
  return t("game_won_by", { winners: formatList(view.winner.map((w) => sideName(view, w))) });
}
