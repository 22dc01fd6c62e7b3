// Card ids as docs/rules.md gives them (`green-1` … `blue-13`; in Seven Followers
// the second 7 of a suit is `<suit>-7b`): what they say, and a hand's order. How cards
// look and are named is ../cards.js.

/** The suits in the rulebooks' order (R-1.1): a hand is sorted by it. */
export const SUITS = ["green", "purple", "pink", "yellow", "black", "red", "blue"];

/** A card id's suit, rank, and whether it is a suit's second 7 (Seven Followers).
 * @param {string} card
 * @returns {{suit: string, rank: number, second: boolean}} */
export function parse(card) {
  const [suit, rank] = card.split("-");
  return { suit, rank: parseInt(rank, 10), second: rank.endsWith("b") };
}

/** @param {string} card */
export function suitOf(card) {
  return parse(card).suit;
}

/** Suit by suit (R-1.1 order), then by rank; a second 7 after the first.
 * @param {readonly string[]} cards
 * @returns {string[]} */
export function sortCards(cards) {
  /** @param {string} card */
  const key = (card) => {
    const { suit, rank, second } = parse(card);
    return SUITS.indexOf(suit) * 100 + rank * 2 + (second ? 1 : 0);
  };
  return [...cards].sort((a, b) => key(a) - key(b));
}

/** A 7: a Boss Yokai. @param {string} card */
export function isBoss(card) {
  return parse(card).rank === 7;
}
