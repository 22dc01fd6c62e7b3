// Cards: their names in the player's language, and how they look. What a card id says
// (its suit, rank, a hand's order) is state/cards.js.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { isBoss, parse } from "./state/cards.js";

/** @param {string} card */
export function rankLabel(card) {
  const { rank } = parse(card);
  return rank === 1 ? t("rank_ace") : String(rank);
}

/** A suit's name, as the rulebook of the language gives it ("Green (Wind)", "famille
 * Vent").
 * @param {string | null} suit */
export function suitName(suit) {
  return t(`suit.${suit}`);
}

/** The card's name: "Wind 5", "Vent 5", "Wind 7 (second)".
 * @param {string} card */
export function cardName(card) {
  const { suit, second } = parse(card);
  const params = { suit: t(`suit_short.${suit}`), rank: rankLabel(card) };
  return t(second ? "card_second" : "card", params);
}

/** The card's name where it is shown: a 7 (★) says it is a Boss Yokai.
 * @param {string} card */
function shownName(card) {
  return isBoss(card) ? t("card_boss", { card: cardName(card) }) : cardName(card);
}

/** The face of a card, as an element (not interactive).
 * @param {string} card
 * @param {{small?: boolean, label?: boolean}} [options] */
export function cardFace(card, { small = false, label = true } = {}) {
  const { suit } = parse(card);
  return h(
    "span",
    {
      class: `card suit-${suit}${isBoss(card) ? " boss" : ""}${small ? " small" : ""}`,
      dataset: { card },
      role: label ? "img" : null,
      "aria-label": label ? shownName(card) : null,
      title: shownName(card),
    },
    h("span", { class: "rank", "aria-hidden": "true" }, rankLabel(card)),
    h("span", { class: "mark", "aria-hidden": "true" }, t(`suit_mark.${suit}`)),
  );
}

/** A card as a button of the hand: legal (playable, or to choose for the pass), illegal
 * or idle (disabled); `pressed`: chosen to pass (null: not a choice).
 * @param {string} card
 * @param {{state: "legal" | "illegal" | "idle", pressed?: boolean | null, onclick: () => void}} options */
export function cardButton(card, { state, pressed = null, onclick }) {
  const { suit } = parse(card);
  const name = shownName(card);
  const label = {
    legal: t("card_legal", { card: name }),
    illegal: t("card_illegal", { card: name }),
    idle: name,
  }[state];
  return h(
    "button",
    {
      type: "button",
      class: `card suit-${suit}${isBoss(card) ? " boss" : ""} ${state}${pressed ? " chosen" : ""}`,
      dataset: { card },
      "aria-label": label,
      "aria-pressed": pressed === null ? null : String(pressed),
      title: label,
      disabled: state !== "legal",
      onclick,
    },
    h("span", { class: "rank", "aria-hidden": "true" }, rankLabel(card)),
    h("span", { class: "mark", "aria-hidden": "true" }, t(`suit_mark.${suit}`)),
  );
}
