// The operators' console: the operator token entered once (kept in this tab's
// sessionStorage, never in a URL), games by status with paging, and one game's audit as
// a timeline, with a slider that rebuilds the table at any event (`state?at=N`, every
// hand shown) and the hash-chain check (`/verify`); and a player's page: their audit
// (suspensions, bans lifted, renames, revoked tokens), suspending them (with a reason) or
// lifting it, and their running ban with why, and lifting it. The moderation queue is
// reports.js's.
//
// The pages wire the console's state (state/ops.js: pure) and its view (view/ops.js) to
// the API; a slider moved on aborts the state it asked for before.

import { ApiError, get, post } from "./api.js";
import { fill, h } from "./dom.js";
import { formatTime, t } from "./i18n.js";
import { operatorToken, setOperatorToken } from "./player.js";
import { banLine, problemBox, refusalOf } from "./problem.js";
import { providers } from "./signin.js";
import { FIRST_PAGE, STATUSES, listStatus, paged, playerIdOf, suspendedBy } from "./state/ops.js";
import { gamesTable, markCurrent, playerAuditItems, playerLookup, signOutButton, stateShown, timelineItems, tokenForm, verdict } from "./view/ops.js";

/** @typedef {import("./types.js").View} View */
/** @typedef {import("./view/ops.js").AuditEvent} AuditEvent */
/** @typedef {import("./view/ops.js").GameSummary} GameSummary */
/** @typedef {import("./view/ops.js").PlayerAuditEntry} PlayerAuditEntry */
/** @typedef {import("./state/ops.js").Pages} Pages */
/** @typedef {import("./types.js").Profile} Profile */

/**
 * The operator token, or its form in `main` first (then the page is shown again).
 * @param {HTMLElement} main
 * @param {() => void} again
 */
export function tokenOr(main, again) {
  const token = operatorToken();
  if (!token) {
    tokenForm(main, async (entered) => {
      await get("/v1/games?limit=1", { token: entered });
      setOperatorToken(entered);
      again();
    });
  }
  return token;
}

/** The console's "forget the token" button. */
export function signOut() {
  return signOutButton(() => {
    setOperatorToken(null);
    if (location.hash === "#/ops") window.dispatchEvent(new HashChangeEvent("hashchange"));
    else location.hash = "#/ops";
  });
}

/**
 * The games, by status, newest created first, a page at a time.
 * @param {HTMLElement} main
 * @param {URLSearchParams} params
 * @returns {() => void}
 */
export function opsListPage(main, params) {
  const leaving = new AbortController();
  const token = tokenOr(main, () => opsListPage(main, params));
  if (!token) return () => {};
  const status = listStatus(params);
  const body = h("div");
  const filter = h(
    "select",
    {
      id: "ops-status",
      onchange: (/** @type {Event} */ e) => {
        const chosen = /** @type {HTMLSelectElement} */ (e.target).value;
        location.hash = chosen ? `#/ops?status=${chosen}` : "#/ops";
      },
    },
    STATUSES.map((s) => h("option", { value: s, selected: s === status }, s ? t(`status.${s}`) : t("ops_all"))),
  );
  // Without an OpenID provider players cannot sign in with an account, and nothing on
  // their pages says why: the console tells the operator what turns it on.
  const signInOff = h("p", { class: "notice", id: "ops-sign-in-off", hidden: true }, t("ops_sign_in_off"));
  providers().then((found) => {
    signInOff.hidden = found.length > 0;
  });
  fill(
    main,
    h("h1", {}, t("ops_title")),
    signInOff,
    h("div", { class: "ops-bar" }, h("label", { for: "ops-status" }, t("ops_status")), " ", filter, " ", h("a", { href: "#/ops/reports", id: "ops-reports" }, t("ops_reports_link")), " ", signOut()),
    body,
    playerLookup(""),
  );

  /** @param {string | null} cursor */
  function pathOf(cursor) {
    const query = new URLSearchParams({ limit: "20" });
    if (status) query.set("status", status);
    if (cursor) query.set("cursor", cursor);
    return `/v1/games?${query}`;
  }
  pagedList(body, pathOf, token, leaving.signal, (/** @type {{games: GameSummary[], next_cursor: string | null}} */ page, moves) => gamesTable(page.games, moves));
  return () => leaving.abort();
}

/**
 * A list of the console shown a page at a time in `body`: each page asked at
 * `pathOf(its cursor)` and drawn by `draw` with its moves to the previous and next pages
 * (null: none); a refusal shown in its place (a 401 or 403 forgets the token).
 * @template {{next_cursor: string | null}} P
 * @param {HTMLElement} body
 * @param {(cursor: string | null) => string} pathOf
 * @param {string} token
 * @param {AbortSignal} signal
 * @param {(page: P, moves: {previous: (() => void) | null, next: (() => void) | null}) => import("./dom.js").Child} draw
 * @returns {() => Promise<void>} the page shown, asked again
 */
export function pagedList(body, pathOf, token, signal, draw) {
  /** @type {Pages} */
  let pages = FIRST_PAGE;
  /** @param {Pages} shown */
  async function load(shown) {
    pages = shown;
    try {
      /** @type {P} */
      const page = await get(pathOf(pages[pages.length - 1]), { token, signal });
      const next = page.next_cursor;
      fill(
        body,
        draw(page, {
          previous: pages.length > 1 ? () => load(paged(pages, "previous")) : null,
          next: next ? () => load(paged(pages, { next })) : null,
        }),
      );
    } catch (err) {
      if (signal.aborted) return;
      if (err instanceof ApiError && (err.status === 401 || err.status === 403)) setOperatorToken(null);
      fill(body, problemBox(refusalOf(err)));
    }
  }
  load(pages);
  return () => load(pages);
}

/**
 * A game's audit as a timeline, its state at any event (the slider), and its check.
 * @param {HTMLElement} main
 * @param {string} gameId
 * @returns {() => void}
 */
export function opsGamePage(main, gameId) {
  const leaving = new AbortController();
  const token = tokenOr(main, () => opsGamePage(main, gameId));
  if (!token) return () => {};
  /** @type {AbortController | null} the state the slider asked for last */
  let asking = null;
  /** @type {AuditEvent[]} */
  const events = [];
  const verifyOut = h("div", { id: "verify-result", "aria-live": "polite" });
  const tableOut = h("div", { class: "ops-table", id: "ops-state" });
  const timeline = h("ol", { class: "timeline", id: "timeline" });
  const slider = h("input", { type: "range", id: "ops-slider", min: 1, max: 1, value: 1, step: 1, "aria-describedby": "ops-at" });
  const atText = h("output", { id: "ops-at", for: "ops-slider" });

  async function verify() {
    fill(verifyOut, t("loading"));
    try {
      fill(verifyOut, verdict(await get(`/v1/games/${gameId}/verify`, { token, signal: leaving.signal })));
    } catch (err) {
      if (!leaving.signal.aborted) fill(verifyOut, problemBox(refusalOf(err)));
    }
  }

  /** The table at event `at`; an answer the slider has moved on from is not waited for.
   * @param {number} at */
  async function showAt(at) {
    asking?.abort();
    const { signal } = (asking = new AbortController());
    const event = events[at - 1];
    atText.textContent = event ? t("ops_at_event", { seq: at, type: event.type, time: formatTime(event.recorded_at) }) : t("ops_at", { seq: at });
    markCurrent(timeline, at);
    try {
      /** @type {View} */
      const state = await get(`/v1/games/${gameId}/state?at=${at}`, { token, signal });
      tableOut.dataset.at = String(at);
      fill(tableOut, stateShown(state));
    } catch (err) {
      if (!signal.aborted) fill(tableOut, problemBox(refusalOf(err)));
    }
  }

  async function start() {
    try {
      let after = 0;
      for (;;) {
        /** @type {{events: AuditEvent[], next_after: number | null}} */
        const page = await get(`/v1/games/${gameId}/audit?after=${after}&limit=1000`, { token, signal: leaving.signal });
        events.push(...page.events);
        if (page.next_after === null) break;
        after = page.next_after;
      }
    } catch (err) {
      if (!leaving.signal.aborted) fill(main, h("h1", {}, t("game_title", { id: gameId.slice(0, 8) })), problemBox(refusalOf(err)));
      return;
    }
    fill(
      timeline,
      timelineItems(events, (seq) => {
        slider.value = String(seq);
        showAt(seq);
      }),
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
    leaving.abort();
    asking?.abort();
  };
}

/**
 * A player's page: their audit, oldest first, their suspension, and their ban.
 * @param {HTMLElement} main
 * @param {string} playerId
 * @returns {() => void}
 */
export function opsPlayerPage(main, playerId) {
  const leaving = new AbortController();
  const token = tokenOr(main, () => opsPlayerPage(main, playerId));
  if (!token) return () => {};
  const audit = h("ol", { class: "timeline player-audit", id: "player-audit" });
  const stateOut = h("p", { id: "ops-player-state", "aria-live": "polite" });
  const actionOut = h("div", { "aria-live": "polite" });
  const reason = h("input", { id: "suspend-reason", name: "reason", required: true, maxlength: 500, autocomplete: "off" });
  const suspendButton = h("button", { type: "submit", class: "primary", id: "suspend-button" }, t("ops_suspend"));
  const unsuspendButton = h("button", { type: "button", id: "unsuspend-button" }, t("ops_unsuspend"));
  const banOut = h("div", { id: "ops-player-ban", "aria-live": "polite" });
  const unbanButton = h("button", { type: "button", id: "unban-button", disabled: true }, t("ops_unban"));
  /** @type {string | null} */
  let name = null;

  /** @param {boolean} suspended */
  function showState(suspended) {
    stateOut.dataset.suspended = String(suspended);
    const status = t(suspended ? "ops_player_suspended" : "ops_player_not_suspended");
    stateOut.textContent = name ? t("ops_player_named", { name, status }) : status;
    suspendButton.disabled = suspended;
    unsuspendButton.disabled = !suspended;
  }

  async function load() {
    /** @type {PlayerAuditEntry[]} */
    const entries = [];
    try {
      /** @type {string | null} */
      let cursor = null;
      do {
        const query = new URLSearchParams({ limit: "200" });
        if (cursor) query.set("cursor", cursor);
        /** @type {{entries: PlayerAuditEntry[], next_cursor: string | null}} */
        const page = await get(`/v1/players/${playerId}/audit?${query}`, { token, signal: leaving.signal });
        entries.push(...page.entries);
        cursor = page.next_cursor;
      } while (cursor);
    } catch (err) {
      if (!leaving.signal.aborted) fill(audit, h("li", {}, problemBox(refusalOf(err))));
      return;
    }
    showState(suspendedBy(entries));
    fill(audit, playerAuditItems(entries));
    await loadBan();
  }

  async function loadBan() {
    try {
      /** @type {Profile} */
      const profile = await get(`/v1/players/${playerId}`, { signal: leaving.signal });
      fill(banOut, profile.ban ? banLine(profile.ban) : h("p", { class: "none" }, t("not_banned")));
      unbanButton.disabled = !profile.ban;
    } catch (err) {
      if (!leaving.signal.aborted) fill(banOut, problemBox(refusalOf(err)));
    }
  }

  /** @param {HTMLButtonElement} button @param {string} path @param {unknown} body */
  async function act(button, path, body) {
    fill(actionOut);
    button.disabled = true;
    try {
      /** @type {{name: string, suspended: boolean}} */
      const done = await post(`/v1/players/${playerId}/${path}`, body, { token });
      name = done.name;
      showState(done.suspended);
      if (done.suspended) reason.value = "";
    } catch (err) {
      button.disabled = false;
      fill(actionOut, problemBox(refusalOf(err)));
    }
    await load();
  }

  const known = playerIdOf(playerId) !== null;
  unsuspendButton.addEventListener("click", () => act(unsuspendButton, "unsuspend", {}));
  unbanButton.addEventListener("click", async () => {
    fill(actionOut);
    unbanButton.disabled = true;
    try {
      await post(`/v1/players/${playerId}/unban`, {}, { token });
    } catch (err) {
      fill(actionOut, problemBox(refusalOf(err)));
    }
    await load();
  });
  fill(
    main,
    h("h1", {}, t("ops_player_page_title", { id: playerId })),
    h("div", { class: "ops-bar" }, h("a", { href: "#/ops" }, t("ops_back")), " ", signOut()),
    known ? null : h("p", { role: "alert", class: "problem" }, t("ops_player_bad_id")),
    h(
      "section",
      { class: "panel player-panel", "aria-labelledby": "player-state-title" },
      h("h2", { id: "player-state-title" }, t("ops_player_state")),
      stateOut,
      h(
        "form",
        {
          id: "suspend-form",
          onsubmit: (/** @type {SubmitEvent} */ e) => {
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
    h("section", { class: "panel player-ban", "aria-labelledby": "player-ban-title" }, h("h2", { id: "player-ban-title" }, t("ops_ban_title")), banOut, unbanButton),
    h("section", { class: "panel audit", "aria-labelledby": "player-audit-title" }, h("h2", { id: "player-audit-title" }, t("audit_title")), audit),
    playerLookup(playerId),
  );
  if (known) load();
  return () => leaving.abort();
}
