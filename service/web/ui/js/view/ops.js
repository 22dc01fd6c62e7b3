// The operators' console, drawn: the operator token's form, the games list, a game's
// audit as a timeline and its state at an event (every hand shown), the history's check,
// and a player's audit. ops.js wires them to the API.

import { board, roundsPanel, scoresPanel, tableHead } from "../board.js";
import { fill, h } from "../dom.js";
import { formatTime, t } from "../i18n.js";
import { problemBox, refusalOf } from "../problem.js";
import { playerIdOf } from "../state/ops.js";

/** @typedef {import("../types.js").View} View */

/**
 * Who did something, as the audit records it.
 * @typedef {{kind: string, id?: string | null, seat?: number | null}} Actor
 */

/**
 * An event of a game's audit.
 * @typedef {object} AuditEvent
 * @property {number} seq
 * @property {string} type
 * @property {any} data
 * @property {string} recorded_at
 * @property {Actor} actor
 * @property {string | null} [request_id]
 * @property {string | null} [client_address]
 */

/**
 * A game of the operators' list (GET /v1/games).
 * @typedef {{id: string, status: string, variant: string, players: number, version: number, created_at: string, updated_at: string}} GameSummary
 */

/**
 * The operator token asked for, in `main`; `enter` tries it (the form shows its refusal).
 * @param {HTMLElement} main
 * @param {(token: string) => Promise<void>} enter
 */
export function tokenForm(main, enter) {
  const input = h("input", { id: "operator-token", type: "password", required: true, autocomplete: "off" });
  const error = h("div");
  fill(
    main,
    h("h1", {}, t("ops_title")),
    h(
      "form",
      {
        class: "panel",
        onsubmit: async (/** @type {SubmitEvent} */ e) => {
          e.preventDefault();
          try {
            await enter(input.value.trim());
          } catch (err) {
            fill(error, problemBox(refusalOf(err)));
          }
        },
      },
      h("p", {}, t("ops_token_text")),
      h("label", { for: "operator-token" }, t("ops_token")),
      " ",
      input,
      " ",
      h("button", { type: "submit", class: "primary" }, t("ops_enter")),
      error,
    ),
  );
  input.focus();
}

/** The console's "sign out" (the operator token forgotten). @param {() => void} signOut */
export function signOutButton(signOut) {
  return h("button", { type: "button", class: "quiet", id: "ops-sign-out", onclick: signOut }, t("ops_sign_out"));
}

const COLUMNS = ["ops_col_game", "ops_col_created", "ops_col_status", "ops_col_variant", "ops_col_players", "ops_col_events", "ops_col_updated"];

/**
 * A page of the games list, newest created first, and its pager.
 * @param {GameSummary[]} games
 * @param {{previous: (() => void) | null, next: (() => void) | null}} pager null: no such page
 */
export function gamesTable(games, { previous, next }) {
  return [
    h(
      "table",
      { class: "games-table" },
      h("caption", { id: "ops-list-order" }, t("ops_list_order")),
      h("thead", {}, h("tr", {}, COLUMNS.map((k) => h("th", { scope: "col", "aria-sort": k === "ops_col_created" ? "descending" : null }, t(k))))),
      h(
        "tbody",
        {},
        games.length === 0 && h("tr", {}, h("td", { colspan: 7 }, t("no_games"))),
        games.map((g) =>
          h(
            "tr",
            { dataset: { game: g.id } },
            h("td", {}, h("a", { href: `#/ops/${g.id}` }, g.id.slice(0, 8))),
            h("td", { class: "created" }, h("time", { datetime: g.created_at }, formatTime(g.created_at))),
            h("td", {}, t(`status.${g.status}`)),
            h("td", {}, t(`variant.${g.variant}`)),
            h("td", {}, String(g.players)),
            h("td", {}, String(g.version)),
            h("td", { class: "updated" }, h("time", { datetime: g.updated_at }, formatTime(g.updated_at))),
          ),
        ),
      ),
    ),
    h(
      "div",
      { class: "pager" },
      h("button", { type: "button", id: "ops-previous", disabled: !previous, onclick: previous }, t("previous")),
      h("button", { type: "button", id: "ops-next", disabled: !next, onclick: next }, t("next")),
    ),
  ];
}

/** A seat as the console says it: the page's number (from 1) and the API's (from 0),
 * the operators' truth, side by side.
 * @param {number} seat */
function seatText(seat) {
  return t("ops_seat", { n: seat + 1, api: seat });
}

/** Who did what an event records (its `actor`). A bot's join (SeatJoined with `bot`)
 * says which bot took which seat, and who seated it (the game's creator).
 * @param {Actor} actor @param {AuditEvent} event */
function actorText(actor, event) {
  const kind = t(`actor.${actor.kind}`);
  let who = actor.seat === null || actor.seat === undefined ? kind : t("actor_with_seat", { kind, seat: seatText(actor.seat) });
  // Who exactly (the audit's `actor.id`): the operator token's name, the player's id.
  if (actor.id) who = t("actor_with_id", { who, id: actor.id });
  if (event.type === "SeatJoined" && event.data?.bot) {
    return t("actor_bot_join", { level: t(`bot_level.${event.data.bot}`), seat: seatText(event.data.seat), who });
  }
  return who;
}

/**
 * A game's audit as a timeline: each event (a button: `pick` shows the state then), who
 * did it, when, and the request.
 * @param {AuditEvent[]} events
 * @param {(seq: number) => void} pick
 */
export function timelineItems(events, pick) {
  return events.map((e) =>
    h(
      "li",
      { dataset: { seq: e.seq } },
      h(
        "button",
        { type: "button", class: "event", onclick: () => pick(e.seq) },
        h("span", { class: "seq" }, `#${e.seq}`),
        h("span", { class: "type" }, e.type),
      ),
      h("span", { class: "actor" }, actorText(e.actor, e)),
      h("time", { datetime: e.recorded_at }, formatTime(e.recorded_at)),
      h("span", { class: "request", title: t("request_id") }, e.request_id ? t("request_id_value", { id: e.request_id }) : ""),
      h("span", { class: "address", title: t("client_address") }, e.client_address ? t("client_address_value", { address: e.client_address }) : ""),
    ),
  );
}

/**
 * Mark the timeline's event `at` as the current one, and scroll the audit (not the page)
 * so that it is in its middle.
 * @param {HTMLElement} timeline
 * @param {number} at
 */
export function markCurrent(timeline, at) {
  for (const li of timeline.querySelectorAll("li")) {
    const current = Number(li.dataset.seq) === at;
    li.classList.toggle("current", current);
    if (current) li.setAttribute("aria-current", "step");
    else li.removeAttribute("aria-current");
  }
  const li = timeline.querySelector("li.current");
  if (!li) return;
  const box = timeline.getBoundingClientRect();
  const row = li.getBoundingClientRect();
  timeline.scrollTop += row.top - box.top - (timeline.clientHeight - row.height) / 2;
}

/** The table at an event, every hand shown. @param {View} state */
export function stateShown(state) {
  return [
    tableHead(state),
    board(state, { hands: state.hands ?? null, history: true }),
    h("div", { class: "side-row" }, scoresPanel(state), roundsPanel(state)),
  ];
}

/** The history's check (GET /v1/games/{id}/verify).
 * @param {{intact: boolean, events: number, first_bad_seq?: number, reason?: string}} report */
export function verdict(report) {
  return h(
    "p",
    { class: `verdict ${report.intact ? "match" : "mismatch"}`, dataset: { intact: String(report.intact) } },
    report.intact ? t("verify_intact", { events: report.events }) : t("verify_broken", { seq: report.first_bad_seq, reason: report.reason }),
  );
}

/** "A player": their id, to open their page. @param {string} value */
export function playerLookup(value) {
  const input = h("input", { id: "ops-player-id", name: "player", required: true, value, autocomplete: "off", spellcheck: "false" });
  const error = h("div");
  return h(
    "form",
    {
      class: "panel player-lookup",
      id: "ops-player-form",
      onsubmit: (/** @type {SubmitEvent} */ e) => {
        e.preventDefault();
        const id = playerIdOf(input.value);
        if (!id) {
          fill(error, h("p", { role: "alert", class: "problem" }, t("ops_player_bad_id")));
          return;
        }
        location.hash = `#/ops/players/${id}`;
      },
    },
    h("h2", {}, t("ops_player_title")),
    h("label", { for: "ops-player-id" }, t("ops_player_id")),
    " ",
    input,
    " ",
    h("button", { type: "submit" }, t("ops_player_show")),
    error,
  );
}

/**
 * An entry of a player's audit.
 * @typedef {{action: string, actor: Actor, at: string, reason?: string | null, request_id?: string | null}} PlayerAuditEntry
 */

/** A player's audit, oldest first. @param {PlayerAuditEntry[]} entries */
export function playerAuditItems(entries) {
  return [
    entries.length === 0 && h("li", { class: "none" }, t("ops_player_no_audit")),
    entries.map((e) => {
      const kind = t(`actor.${e.actor.kind}`);
      return h(
        "li",
        { dataset: { action: e.action } },
        h("span", { class: "type" }, t(`player_action.${e.action}`)),
        h("span", { class: "actor" }, e.actor.id ? t("actor_with_id", { who: kind, id: e.actor.id }) : kind),
        h("time", { datetime: e.at }, formatTime(e.at)),
        e.reason && h("span", { class: "reason" }, t("ops_reason_value", { reason: e.reason })),
        h("span", { class: "request", title: t("request_id") }, e.request_id ? t("request_id_value", { id: e.request_id }) : ""),
      );
    }),
  ];
}
