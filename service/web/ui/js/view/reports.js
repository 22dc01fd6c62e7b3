// The operators' moderation queue, drawn: each report (who reported whom, when, why),
// the chat messages around the one it names (that one marked), how a closed one was
// resolved, and an open one's form to resolve it. reports.js wires them to the API.

import { h } from "../dom.js";
import { formatTime, t } from "../i18n.js";
import { ACTIONS } from "../state/ops.js";

/**
 * A chat message around a reported one (GET /v1/reports: `context`).
 * @typedef {{id: number, channel: string, seat: number | null, player_id: string | null, name: string, text: string | null, preset: string | null, at: string, reported: boolean}} ContextMessage
 */

/**
 * A report as operators read it (GET /v1/reports).
 * @typedef {object} Report
 * @property {string} id
 * @property {string} status
 * @property {string} created_at
 * @property {{id: string, name: string, erased: boolean}} player
 * @property {{id: string, name: string, erased: boolean}} reporter
 * @property {string | null} game_id
 * @property {number | null} message_id
 * @property {string | null} reason
 * @property {ContextMessage[]} context
 * @property {{action: string, minutes: number | null, until: string | null, note: string | null, at: string, by: string | null} | null} resolution
 */

/** @param {{id: string, name: string}} who */
const playerLink = (who) => h("a", { href: `#/ops/players/${who.id}` }, who.name);

/** The messages around the reported one, oldest first. @param {ContextMessage[]} messages */
function context(messages) {
  return h(
    "ol",
    { class: "chat-context" },
    messages.map((m) =>
      h(
        "li",
        { class: m.reported ? "reported" : null, dataset: { message: String(m.id), channel: m.channel } },
        m.reported && h("strong", { class: "flag" }, t("ops_report_flagged")),
        h("span", { class: "name" }, m.name),
        h("span", { class: "text" }, m.text ?? (m.preset ? t("ops_report_preset", { preset: m.preset }) : t("ops_report_erased"))),
        h("time", { datetime: m.at }, formatTime(m.at)),
      ),
    ),
  );
}

/** How a closed report was resolved. @param {NonNullable<Report["resolution"]>} done */
function resolved(done) {
  const action = t(`ops_action.${done.action}`);
  const line = done.until ? t("ops_report_resolved_until", { action, until: formatTime(done.until) }) : action;
  return h(
    "p",
    { class: "resolution", dataset: { action: done.action } },
    t("ops_report_resolved", { action: line, at: formatTime(done.at), by: done.by ?? "" }),
    done.note && h("span", { class: "reason" }, t("ops_report_note_value", { note: done.note })),
  );
}

/**
 * An open report's form: the action, a mute's minutes, the note.
 * @param {Report} report
 * @param {(action: string, minutes: string, note: string, out: HTMLElement) => void} resolve
 */
function resolveForm(report, resolve) {
  const id = report.id;
  const minutes = h("input", { id: `minutes-${id}`, type: "number", min: 1, max: 10080, step: 1, value: "60", disabled: true, inputmode: "numeric" });
  const note = h("textarea", { id: `note-${id}`, required: true, maxlength: 1000, rows: 2 });
  const out = h("div", { "aria-live": "polite" });
  const choices = ACTIONS.map((action) =>
    h(
      "label",
      { class: "choice" },
      h("input", {
        type: "radio",
        name: `action-${id}`,
        value: action,
        checked: action === "none",
        onchange: () => {
          minutes.disabled = action !== "mute";
        },
      }),
      " ",
      t(`ops_action.${action}`),
    ),
  );
  return h(
    "form",
    {
      class: "resolve",
      onsubmit: (/** @type {SubmitEvent} */ e) => {
        e.preventDefault();
        const form = /** @type {HTMLFormElement} */ (e.target);
        const chosen = /** @type {HTMLInputElement | null} */ (form.querySelector(`input[name="action-${id}"]:checked`));
        resolve(chosen?.value ?? "none", minutes.value, note.value, out);
      },
    },
    h("fieldset", {}, h("legend", {}, t("ops_report_action")), choices),
    h("div", { class: "minutes" }, h("label", { for: `minutes-${id}` }, t("ops_report_minutes")), " ", minutes),
    h("label", { for: `note-${id}` }, t("ops_report_note")),
    note,
    h("button", { type: "submit", class: "primary" }, t("ops_report_resolve")),
    out,
  );
}

/**
 * One report of the list.
 * @param {Report} report
 * @param {(report: Report, action: string, minutes: string, note: string, out: HTMLElement) => void} resolve
 */
export function reportCard(report, resolve) {
  const title = `report-title-${report.id}`;
  return h(
    "article",
    { class: "panel report", "aria-labelledby": title, dataset: { report: report.id, status: report.status } },
    h("h2", { id: title }, t("ops_report_title", { reporter: report.reporter.name, player: report.player.name })),
    h(
      "p",
      { class: "report-meta" },
      playerLink(report.player),
      " · ",
      t("ops_report_by"),
      " ",
      playerLink(report.reporter),
      " · ",
      h("time", { datetime: report.created_at }, formatTime(report.created_at)),
      report.game_id && [" · ", h("a", { href: `#/ops/${report.game_id}` }, t("ops_report_game", { id: report.game_id.slice(0, 8) }))],
    ),
    h("blockquote", { class: "report-reason" }, report.reason ?? t("ops_report_erased")),
    report.context.length > 0 && context(report.context),
    report.resolution ? resolved(report.resolution) : resolveForm(report, (...how) => resolve(report, ...how)),
  );
}
