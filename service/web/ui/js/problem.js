// A refused request, as every page shows it.

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** @typedef {import("./types.js").Refusal} Refusal */

/** Show the problem of a refused request: its `title`, and what it means.
 * @param {Refusal | null | undefined} error */
export function problemBox(error) {
  if (!error) return null;
  const code = error.code;
  const known = code ? t(`problem.${code}`) : null;
  const said = known && known !== `problem.${code}` ? known : error.problem?.detail || "";
  const detail = repeats(error.message, said) ? "" : said;
  return h(
    "div",
    { class: "problem", role: "alert", dataset: { code: code || "" } },
    h("strong", { class: "title" }, error.message),
    detail && h("span", { class: "detail" }, detail),
  );
}

/**
 * Whether `detail` only says the title again ("There is no such game" and "There is no
 * such game."): then the box shows the title alone.
 * @param {string} title @param {string} detail
 */
export function repeats(title, detail) {
  /** @param {string} text */
  const bare = (text) => text.trim().replace(/[.!。]+$/u, "").toLowerCase();
  return Boolean(detail) && bare(title) === bare(detail);
}

/**
 * What a page caught, as a refusal to show: an Error as it is, anything else as text.
 * @param {unknown} err
 * @returns {Refusal}
 */
export function refusalOf(err) {
  return err instanceof Error ? err : new Error(String(err));
}
