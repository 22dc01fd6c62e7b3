// Finding a game (docs/api.md "The lobby"): the public tables, live, each free seat one
// click away.

import { ApiError, player, post } from "./api.js";
import { fill, h, pause } from "./dom.js";
import { t } from "./i18n.js";
import { openStream } from "./sse.js";
import { problemBox } from "./table.js";

// --- the public tables -------------------------------------------------------------------

function lobbyOrder(a, b) {
  return Date.parse(a.created_at) - Date.parse(b.created_at);
}

/** Join `seat` of `gameId` with this browser's player token, then open the table. */
export async function takeSeat(gameId, seat) {
  const who = player();
  if (!who) {
    location.hash = `#/?join=${gameId}`;
    return;
  }
  await post(`/v1/games/${gameId}/seats/${seat}`, {}, { token: who.token });
  location.hash = `#/game/${gameId}`;
}

/**
 * The lobby's open public tables, kept live by GET /v1/lobby/stream (its `lobby` message
 * is the whole list, then one `table` at a time; `open_seats: 0` takes a table away).
 * Were the stream refused for good, the list is read with GET /v1/lobby's long-poll
 * instead. Returns {section, close()}.
 */
export function publicTables() {
  const tables = new Map();
  const list = h("ul", { class: "tables", id: "public-tables" }, h("li", { class: "none" }, t("loading")));
  const error = h("div");
  const controller = new AbortController();
  let stream = null;

  function seatLabel(seat) {
    const me = player();
    if (me && seat.player_id === me.id) return t("you");
    if (seat.bot) return t("bot_badge", { level: t(`bot_level.${seat.bot}`) });
    if (seat.reserved_for) return t("seat_reserved");
    return seat.name || t("seat_open");
  }

  function tableItem(table) {
    const me = player();
    const mine = me && table.seats.some((s) => s.player_id === me.id);
    const free = table.seats.filter((s) => !s.name && !s.bot && !s.reserved_for && !s.player_id);
    const out = h("span", { class: "join-error" });
    return h(
      "li",
      { class: "table-entry", dataset: { game: table.game_id, openSeats: table.open_seats } },
      h(
        "span",
        { class: "what" },
        t("table_entry", {
          variant: t(`variant.${table.variant}`),
          players: table.players,
          scoring: t(`scoring.${table.scoring}`),
        }),
        table.clock && h("span", { class: "badge" }, t("table_clock", { seconds: table.clock.turn_seconds })),
      ),
      h(
        "ol",
        { class: "table-seats" },
        table.seats.map((s) => h("li", { dataset: { seat: s.seat } }, t("seat_line", { n: s.seat + 1, who: seatLabel(s) }))),
      ),
      mine
        ? h("a", { href: `#/game/${table.game_id}`, class: "open-mine" }, t("open_my_table"))
        : h(
            "span",
            { class: "join-buttons" },
            free.map((s) =>
              h(
                "button",
                {
                  type: "button",
                  class: "primary",
                  dataset: { joinSeat: s.seat },
                  onclick: async (e) => {
                    const button = e.currentTarget;
                    button.disabled = true;
                    fill(out);
                    try {
                      await takeSeat(table.game_id, s.seat);
                    } catch (err) {
                      button.disabled = false;
                      fill(out, problemBox(err));
                    }
                  },
                },
                t("join_table_seat", { n: s.seat + 1 }),
              ),
            ),
          ),
      out,
    );
  }

  function show() {
    const open = [...tables.values()].sort(lobbyOrder);
    fill(list, open.length ? open.map(tableItem) : h("li", { class: "none" }, t("no_tables")));
  }

  function replace(games) {
    tables.clear();
    for (const g of games) if (g.open_seats > 0) tables.set(g.game_id, g);
    show();
  }

  /** The fallback: GET /v1/lobby, then held until it changes (ETag, wait). */
  async function poll() {
    let etag = null;
    while (!controller.signal.aborted) {
      try {
        const headers = etag ? { "If-None-Match": etag } : {};
        const response = await fetch(`/v1/lobby?limit=100${etag ? "&wait=25" : ""}`, {
          headers: { Accept: "application/json", ...headers },
          signal: controller.signal,
          cache: "no-store",
          credentials: "omit",
        });
        if (response.status === 200) {
          etag = response.headers.get("ETag");
          replace((await response.json()).games);
          fill(error);
        } else if (response.status !== 304) {
          const problem = await response.json().catch(() => null);
          fill(error, problemBox(new ApiError(response.status, problem)));
          await pause(5000, controller.signal);
        }
      } catch {
        if (controller.signal.aborted) return;
        await pause(5000, controller.signal);
      }
    }
  }

  stream = openStream("/v1/lobby/stream", {
    onMessage: (m) => {
      if (m.event === "lobby") replace(m.data.games);
      else if (m.event === "table") {
        if (m.data.open_seats > 0) tables.set(m.data.game_id, m.data);
        else tables.delete(m.data.game_id);
        show();
      }
    },
    onStatus: (status) => {
      if (status === "failed" || status === "ended") poll();
    },
  });

  const section = h(
    "section",
    { class: "panel public-tables", "aria-labelledby": "tables-title" },
    h("h2", { id: "tables-title" }, t("public_tables")),
    h("p", {}, t("public_tables_text")),
    list,
    error,
  );
  return {
    section,
    close: () => {
      controller.abort();
      stream?.close();
    },
  };
}
