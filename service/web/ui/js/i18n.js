// Messages: one catalogue per language (ui/i18n/<lang>.json), chosen from the browser's
// languages unless the player picked one. Every text shown comes from a template with
// named placeholders ("{name} plays {card}"): translations may reorder them freely, and
// no sentence is ever built by pasting pieces together.

import { clientFile } from "./api.js";
import { LANGUAGES, fillTemplate, pickLanguage } from "./languages.js";

const STORED = "yokai.lang";

/** @type {Record<string, string>} */
let messages = {};
/** @type {Record<string, string>} */
let english = {};
let current = "en";

/** The language shown: "en", "fr", "de" or "zh". */
export function language() {
  return current;
}

/** The language to show: the one picked before, else the first of the browser's that we
 * have, else English. */
export function chooseLanguage() {
  const picked = localStorage.getItem(STORED);
  if (picked && LANGUAGES.includes(picked)) return picked;
  return pickLanguage(navigator.languages || [navigator.language || "en"]);
}

/** @param {string} lang @returns {Promise<Record<string, string>>} */
async function catalogue(lang) {
  try {
    return await clientFile(`/ui/i18n/${lang}.json`);
  } catch {
    throw new Error(`no catalogue for ${lang}`);
  }
}

/** Load a language's catalogue (English stays loaded for any missing message).
 * @param {string} lang
 * @param {{remember?: boolean}} [options] */
export async function useLanguage(lang, { remember = false } = {}) {
  if (!LANGUAGES.includes(lang)) lang = "en";
  if (!Object.keys(english).length) english = await catalogue("en");
  messages = lang === "en" ? english : await catalogue(lang);
  current = lang;
  document.documentElement.lang = lang;
  if (remember) localStorage.setItem(STORED, lang);
}

/** The message `key`, its {placeholders} filled from `params`.
 * @param {string} key
 * @param {Record<string, unknown>} [params]
 * @returns {string} */
export function t(key, params = {}) {
  return fillTemplate(messages[key] ?? english[key] ?? key, params);
}

/** The message `key` as a list of texts and elements: a placeholder whose param is an
 * element (a link to a player, say) is that element, where the translation puts it.
 * @param {string} key
 * @param {Record<string, unknown>} [params]
 * @returns {(string | Node)[]} */
export function tNodes(key, params = {}) {
  const template = messages[key] ?? english[key] ?? key;
  /** @type {(string | Node)[]} */
  const out = [];
  let at = 0;
  for (const found of template.matchAll(/\{(\w+)\}/g)) {
    if (!Object.hasOwn(params, found[1])) continue;
    out.push(template.slice(at, found.index));
    const value = params[found[1]];
    out.push(value instanceof Node ? value : String(value));
    at = (found.index ?? 0) + found[0].length;
  }
  out.push(template.slice(at));
  return out.filter((part) => part !== "");
}

/** A time as this language writes it.
 * @param {string | null | undefined} iso */
export function formatTime(iso) {
  if (!iso) return "";
  return new Intl.DateTimeFormat(current, { dateStyle: "short", timeStyle: "medium" }).format(
    new Date(iso),
  );
}

/** A list of names as this language joins them ("A, B and C").
 * @param {string[]} items */
export function formatList(items) {
  return new Intl.ListFormat(current, { style: "long", type: "conjunction" }).format(items);
}
