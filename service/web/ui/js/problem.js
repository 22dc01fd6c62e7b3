// A refused request, as every page shows it.

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** Show the problem of a refused request: its `title`, and what it means. */
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
