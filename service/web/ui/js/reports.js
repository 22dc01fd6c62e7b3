// The operators' moderation queue (#/ops/reports): the open reports, oldest first, or the
// closed ones, newest first, a page at a time; each with the chat messages around the
// one it names, and an open one resolved with an action (none, warn, mute for minutes,
// suspend) and a note. The console's token is ops.js's.

import { ApiError, get, post } from "./api.js";
import { fill, h } from "./dom.js";
import { t } from "./i18n.js";
import { signOut, tokenOr } from "./ops.js";
import { setOperatorToken } from "./player.js";
import { problemBox, refusalOf } from "./problem.js";
import { FIRST_PAGE, REPORT_STATUSES, paged, reportStatus, resolution } from "./state/ops.js";
import { reportCard } from "./view/reports.js";

/** @typedef {import("./view/reports.js").Report} Report */
/** @typedef {import("./state/ops.js").Pages} Pages */

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
  /** @type {Pages} */
  let pages = FIRST_PAGE;
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
    await load(pages);
  }

  /** @param {Pages} shown */
  async function load(shown) {
    pages = shown;
    const cursor = pages[pages.length - 1];
    const query = new URLSearchParams({ status, limit: "10" });
    if (cursor) query.set("cursor", cursor);
    try {
      /** @type {{reports: Report[], next_cursor: string | null}} */
      const page = await get(`/v1/reports?${query}`, { token, signal: leaving.signal });
      const next = page.next_cursor;
      fill(
        body,
        page.reports.length === 0 ? h("p", { class: "none" }, t(`ops_reports_none_${status}`)) : page.reports.map((r) => reportCard(r, resolve)),
        h(
          "div",
          { class: "pager" },
          h("button", { type: "button", disabled: pages.length < 2, onclick: () => load(paged(pages, "previous")) }, t("previous")),
          h("button", { type: "button", disabled: !next, onclick: () => next && load(paged(pages, { next })) }, t("next")),
        ),
      );
    } catch (err) {
      if (leaving.signal.aborted) return;
      if (err instanceof ApiError && (err.status === 401 || err.status === 403)) setOperatorToken(null);
      fill(body, problemBox(refusalOf(err)));
    }
  }

  fill(
    main,
    h("h1", {}, t("ops_reports_title")),
    h("div", { class: "ops-bar" }, h("a", { href: "#/ops" }, t("ops_back")), " ", h("label", { for: "reports-status" }, t("ops_status")), " ", filter, " ", signOut()),
    said,
    body,
  );
  load(pages);
  return () => leaving.abort();
}
