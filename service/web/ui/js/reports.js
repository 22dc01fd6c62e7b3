// The operators' moderation queue (#/ops/reports): the open reports, oldest first, or the
// closed ones, newest first, a page at a time; each with the chat messages around the
// one it names, and an open one resolved with an action (none, warn, mute for minutes,
// suspend) and a note. The console's token is ops.js's.

import { post } from "./api.js";
import { fill, h } from "./dom.js";
import { t } from "./i18n.js";
import { pagedList, signOut, tokenOr } from "./ops.js";
import { problemBox, refusalOf } from "./problem.js";
import { REPORT_STATUSES, reportStatus, resolution } from "./state/ops.js";
import { reportCard } from "./view/reports.js";

/** @typedef {import("./view/reports.js").Report} Report */

/**
 * @param {HTMLElement} main
 * @param {URLSearchParams} params
 * @returns {() => void}
 */
export function opsReportsPage(main, params) {
  const leaving = new AbortController();
  const token = tokenOr(main, () => opsReportsPage(main, params));
  if (!token) return () => {};
  const status = reportStatus(params);
  const body = h("div", { id: "reports" });
  const said = h("p", { id: "reports-said", "aria-live": "polite" });
  const filter = h(
    "select",
    {
      id: "reports-status",
      onchange: (/** @type {Event} */ e) => {
        location.hash = `#/ops/reports?status=${/** @type {HTMLSelectElement} */ (e.target).value}`;
      },
    },
    REPORT_STATUSES.map((s) => h("option", { value: s, selected: s === status }, t(`ops_reports_${s}`))),
  );

  /** @param {Report} report @param {string} action @param {string} minutes @param {string} note @param {HTMLElement} out */
  async function resolve(report, action, minutes, note, out) {
    fill(out);
    try {
      await post(`/v1/reports/${report.id}/resolve`, resolution(action, minutes, note), { token });
    } catch (err) {
      fill(out, problemBox(refusalOf(err)));
      return;
    }
    said.textContent = t("ops_report_done", { player: report.player.name, action: t(`ops_action.${action}`) });
    await reload();
  }

  fill(
    main,
    h("h1", {}, t("ops_reports_title")),
    h("div", { class: "ops-bar" }, h("a", { href: "#/ops" }, t("ops_back")), " ", h("label", { for: "reports-status" }, t("ops_status")), " ", filter, " ", signOut()),
    said,
    body,
  );
  /** @param {string | null} cursor */
  function pathOf(cursor) {
    const query = new URLSearchParams({ status, limit: "10" });
    if (cursor) query.set("cursor", cursor);
    return `/v1/reports?${query}`;
  }
  const reload = pagedList(body, pathOf, token, leaving.signal, (/** @type {{reports: Report[], next_cursor: string | null}} */ page, moves) => [
    page.reports.length === 0 ? h("p", { class: "none" }, t(`ops_reports_none_${status}`)) : page.reports.map((r) => reportCard(r, resolve)),
    h(
      "div",
      { class: "pager" },
      h("button", { type: "button", disabled: !moves.previous, onclick: moves.previous }, t("previous")),
      h("button", { type: "button", disabled: !moves.next, onclick: moves.next }, t("next")),
    ),
  ]);
  return () => leaving.abort();
}
