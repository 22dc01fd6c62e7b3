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
  const detail = known && known !== `problem.${code}` ? known : error.problem?.detail || "";
  return h(
    "div",
    { class: "problem", role: "alert", dataset: { code: code || "" } },
    h("strong", { class: "title" }, error.message),
    detail && h("span", { class: "detail" }, detail),
  );
}

/**
 * What a page caught, as a refusal to show: an Error as it is, anything else as text.
 * @param {unknown} err
 * @returns {Refusal}
 */
export function refusalOf(err) {
  return err instanceof Error ? err : new Error(String(err));
}
