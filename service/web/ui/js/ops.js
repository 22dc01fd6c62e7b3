// The operators' console: the operator token entered once (kept in this tab's
// sessionStorage, never in a URL), games by status with paging, and one game's audit as
// a timeline, with a slider that rebuilds the table at any event (`state?at=N`, every
// hand shown) and the hash-chain check (`/verify`); and a player's page: their audit
// (suspensions, renames, revoked tokens), and suspending them (with a reason) or
// lifting it.

import { get, post } from "./api.js";
import { board, roundsPanel, scoresPanel, tableHead } from "./board.js";
import { fill, h } from "./dom.js";
import { formatTime, t } from "./i18n.js";
import { operatorToken, setOperatorToken } from "./player.js";
import { problemBox } from "./problem.js";

const STATUSES = ["", "waiting", "passing", "playing", "finished"];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function tokenForm(main, then) {
  const input = h("input", { id: "operator-token", type: "password", required: true, autocomplete: "off" });
  const error = h("div");
  fill(
    main,
    h("h1", {}, t("ops_title")),
    h(
      "form",
      {
        class: "panel",
        onsubmit: async (e) => {
          e.preventDefault();
          const token = input.value.trim();
          try {
            await get("/v1/games?limit=1", { token });
            setOperatorToken(token);
            then();
          } catch (err) {
            fill(error, problemBox(err));
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

function signOut() {
  return h(
    "button",
    {
      type: "button",
      class: "quiet",
      id: "ops-sign-out",
      onclick: () => {
        setOperatorToken(null);
        if (location.hash === "#/ops") window.dispatchEvent(new HashChangeEvent("hashchange"));
        else location.hash = "#/ops";
      },
    },
    t("ops_sign_out"),
  );
}

export function opsListPage(main, params) {
  const token = operatorToken();
  if (!token) {
    tokenForm(main, () => opsListPage(main, params));
    return () => {};
  }
  const status = STATUSES.includes(params.get("status")) ? params.get("status") : "";
  const cursors = [null]; // the cursor of each page seen: "previous" goes back one
  const body = h("div");
  const filter = h(
    "select",
    {
      id: "ops-status",
      onchange: (e) => {
        location.hash = e.target.value ? `#/ops?status=${e.target.value}` : "#/ops";
      },
    },
    STATUSES.map((s) => h("option", { value: s, selected: s === status }, s ? t(`status.${s}`) : t("ops_all"))),
  );
  fill(
    main,
    h("h1", {}, t("ops_title")),
    h("div", { class: "ops-bar" }, h("label", { for: "ops-status" }, t("ops_status")), " ", filter, " ", signOut()),
    body,
    playerLookup(""),
  );

  async function load() {
    const cursor = cursors[cursors.length - 1];
    const query = new URLSearchParams({ limit: "20" });
    if (status) query.set("status", status);
    if (cursor) query.set("cursor", cursor);
    try {
      const page = await get(`/v1/games?${query}`, { token });
      fill(
        body,
        h(
          "table",
          { class: "games-table" },
          h("caption", { id: "ops-list-order" }, t("ops_list_order")),
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              ["ops_col_game", "ops_col_created", "ops_col_status", "ops_col_variant", "ops_col_players", "ops_col_events", "ops_col_updated"].map((k) =>
                h("th", { scope: "col", "aria-sort": k === "ops_col_created" ? "descending" : null }, t(k)),
              ),
            ),
          ),
          h(
            "tbody",
            {},
            page.games.length === 0 && h("tr", {}, h("td", { colspan: 7 }, t("no_games"))),
            page.games.map((g) =>
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
          h(
            "button",
            {
              type: "button",
              id: "ops-previous",
              disabled: cursors.length < 2,
              onclick: () => {
                cursors.pop();
                load();
              },
            },
            t("previous"),
          ),
          h(
            "button",
            {
              type: "button",
              id: "ops-next",
              disabled: !page.next_cursor,
              onclick: () => {
                cursors.push(page.next_cursor);
                load();
              },
            },
            t("next"),
          ),
        ),
      );
    } catch (err) {
      if (err.status === 401 || err.status === 403) setOperatorToken(null);
      fill(body, problemBox(err));
    }
  }
  load();
  return () => {};
}

/** A seat as the console says it: the page's number (from 1) and the API's (from 0),
 * the operators' truth, side by side. */
function seatText(seat) {
  return t("ops_seat", { n: seat + 1, api: seat });
}

/** Who did what an event records (its `actor`). A bot's join (SeatJoined with `bot`)
 * says which bot took which seat, and who seated it (the game's creator). */
function actorText(actor, event = null) {
  const kind = t(`actor.${actor.kind}`);
  let who = actor.seat === null || actor.seat === undefined ? kind : t("actor_with_seat", { kind, seat: seatText(actor.seat) });
  // Who exactly (the audit's `actor.id`): the operator token's name, the player's id.
  if (actor.id) who = t("actor_with_id", { who, id: actor.id });
  if (event?.type === "SeatJoined" && event.data?.bot) {
    return t("actor_bot_join", { level: t(`bot_level.${event.data.bot}`), seat: seatText(event.data.seat), who });
  }
  return who;
}

export function opsGamePage(main, gameId) {
  const token = operatorToken();
  if (!token) {
    tokenForm(main, () => opsGamePage(main, gameId));
    return () => {};
  }
  let closed = false;
  let asked = 0; // the slider's latest request: older answers are dropped
  const events = [];
  const verifyOut = h("div", { id: "verify-result", "aria-live": "polite" });
  const tableOut = h("div", { class: "ops-table", id: "ops-state" });
  const timeline = h("ol", { class: "timeline", id: "timeline" });
  const slider = h("input", { type: "range", id: "ops-slider", min: 1, max: 1, value: 1, step: 1, "aria-describedby": "ops-at" });
  const atText = h("output", { id: "ops-at", for: "ops-slider" });

  async function verify() {
    fill(verifyOut, t("loading"));
    try {
      const report = await get(`/v1/games/${gameId}/verify`, { token });
      fill(
        verifyOut,
        h(
          "p",
          { class: `verdict ${report.intact ? "match" : "mismatch"}`, dataset: { intact: String(report.intact) } },
          report.intact
            ? t("verify_intact", { events: report.events })
            : t("verify_broken", { seq: report.first_bad_seq, reason: report.reason }),
        ),
      );
    } catch (err) {
      fill(verifyOut, problemBox(err));
    }
  }

  /** Scroll the audit (not the page) so that the current event is in its middle. */
  function showCurrent() {
    const li = timeline.querySelector("li.current");
    if (!li) return;
    const box = timeline.getBoundingClientRect();
    const row = li.getBoundingClientRect();
    timeline.scrollTop += row.top - box.top - (timeline.clientHeight - row.height) / 2;
  }

  async function showAt(at) {
    const mine = ++asked;
    const event = events[at - 1];
    atText.textContent = event
      ? t("ops_at_event", { seq: at, type: event.type, time: formatTime(event.recorded_at) })
      : t("ops_at", { seq: at });
    for (const li of timeline.querySelectorAll("li")) {
      const current = Number(li.dataset.seq) === at;
      li.classList.toggle("current", current);
      if (current) li.setAttribute("aria-current", "step");
      else li.removeAttribute("aria-current");
    }
    showCurrent();
    try {
      const state = await get(`/v1/games/${gameId}/state?at=${at}`, { token });
      if (mine !== asked || closed) return;
      tableOut.dataset.at = String(at);
      fill(
        tableOut,
        tableHead(state),
        board(state, { hands: state.hands, history: true }),
        h("div", { class: "side-row" }, scoresPanel(state), roundsPanel(state)),
      );
    } catch (err) {
      if (mine === asked) fill(tableOut, problemBox(err));
    }
  }

  async function start() {
    try {
      let after = 0;
      for (;;) {
        const page = await get(`/v1/games/${gameId}/audit?after=${after}&limit=1000`, { token });
        events.push(...page.events);
        if (page.next_after === null) break;
        after = page.next_after;
      }
    } catch (err) {
      fill(main, h("h1", {}, t("game_title", { id: gameId.slice(0, 8) })), problemBox(err));
      return;
    }
    if (closed) return;
    fill(
      timeline,
      events.map((e) =>
        h(
          "li",
          { dataset: { seq: e.seq } },
          h(
            "button",
            {
              type: "button",
              class: "event",
              onclick: () => {
                slider.value = String(e.seq);
                showAt(e.seq);
              },
            },
            h("span", { class: "seq" }, `#${e.seq}`),
            h("span", { class: "type" }, e.type),
          ),
          h("span", { class: "actor" }, actorText(e.actor, e)),
          h("time", { datetime: e.recorded_at }, formatTime(e.recorded_at)),
          h("span", { class: "request", title: t("request_id") }, e.request_id ? t("request_id_value", { id: e.request_id }) : ""),
          h("span", { class: "address", title: t("client_address") }, e.client_address ? t("client_address_value", { address: e.client_address }) : ""),
        ),
      ),
    );
    slider.max = String(events.length);
    slider.value = String(events.length);
    showAt(events.length);
  }

  slider.addEventListener("input", () => showAt(Number(slider.value)));
  fill(
    main,
    h("h1", {}, t("ops_game_title", { id: gameId.slice(0, 8) })),
    h(
      "div",
      { class: "ops-bar" },
      h("a", { href: "#/ops" }, t("ops_back")),
      " ",
      h("a", { href: `#/game/${gameId}` }, t("ops_public_table")),
      " ",
      h("button", { type: "button", id: "verify-button", onclick: verify }, t("verify_button")),
      " ",
      signOut(),
    ),
    verifyOut,
    h("div", { class: "slider" }, h("label", { for: "ops-slider" }, t("ops_slider")), slider, atText),
    h(
      "div",
      { class: "ops-layout" },
      tableOut,
      h("section", { class: "panel audit", "aria-labelledby": "audit-title" }, h("h2", { id: "audit-title" }, t("audit_title")), timeline),
    ),
  );
  start();
  return () => {
    closed = true;
  };
}

/** "A player": their id, to open their page. */
function playerLookup(value) {
  const input = h("input", { id: "ops-player-id", name: "player", required: true, value, autocomplete: "off", spellcheck: "false" });
  const error = h("div");
  return h(
    "form",
    {
      class: "panel player-lookup",
      id: "ops-player-form",
      onsubmit: (e) => {
        e.preventDefault();
        const id = input.value.trim().toLowerCase();
        if (!UUID.test(id)) {
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

function auditActor(actor) {
  const kind = t(`actor.${actor.kind}`);
  return actor.id ? t("actor_with_id", { who: kind, id: actor.id }) : kind;
}

/** A player's page: their audit, oldest first, and their suspension. */
export function opsPlayerPage(main, playerId) {
  const token = operatorToken();
  if (!token) {
    tokenForm(main, () => opsPlayerPage(main, playerId));
    return () => {};
  }
  let closed = false;
  const audit = h("ol", { class: "timeline player-audit", id: "player-audit" });
  const stateOut = h("p", { id: "ops-player-state", "aria-live": "polite" });
  const actionOut = h("div", { "aria-live": "polite" });
  const reason = h("input", { id: "suspend-reason", name: "reason", required: true, maxlength: 500, autocomplete: "off" });
  const suspendButton = h("button", { type: "submit", class: "primary", id: "suspend-button" }, t("ops_suspend"));
  const unsuspendButton = h("button", { type: "button", id: "unsuspend-button" }, t("ops_unsuspend"));
  let name = null;

  function showState(suspended) {
    stateOut.dataset.suspended = String(suspended);
    const status = t(suspended ? "ops_player_suspended" : "ops_player_not_suspended");
    stateOut.textContent = name ? t("ops_player_named", { name, status }) : status;
    suspendButton.disabled = suspended;
    unsuspendButton.disabled = !suspended;
  }

  async function load() {
    const entries = [];
    try {
      let cursor = null;
      do {
        const query = new URLSearchParams({ limit: "200" });
        if (cursor) query.set("cursor", cursor);
        const page = await get(`/v1/players/${playerId}/audit?${query}`, { token });
        entries.push(...page.entries);
        cursor = page.next_cursor;
      } while (cursor);
    } catch (err) {
      if (!closed) fill(audit, h("li", {}, problemBox(err)));
      return;
    }
    if (closed) return;
    const last = [...entries].reverse().find((e) => e.action === "suspended" || e.action === "unsuspended");
    showState(last?.action === "suspended");
    fill(
      audit,
      entries.length === 0 && h("li", { class: "none" }, t("ops_player_no_audit")),
      entries.map((e) =>
        h(
          "li",
          { dataset: { action: e.action } },
          h("span", { class: "type" }, t(`player_action.${e.action}`)),
          h("span", { class: "actor" }, auditActor(e.actor)),
          h("time", { datetime: e.at }, formatTime(e.at)),
          e.reason && h("span", { class: "reason" }, t("ops_reason_value", { reason: e.reason })),
          h("span", { class: "request", title: t("request_id") }, e.request_id ? t("request_id_value", { id: e.request_id }) : ""),
        ),
      ),
    );
  }

  async function act(button, path, body) {
    fill(actionOut);
    button.disabled = true;
    try {
      const done = await post(`/v1/players/${playerId}/${path}`, body, { token });
      name = done.name;
      showState(done.suspended);
      if (done.suspended) reason.value = "";
    } catch (err) {
      button.disabled = false;
      fill(actionOut, problemBox(err));
    }
    await load();
  }

  unsuspendButton.addEventListener("click", () => act(unsuspendButton, "unsuspend", {}));
  fill(
    main,
    h("h1", {}, t("ops_player_page_title", { id: playerId })),
    h("div", { class: "ops-bar" }, h("a", { href: "#/ops" }, t("ops_back")), " ", signOut()),
    UUID.test(playerId) ? null : h("p", { role: "alert", class: "problem" }, t("ops_player_bad_id")),
    h(
      "section",
      { class: "panel player-panel", "aria-labelledby": "player-state-title" },
      h("h2", { id: "player-state-title" }, t("ops_player_state")),
      stateOut,
      h(
        "form",
        {
          id: "suspend-form",
          onsubmit: (e) => {
            e.preventDefault();
            act(suspendButton, "suspend", { reason: reason.value.trim() });
          },
        },
        h("label", { for: "suspend-reason" }, t("ops_suspend_reason")),
        " ",
        reason,
        " ",
        suspendButton,
        " ",
        unsuspendButton,
      ),
      actionOut,
    ),
    h("section", { class: "panel audit", "aria-labelledby": "player-audit-title" }, h("h2", { id: "player-audit-title" }, t("audit_title")), audit),
    playerLookup(playerId),
  );
  if (UUID.test(playerId)) load();
  return () => {
    closed = true;
  };
}
