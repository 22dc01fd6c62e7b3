// A refused request, as every page shows it.

import { h } from "./dom.js";
import { formatTime, t } from "./i18n.js";

/** @typedef {import("./types.js").Refusal} Refusal */
/** @typedef {import("./types.js").Ban} Ban */

/** A running ban in words: until when and why (a refusal's, a profile's, the console's).
 * @param {Ban} ban */
export function banLine(ban) {
  const reason = t(`ban_reason.${ban.reason}`);
  const line = t("ban_line", { until: formatTime(ban.until), reason, at: formatTime(ban.at), count: ban.count });
  return h("p", { class: "ban", dataset: { until: ban.until, reason: ban.reason } }, line);
}

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
    error.problem?.ban && banLine(error.problem.ban),
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
