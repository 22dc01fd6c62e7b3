// The operators' console, as pure functions: the games list's status filter and pages,
// a player id typed in, a player's suspension as their audit says it. ops.js wires them
// to the API, view/ops.js draws the console; tests/js/ops.test.js runs them.

/** The statuses the games list filters by ("": every game). */
export const STATUSES = ["", "waiting", "passing", "playing", "finished"];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The status the games list shows, from its link's `status` ("" when none or unknown).
 * @param {URLSearchParams} params
 */
export function listStatus(params) {
  const asked = params.get("status") ?? "";
  return STATUSES.includes(asked) ? asked : "";
}

/**
 * The games list's pages seen: the cursor of each ("previous" goes back one; the first
 * page's is null).
 * @typedef {readonly (string | null)[]} Pages
 */

/** @type {Pages} */
export const FIRST_PAGE = [null];

/**
 * The pages after "next" (to `cursor`) or "previous"; the last one is shown.
 * @param {Pages} pages
 * @param {{next: string} | "previous"} move
 * @returns {Pages}
 */
export function paged(pages, move) {
  if (move === "previous") return pages.length > 1 ? pages.slice(0, -1) : pages;
  return [...pages, move.next];
}

/**
 * A player id as typed (trimmed, lower case), or null when it is not one.
 * @param {string} text
 */
export function playerIdOf(text) {
  const id = text.trim().toLowerCase();
  return UUID.test(id) ? id : null;
}

/**
 * Whether a player is suspended, as their audit (oldest first) says: the last
 * suspension or lifting of one.
 * @param {readonly {action: string}[]} entries
 */
export function suspendedBy(entries) {
  const last = [...entries].reverse().find((e) => e.action === "suspended" || e.action === "unsuspended");
  return last?.action === "suspended";
}

/** The reports list's statuses: the queue, and the reports resolved. */
export const REPORT_STATUSES = ["open", "closed"];

/**
 * The reports list's status, from its link's `status` ("open" when none or unknown).
 * @param {URLSearchParams} params
 */
export function reportStatus(params) {
  const asked = params.get("status") ?? "";
  return REPORT_STATUSES.includes(asked) ? asked : "open";
}

/** The actions a report is resolved with (docs/api.md "Reports and moderation"). */
export const ACTIONS = ["none", "warn", "mute", "suspend"];

/**
 * A resolution as POST /v1/reports/{id}/resolve takes it: the note trimmed, and minutes
 * (the field's text, a whole number) for a mute only.
 * @param {string} action
 * @param {string} minutes
 * @param {string} note
 * @returns {{action: string, note: string, minutes?: number}}
 */
export function resolution(action, minutes, note) {
  const body = { action, note: note.trim() };
  return action === "mute" ? { ...body, minutes: Number(minutes.trim()) } : body;
}
