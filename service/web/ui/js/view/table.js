// A game's table, drawn from its state (state/table.js): the board, the hand (choosing
// the cards to pass, playing), joining a waiting game or answering an invitation, the
// trick history, a round's end until Continue, the final result with its rematch, the
// fairness check and the hand record. What the person does goes to the page's actions
// (table.js); nothing here asks the server but the finished game's panels.

import { board, roundResult, roundsPanel, scoresPanel, seatName, sideName, tableHead, tickCountdowns, winnerText } from "../board.js";
import { cardButton, cardFace, cardName } from "../cards.js";
import { fill, h } from "../dom.js";
import { fairnessPanel, recordPanel } from "../finished.js";
import { formatList, language, t } from "../i18n.js";
import { problemBox } from "../problem.js";
import { TRICK_HOLDS_MS, handOf, heldTrick, isSeated, joinOf, marks, rematchOf, shownRoundEnd, trickRounds } from "../state/table.js";

/** @typedef {import("../types.js").View} View */
/** @typedef {import("../types.js").Refusal} Refusal */
/** @typedef {import("../state/table.js").TableState} TableState */
/** @typedef {import("../state/table.js").Hand} Hand */
/** @typedef {import("../state/table.js").Prompt} Prompt */
/** @typedef {import("../state/table.js").RoundEnd} RoundEnd */

/**
 * What the person can do at the table.
 * @typedef {object} TableActions
 * @property {(card: string) => void} play
 * @property {(card: string) => void} toggle choose a card to pass, or no longer
 * @property {() => void} pass
 * @property {(seat: number) => void} join
 * @property {(seat: number) => void} decline
 * @property {() => void} rematch
 * @property {() => void} continueRound
 * @property {(ms: number) => void} holdFor how long a taken trick stays on the table
 */

/** @param {View} view @param {Prompt | null} prompt */
function promptText(view, prompt) {
  switch (prompt?.kind) {
    case "pass":
      return prompt.to === null ? t("pass_prompt_each") : t("pass_prompt", { name: seatName(view, prompt.to) });
    case "pass_waiting":
      return t("pass_waiting");
    case "your_turn":
      return t("your_turn");
    case "waiting_for":
      return t("waiting_for", { name: seatName(view, prompt.seat) });
    case "waiting_players":
      return t("waiting_players");
    default:
      return "";
  }
}

/** @param {View} view @param {Hand} hand @param {TableActions} actions */
function handSection(view, hand, actions) {
  const buttons = hand.cards.map(({ card, state, chosen }) =>
    cardButton(card, {
      state,
      pressed: chosen,
      onclick: () => (hand.passing ? actions.toggle(card) : actions.play(card)),
    }),
  );
  const slots =
    hand.slots &&
    h(
      "ol",
      { class: "pass-slots", "aria-label": t("pass_chosen") },
      hand.slots.map((slot, i) =>
        h(
          "li",
          { dataset: { slot: i } },
          h("span", { class: "label" }, slot.to === null ? t("pass_card_n", { n: i + 1 }) : t("pass_to", { name: seatName(view, slot.to) })),
          slot.card ? cardFace(slot.card, { small: true }) : h("span", { class: "empty" }, t("pass_slot_empty")),
        ),
      ),
    );
  const passButton =
    hand.passing &&
    h("button", { type: "button", class: "primary", id: "pass-button", disabled: !hand.canPass, onclick: actions.pass }, t("pass_button"));
  const passed =
    hand.passed &&
    h(
      "div",
      { class: "pass-done" },
      h("p", {}, t("pass_given", { cards: formatList(hand.passed.given.map(cardName)) })),
      hand.passed.received && h("p", {}, t("pass_received", { cards: formatList(hand.passed.received.map(cardName)) })),
    );
  return h(
    "section",
    { class: "my-hand", "aria-labelledby": "hand-title" },
    h("h2", { id: "hand-title" }, t("your_hand")),
    h("p", { class: `prompt${hand.acting ? " act" : ""}`, id: "prompt" }, promptText(view, hand.prompt)),
    slots,
    h("div", { class: "hand", role: "group", "aria-label": t("your_hand") }, buttons),
    passButton,
    passed,
  );
}

/**
 * @param {string} gameId
 * @param {NonNullable<ReturnType<typeof joinOf>>} join
 * @param {string | null} me this browser's player's id
 * @param {TableActions} actions
 */
function joinSection(gameId, join, me, actions) {
  const { kept } = join;
  return h(
    "section",
    { class: "panel join", "aria-labelledby": "join-title" },
    h("h2", { id: "join-title" }, t("join_title")),
    kept !== null &&
      h(
        "div",
        { class: "invited-here", id: "invitation" },
        h("p", {}, t("invited_here", { n: kept + 1 })),
        h("button", { type: "button", class: "primary", id: "accept-invitation", onclick: () => actions.join(kept) }, t("accept")),
        " ",
        h("button", { type: "button", id: "decline-invitation", onclick: () => actions.decline(kept) }, t("decline")),
      ),
    h("p", {}, t("invite_text")),
    h("p", {}, h("input", { type: "text", readonly: true, class: "invite", value: location.href, "aria-label": t("invite_link") })),
    join.seated
      ? null
      : me
        ? h(
            "div",
            { class: "join-buttons" },
            join.free.map((seat) =>
              h("button", { type: "button", dataset: { joinSeat: seat }, onclick: () => actions.join(seat) }, t("join_seat", { n: seat + 1 })),
            ),
          )
        : h("p", {}, h("a", { href: `#/?join=${gameId}` }, t("join_need_name"))),
  );
}

/** A finished game: play it again. The rematch made (by anyone), its table is one click
 * away; made by this player, they sit there already (or are invited).
 * @param {TableState} state @param {TableActions} actions */
function rematchSection(state, actions) {
  const rematch = rematchOf(state);
  if (!rematch) return null;
  if ("link" in rematch) {
    return h(
      "p",
      { class: "rematch" },
      h("a", { href: `#/game/${rematch.link}`, id: "join-rematch", class: "button primary", role: "button" }, t("join_rematch")),
    );
  }
  return h(
    "div",
    { class: "rematch" },
    h("button", { type: "button", class: "primary", id: "rematch", disabled: rematch.busy, onclick: actions.rematch }, t("rematch")),
    problemBox(rematch.error),
  );
}

/**
 * A trick's cards, each with who played it, in play order, the winner's marked: small
 * and with "(won)" in the game's trick history, full-sized at a round's end.
 * @param {View} view
 * @param {{cards: import("../types.js").PlayedCard[], winner: number}} trick
 * @param {{small: boolean}} options
 */
function plays(view, trick, { small }) {
  return h(
    "ul",
    { class: "plays" },
    trick.cards.map((p) =>
      h(
        "li",
        { class: `play${p.seat === trick.winner ? " winner" : ""}`, dataset: { seat: p.seat } },
        h("span", { class: "player" }, seatName(view, p.seat)),
        small ? [" ", cardFace(p.card, { small }), p.seat === trick.winner && [" ", h("span", { class: "won" }, t("trick_winner_mark"))]] : cardFace(p.card),
      ),
    ),
  );
}

/** @param {View} view @param {TableState} state @param {TableActions} actions */
function tricksPanel(view, state, actions) {
  // Newest first: the trick just taken is where the eye is, not below the fold.
  const rounds = trickRounds(state).reverse();
  const hold = h(
    "select",
    { id: "trick-hold", onchange: (/** @type {Event} */ e) => actions.holdFor(Number(/** @type {HTMLSelectElement} */ (e.target).value)) },
    TRICK_HOLDS_MS.map((ms) => h("option", { value: ms, selected: ms === state.holdMs || null }, t("seconds_n", { n: new Intl.NumberFormat(language()).format(ms / 1000) }))),
  );
  return h(
    "section",
    { class: "panel tricks", "aria-labelledby": "tricks-title" },
    h("h2", { id: "tricks-title" }, t("tricks_title")),
    h("label", { class: "trick-hold" }, t("trick_hold_label"), " ", hold),
    rounds.length === 0 && h("p", { class: "none" }, t("no_tricks_yet")),
    rounds.map(({ round, open, tricks }) =>
      h(
        "details",
        { open: open || null, dataset: { round } },
        h("summary", {}, t("round_n", { n: round })),
        h(
          "ol",
          { reversed: true },
          [...tricks].reverse().map((x) =>
            h(
              "li",
              { class: "trick-line", dataset: { round, trick: x.number, winner: x.winner } },
              h("span", { class: "who" }, t("trick_won_by", { n: x.number, name: seatName(view, x.winner) })),
              plays(view, x, { small: true }),
            ),
          ),
        ),
      ),
    ),
  );
}

/** The end of a round: its last trick (each card with its player), who won it and why,
 * the points and the scores; "Continue" shows the table as it is now.
 * @param {View} view @param {RoundEnd} roundEnd @param {TableActions} actions */
function roundEndPanel(view, { result, trick }, actions) {
  const sides = view.scores.map((_, side) => side);
  return h(
    "section",
    { class: "panel round-end", id: "round-end", "aria-labelledby": "round-end-title", dataset: { round: result.number } },
    h("h2", { id: "round-end-title" }, t("round_end_title", { n: result.number })),
    h("p", { class: "round-end-result" }, roundResult(view, result)),
    trick &&
      h(
        "div",
        { class: "round-end-trick" },
        h("h3", {}, t("round_end_last_trick", { name: seatName(view, trick.winner) })),
        plays(view, trick, { small: false }),
      ),
    h(
      "table",
      { class: "round-end-scores" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, t("round_end_side")),
          h("th", { scope: "col" }, t("round_end_points")),
          h("th", { scope: "col" }, t("round_end_total")),
        ),
      ),
      h(
        "tbody",
        {},
        sides.map((side) =>
          h(
            "tr",
            { dataset: { side } },
            h("th", { scope: "row" }, sideName(view, side)),
            h("td", { class: "points" }, String(result.points[side] ?? 0)),
            h("td", { class: "score" }, String(view.scores[side])),
          ),
        ),
      ),
    ),
    h("button", { type: "button", class: "primary", id: "round-continue", onclick: actions.continueRound }, t("round_end_continue")),
  );
}

/**
 * The table in `main`, drawn again at each state: {render(state, me), finished(view),
 * failed(error), tick()}. `beside` (the chat) is put beside it, and never drawn again here.
 * @param {HTMLElement} main
 * @param {string} gameId
 * @param {TableActions} actions
 * @param {HTMLElement | null} [beside]
 */
export function tableView(main, gameId, actions, beside = null) {
  const root = h("div", { class: "game" });
  const live = h("p", { class: "sr-only", "aria-live": "polite", role: "status" });
  const fairnessSlot = h("section", { class: "panel fairness", "aria-labelledby": "fair-title" });
  const recordSlot = h("section", { class: "panel record", "aria-labelledby": "record-title" });
  /** @type {RoundEnd | null} the round's end whose Continue got the focus */
  let focusedFor = null;
  fill(main, h("div", { class: beside ? "game-page with-chat" : "game-page" }, root, beside), live);

  /** @param {TableState} state @param {string | null} me this browser's player's id */
  function render(state, me) {
    const view = state.view;
    if (!view) return;
    const active = /** @type {HTMLElement | null} */ (document.activeElement);
    const focused = active?.dataset?.card || active?.id || null;
    const seated = isSeated(state);
    const roundEnd = shownRoundEnd(state);
    for (const [key, value] of Object.entries(marks(state, view))) {
      if (value === null) delete root.dataset[key];
      else root.dataset[key] = value;
    }
    const finished = view.status === "finished";
    const hand = handOf(state);
    const join = joinOf(state, me);
    fill(
      root,
      h(
        "header",
        { class: "game-head" },
        h("h1", {}, t("game_title", { id: gameId.slice(0, 8) })),
        h("p", { class: `connection ${state.connection}` }, t(`connection.${state.connection}`)),
      ),
      tableHead(view),
      problemBox(state.error),
      finished &&
        h(
          "section",
          { class: "panel finished", id: "final" },
          h("h2", {}, t("game_over")),
          h("p", { class: "winner-text" }, winnerText(view)),
          rematchSection(state, actions),
          // The hand review (review.js) asks for the review when it opens.
          h("p", { class: "review-link" }, h("a", { href: `#/game/${gameId}/review`, id: "review", class: "button", role: "button" }, t("review_button"))),
        ),
      h(
        "div",
        { class: "layout" },
        roundEnd
          ? h("div", { class: "play-area" }, roundEndPanel(view, roundEnd, actions))
          : h(
              "div",
              { class: "play-area" },
              board(view, { me: seated ? view.seat : null, held: heldTrick(state) }),
              hand && handSection(view, hand, actions),
              join && joinSection(gameId, join, me, actions),
            ),
        h("aside", { class: "side" }, scoresPanel(view), roundsPanel(view), tricksPanel(view, state, actions)),
      ),
      finished && h("div", { class: "after" }, fairnessSlot, recordSlot),
    );
    tickCountdowns(root);
    if (roundEnd && roundEnd !== focusedFor) {
      focusedFor = roundEnd;
      document.getElementById("round-continue")?.focus();
    } else if (focused) {
      const again = /** @type {HTMLButtonElement | null} */ (
        root.querySelector(`[data-card="${CSS.escape(focused)}"]:is(button)`) || document.getElementById(focused)
      );
      if (again && !again.disabled) again.focus();
    }
    // The status region says what the page says now: the prompt, or the game's end (no
    // stale "Waiting for …" once the game is over); nothing when there is no prompt.
    let said = hand ? promptText(view, hand.prompt) : "";
    if (finished) said = t("game_over_status", { result: winnerText(view) });
    else if (roundEnd) said = t("round_end_status", { n: roundEnd.result.number, result: roundResult(view, roundEnd.result) });
    if (live.textContent !== said) live.textContent = said;
  }

  return {
    render,
    /** The finished game's panels: the fairness check and the hand record.
     * @param {View} view */
    finished(view) {
      fairnessPanel(fairnessSlot, view);
      recordPanel(recordSlot, gameId);
    },
    /** The game could not be shown at all. @param {Refusal} error */
    failed(error) {
      fill(root, h("h1", {}, t("game_title", { id: gameId.slice(0, 8) })), problemBox(error));
    },
    tick: () => tickCountdowns(root),
  };
}
