// A finished game's hand review (#/game/<id>/review), drawn from its state
// (state/review.js): while the worker computes it, how far it has gone; failed, a message
// and "Ask again"; done, the decision shown: the whole table as it stood then, every hand
// face up (the table page's own board, the deciding seat's turn, the trick under way, the
// tricks and bosses won, trump, the rounds before and the scores), the seat, the card
// played or the pass, the expert's card (both marked in the seat's hand, the passes made
// before marked in theirs), the loss, marked mistake or blunder, every option's value;
// with back, forward and the next or previous mistake, and each seat's summary. What the
// person does goes to the page's actions (review.js).

import { board, roundsPanel, scoresPanel, seatName, tableHead } from "../board.js";
import { cardFace } from "../cards.js";
import { fill, h } from "../dom.js";
import { language, t } from "../i18n.js";
import { problemBox } from "../problem.js";
import { decisionsOf, markOf, nextMistake, optionRows, phaseOf, summaryRows, tableShown } from "../state/review.js";

/** @typedef {import("../types.js").View} View */
/** @typedef {import("../types.js").Refusal} Refusal */
/** @typedef {import("../state/review.js").ReviewState} ReviewState */
/** @typedef {import("../state/review.js").Decision} Decision */

/**
 * What the person can do on the review page.
 * @typedef {object} ReviewActions
 * @property {(action: "back" | "forward" | "next_mistake" | "previous_mistake") => void} act
 * @property {(index: number) => void} jump show that decision
 * @property {() => void} retry ask for the review again (it failed)
 */

/** A share of the round (0 to 1) as a percentage in the page's language.
 * @param {number} share */
function percent(share) {
  return new Intl.NumberFormat(language(), { style: "percent", maximumFractionDigits: 1 }).format(share);
}

/** A play's card or a pass's three, as the client shows cards.
 * @param {string | string[]} cards */
function cardsShown(cards) {
  return h("span", { class: "review-cards" }, (Array.isArray(cards) ? cards : [cards]).map((c) => cardFace(c, { small: true })));
}

/** @param {Decision} decision */
function markBadge(decision) {
  const mark = markOf(decision);
  if (mark === "blunder") return h("span", { class: "badge review-mark blunder", dataset: { mark } }, t("review_blunder"));
  if (mark === "mistake") return h("span", { class: "badge review-mark mistake", dataset: { mark } }, t("review_mistake"));
  return null;
}

/** @param {View | null} view @param {number} seat */
function nameOf(view, seat) {
  return view ? seatName(view, seat) : t("seat_n", { n: seat + 1 });
}

/** The table as it stood at the decision (from the game's record), every hand face up:
 * in the deciding seat's hand the card played (or the three passed) and the expert's
 * choice are marked, in words too; while the passes are chosen, the cards the seats that
 * have passed gave. Null without the record.
 * @param {ReviewState} state @param {View | null} view @param {Decision} decision */
function tablePart(state, view, decision) {
  const shown = tableShown(state, view);
  if (!shown) return null;
  const chosen = new Set([decision.chosen].flat());
  const best = new Set([decision.best].flat());
  /** @param {number} seat @param {string} card */
  const face = (seat, card) => {
    const marks = [];
    if (seat === decision.seat && chosen.has(card)) marks.push(["chosen", t("review_option_chosen")]);
    if (seat === decision.seat && best.has(card)) marks.push(["best", t("review_option_best")]);
    if (shown.given[seat]?.includes(card)) marks.push(["given", t("review_given")]);
    if (!marks.length) return cardFace(card, { small: true });
    return h(
      "span",
      { class: `review-card ${marks.map(([mark]) => mark).join(" ")}` },
      cardFace(card, { small: true }),
      marks.map(([mark, word]) => h("span", { class: `badge ${mark}` }, word)),
    );
  };
  return h(
    "div",
    { class: "review-table", id: "review-table", dataset: { status: shown.status } },
    h("h3", { class: "review-table-title" }, t("review_table")),
    tableHead(shown),
    board(shown, { me: state.me ?? null, hands: shown.hands, face, history: true }),
    h("div", { class: "side-row" }, scoresPanel(shown), roundsPanel(shown)),
  );
}

/** The decision shown, with the buttons that move through the review.
 * @param {ReviewState} state @param {View | null} view @param {ReviewActions} actions */
function decisionSection(state, view, actions) {
  const decisions = decisionsOf(state);
  const decision = decisions[state.at];
  const where =
    decision.kind === "pass"
      ? t("review_where_pass", { round: decision.round })
      : t("review_where_play", { round: decision.round, trick: decision.trick });
  /** @param {string} id @param {string} label @param {boolean} disabled @param {"back" | "forward" | "next_mistake" | "previous_mistake"} action */
  const button = (id, label, disabled, action) =>
    h("button", { type: "button", id, disabled, onclick: () => actions.act(action) }, label);
  return h(
    "section",
    { class: "panel review-move", "aria-labelledby": "review-decision-title", dataset: { at: state.at, seq: decision.seq } },
    h("h2", { id: "review-decision-title" }, t("review_decision", { n: state.at + 1, total: decisions.length }), " · ", where),
    h(
      "div",
      { class: "review-nav", role: "group", "aria-label": t("review_moves") },
      button("review-back", t("review_back"), state.at === 0, "back"),
      button("review-forward", t("review_forward"), state.at === decisions.length - 1, "forward"),
      button("review-previous-mistake", t("review_previous_mistake"), nextMistake(state, -1) === null, "previous_mistake"),
      button("review-next-mistake", t("review_next_mistake"), nextMistake(state, 1) === null, "next_mistake"),
    ),
    h("p", { class: "review-keys" }, t("review_keys")),
    h(
      "div",
      { class: "review-layout" },
      h("div", { class: "review-about" }, aboutPart(view, decision)),
      tablePart(state, view, decision),
    ),
  );
}

/** What the seat did, what the expert would have, the loss, and every option's value.
 * @param {View | null} view @param {Decision} decision */
function aboutPart(view, decision) {
  return [
    h(
      "dl",
      { class: "review-facts", id: "review-facts" },
      h("dt", {}, t("review_seat")),
      h("dd", { id: "review-seat", dataset: { seat: decision.seat } }, nameOf(view, decision.seat)),
      h("dt", {}, decision.kind === "pass" ? t("review_passed") : t("review_played")),
      h("dd", { id: "review-chosen" }, cardsShown(decision.chosen)),
      h("dt", {}, t("review_expert")),
      h("dd", { id: "review-best" }, cardsShown(decision.best)),
      h("dt", {}, t("review_loss")),
      h("dd", { id: "review-loss", dataset: { loss: decision.loss } }, percent(decision.loss), " ", markBadge(decision)),
    ),
    decision.loss === 0 && h("p", { class: "review-agrees" }, t("review_agrees")),
    h(
      "details",
      { class: "review-options" },
      h("summary", {}, t("review_options", { n: decision.options.length })),
      h(
        "ol",
        {},
        optionRows(decision).map((o) =>
          h(
            "li",
            { class: `${o.chosen ? "chosen" : ""}${o.best ? " best" : ""}`.trim() || null },
            cardsShown(o.cards),
            " ",
            percent(o.value),
            o.best && h("span", { class: "badge" }, t("review_option_best")),
            o.chosen && h("span", { class: "badge" }, t("review_option_chosen")),
          ),
        ),
      ),
    ),
  ];
}

/** Each seat's accuracy, mistakes and blunders; a seat's name with a mistake jumps to its
 * first one.
 * @param {ReviewState} state @param {View | null} view @param {ReviewActions} actions */
function summarySection(state, view, actions) {
  const number = new Intl.NumberFormat(language(), { maximumFractionDigits: 1 });
  return h(
    "section",
    { class: "panel review-summary", "aria-labelledby": "review-summary-title" },
    h("h2", { id: "review-summary-title" }, t("review_summary")),
    h(
      "table",
      { id: "review-summary" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, t("review_seat")),
          h("th", { scope: "col" }, t("review_accuracy")),
          h("th", { scope: "col" }, t("review_mistakes")),
          h("th", { scope: "col" }, t("review_blunders")),
        ),
      ),
      h(
        "tbody",
        {},
        summaryRows(state).map((row) =>
          h(
            "tr",
            { dataset: { seat: row.seat } },
            h("th", { scope: "row" }, nameOf(view, row.seat)),
            h("td", { class: "accuracy" }, number.format(row.accuracy)),
            h(
              "td",
              { class: "mistakes" },
              row.firstMistake === null
                ? row.mistakes
                : h(
                    "button",
                    {
                      type: "button",
                      class: "quiet",
                      "aria-label": t("review_first_mistake_of", { n: row.mistakes, name: nameOf(view, row.seat) }),
                      onclick: () => actions.jump(/** @type {number} */ (row.firstMistake)),
                    },
                    row.mistakes,
                  ),
            ),
            h("td", { class: "blunders" }, row.blunders),
          ),
        ),
      ),
    ),
    h("p", { class: "review-explain" }, t("review_explain", { level: t(`bot_level.${state.review?.level ?? "expert"}`) })),
  );
}

/**
 * The review page in `main`: {render(state, view), failed(error)}.
 * @param {HTMLElement} main
 * @param {string} gameId
 * @param {ReviewActions} actions
 */
export function reviewView(main, gameId, actions) {
  const body = h("div", { class: "review-body" }, h("p", { class: "loading", role: "status" }, t("loading")));
  const live = h("p", { class: "sr-only", "aria-live": "polite", role: "status" });
  const root = h(
    "div",
    { class: "review", dataset: { game: gameId } },
    h(
      "header",
      { class: "game-head" },
      h("h1", {}, t("review_title", { id: gameId.slice(0, 8) })),
      h("p", {}, h("a", { href: `#/game/${gameId}`, id: "review-to-game" }, t("review_to_game"))),
    ),
    body,
    live,
  );
  fill(main, root);

  return {
    /** @param {ReviewState} state @param {View | null} view the game's public view (its names) */
    render(state, view) {
      const phase = phaseOf(state.review);
      root.dataset.phase = phase;
      const focused = document.activeElement?.id || null;
      const decisions = decisionsOf(state);
      let said = "";
      if (phase === "waiting") {
        said = t("review_waiting", { n: decisions.length });
        fill(body, h("p", { class: "review-status", id: "review-status" }, said));
      } else if (phase === "failed") {
        said = t("review_failed");
        fill(
          body,
          h("p", { class: "review-status", id: "review-status", role: "alert" }, said),
          h("button", { type: "button", class: "primary", id: "review-retry", onclick: actions.retry }, t("review_retry")),
        );
      } else if (decisions.length === 0) {
        fill(body, h("p", { class: "review-status", id: "review-status" }, t("review_no_decisions")), summarySection(state, view, actions));
      } else {
        fill(body, decisionSection(state, view, actions), summarySection(state, view, actions));
        const d = decisions[state.at];
        const mark = markOf(d);
        said = [
          t("review_decision", { n: state.at + 1, total: decisions.length }),
          nameOf(view, d.seat),
          mark === "blunder" ? t("review_blunder") : mark === "mistake" ? t("review_mistake") : "",
        ]
          .filter(Boolean)
          .join(". ");
      }
      if (live.textContent !== said) live.textContent = said;
      // The button pressed keeps the focus (or, now disabled, gives it to the decision).
      if (focused) {
        const again = /** @type {HTMLButtonElement | null} */ (document.getElementById(focused));
        if (again && !again.disabled) again.focus();
        else if (again) {
          const title = document.getElementById("review-decision-title");
          title?.setAttribute("tabindex", "-1");
          title?.focus();
        }
      }
    },
    /** The review could not be asked for or read. @param {Refusal} error */
    failed(error) {
      root.dataset.phase = "refused";
      fill(body, problemBox(error));
    },
  };
}
