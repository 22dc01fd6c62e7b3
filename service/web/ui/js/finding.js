// Finding a game (docs/api.md "The lobby", "Invitations", "Rematch", "Quick play"): the
// public tables, live, each free seat one click away; "Play now" (a seek the worker
// pairs, waited for on the player stream and by reading the seek); answering an
// invitation; and the players of my past games, to invite them again.

import { ApiError, del, follow, get, post } from "./api.js";
import { fill, h } from "./dom.js";
import { t, tNodes } from "./i18n.js";
import { player } from "./player.js";
import { problemBox } from "./problem.js";
import { ladderOf, playerLink, ratingBadge } from "./ratings.js";
import { openStream } from "./sse.js";
import { seekRequest } from "./state/options.js";
import { checkedOf, modeOf, optionsForm, valueOf } from "./view/options.js";

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

/** Decline the seat kept for this browser's player. */
export function declineSeat(gameId, seat) {
  return post(`/v1/games/${gameId}/seats/${seat}/decline`, undefined, { token: player().token });
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

  /** A seat of a table: who sits there; a player the lobby names with a link to their
   * profile, and at a rated table their rating in the game's ladder. */
  function seatItem(table, seat) {
    const label = seatLabel(seat);
    const who = seat.player_id && seat.name ? playerLink(seat.player_id, label) : label;
    return h(
      "li",
      { dataset: { seat: seat.seat } },
      tNodes("seat_line", { n: seat.seat + 1, who }),
      table.rated && seat.player_id && seat.name && [" ", ratingBadge(seat.player_id, ladderOf(table.variant, table.players))],
    );
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
        table.rated && h("span", { class: "badge rated" }, t("rated")),
      ),
      h(
        "ol",
        { class: "table-seats" },
        table.seats.map((s) => seatItem(table, s)),
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
  function poll() {
    follow("/v1/lobby?limit=100", {
      wait: 25,
      signal: controller.signal,
      onChange: (lobby) => {
        replace(lobby.games);
        fill(error);
      },
      onError: (err) => {
        if (err instanceof ApiError && err.status) fill(error, problemBox(err)); // a refusal, not a lost connection
      },
    });
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

// --- quick play ----------------------------------------------------------------------------

const SEEK = "yokai.seek";
const POLL_MS = 3000;

function keptSeek() {
  try {
    const found = JSON.parse(sessionStorage.getItem(SEEK) || "null");
    const who = player();
    return found && who && found.player === who.id ? found : null;
  } catch {
    return null;
  }
}

function keepSeek(seek) {
  if (seek) sessionStorage.setItem(SEEK, JSON.stringify({ id: seek.id, player: player().id, created_at: seek.created_at }));
  else sessionStorage.removeItem(SEEK);
}

/**
 * "Play now": a mode (players, scoring, variant) and, if wanted, bots after N seconds;
 * a seek is made (POST /v1/seeks) and waited for: the player stream's `matched`
 * (`matched()` below, called by the lobby, which holds that stream) or, every few
 * seconds, the seek itself. Matched, the table opens: the player's token acts for the
 * seat. The seek is kept for this tab, so coming back to the lobby goes on waiting.
 * Returns {section, matched(data), close()}.
 */
export function playNow() {
  const who = player();
  const body = h("div", { class: "play-now-body" });
  const error = h("div");
  let waitingFor = null; // the seek's id
  let watching = null; // an AbortController: reading the seek
  let ticker = null;

  function opened(gameId) {
    keepSeek(null);
    waitingFor = null;
    watching?.abort();
    location.hash = `#/game/${gameId}`;
  }

  /** The seek as the server has it now: matched opens the table, ended forgets it. */
  function judge(seek) {
    if (seek.id !== waitingFor) return;
    if (seek.status === "matched" && seek.game_id) opened(seek.game_id);
    else if (seek.status !== "open") {
      keepSeek(null);
      waitingFor = null;
      form();
      fill(error, h("p", { class: "notice", role: "status", id: "seek-ended" }, t(`seek_ended.${seek.status}`)));
    }
  }

  /** Read the seek every few seconds, should the player stream be away, until it is
   * matched or ended (or the page is left). */
  function watch(id) {
    watching?.abort();
    watching = new AbortController();
    const { signal } = watching;
    follow(`/v1/seeks/${id}`, {
      token: who.token,
      every: POLL_MS,
      signal,
      onChange: judge,
      onError: (err) => {
        if (!(err instanceof ApiError) || err.status !== 404 || waitingFor !== id) return;
        keepSeek(null);
        waitingFor = null;
        form();
      },
    });
  }

  function waiting(seek) {
    waitingFor = seek.id;
    const since = Date.parse(seek.created_at) || Date.now();
    const elapsed = h("span", { class: "elapsed", role: "timer" }, "0:00");
    const tick = () => {
      const s = Math.max(0, Math.floor((Date.now() - since) / 1000));
      elapsed.textContent = t("clock_ms", { m: Math.floor(s / 60), s: String(s % 60).padStart(2, "0") });
    };
    tick();
    clearInterval(ticker);
    ticker = setInterval(tick, 1000);
    const cancel = h(
      "button",
      {
        type: "button",
        id: "cancel-seek",
        onclick: async () => {
          cancel.disabled = true;
          fill(error);
          try {
            await del(`/v1/seeks/${seek.id}`, { token: who.token });
            keepSeek(null);
            waitingFor = null;
            form();
            fill(error, h("p", { class: "notice", role: "status", id: "seek-ended" }, t("seek_ended.cancelled")));
          } catch (err) {
            cancel.disabled = false;
            if (err.code === "seek_matched") {
              judge(await get(`/v1/seeks/${seek.id}`, { token: who.token }));
            } else fill(error, problemBox(err));
          }
        },
      },
      t("cancel_seek"),
    );
    fill(
      body,
      h(
        "div",
        { class: "seeking", id: "seeking", role: "status", dataset: { seek: seek.id } },
        h("span", { class: "spinner", "aria-hidden": "true" }),
        " ",
        t("seeking_text", {
          players: seek.players,
          variant: t(`variant.${seek.variant}`),
          scoring: t(`scoring.${seek.scoring}`),
        }),
        " ",
        elapsed,
        seek.rated && h("span", { class: "badge rated" }, t("rated")),
        seek.bots_after_seconds && h("p", { class: "bots-after" }, t("seek_bots_after", { seconds: seek.bots_after_seconds })),
      ),
      cancel,
    );
    watch(seek.id);
  }

  function form() {
    watching?.abort();
    clearInterval(ticker);
    const seconds = h("input", {
      type: "number",
      name: "bots_after_seconds",
      id: "seek-bots-seconds",
      min: 5,
      max: 600,
      value: "30",
      disabled: true, // until bots are wanted
    });
    const f = optionsForm({
      id: "play-now-form",
      className: "play-now",
      prefix: "seek",
      between: [
        h(
          "label",
          { class: "check" },
          h("input", {
            type: "checkbox",
            name: "bots",
            id: "seek-bots",
            onchange: (e) => {
              seconds.disabled = !e.currentTarget.checked;
            },
          }),
          " ",
          t("seek_bots"),
        ),
        h("label", { class: "field" }, h("span", {}, t("seek_bots_seconds")), seconds),
      ],
      end: [h("p", {}, h("button", { type: "submit", class: "primary", id: "play-now" }, t("play_now")))],
    });
    f.addEventListener("submit", async (e) => {
      e.preventDefault();
      fill(error);
      const ask = seekRequest(modeOf(f), checkedOf(f, "bots") ? Number(valueOf(f, "bots_after_seconds")) : null);
      const button = f.querySelector("#play-now");
      button.disabled = true;
      try {
        const seek = await post("/v1/seeks", ask, { token: who.token });
        keepSeek(seek);
        if (seek.status === "matched" && seek.game_id) opened(seek.game_id);
        else waiting(seek);
      } catch (err) {
        button.disabled = false;
        fill(error, problemBox(err));
      }
    });
    fill(body, f);
  }

  const kept = keptSeek();
  if (kept) {
    // The seek of this tab: what it asked for, and whether it was matched while the
    // page was away.
    waitingFor = kept.id;
    fill(body, h("p", { class: "loading" }, t("loading")));
    get(`/v1/seeks/${kept.id}`, { token: who.token })
      .then((seek) => {
        if (seek.status === "open") waiting(seek);
        else judge(seek);
      })
      .catch(() => {
        keepSeek(null);
        waitingFor = null;
        form();
      });
  } else form();

  return {
    section: h(
      "section",
      { class: "panel quick", "aria-labelledby": "quick-title" },
      h("h2", { id: "quick-title" }, t("quick_play")),
      h("p", {}, t("quick_play_text")),
      body,
      error,
    ),
    matched: (data) => {
      if (data.seek_id === waitingFor) opened(data.game_id);
    },
    close: () => {
      watching?.abort();
      clearInterval(ticker);
    },
  };
}

// --- the players of my past games ----------------------------------------------------------

let known = null; // {player, found}: asked once a page load, per player

/**
 * Players met in my recent games, to invite again: {id, name} from what the API shows a
 * seat (a game's events: the players kept seats were for, and the name each joined
 * with). Asked once a page load.
 */
export function pastPlayers() {
  const who = player();
  if (!who) return Promise.resolve([]);
  if (known?.player === who.id) return known.found;
  const found = (async () => {
    const met = new Map();
    const page = await get("/v1/me/games?status=all&limit=20", { token: who.token });
    await Promise.all(
      page.games.map(async (entry) => {
        try {
          const feed = await get(`/v1/games/${entry.game_id}/events?limit=100`, { token: who.token });
          for (const e of feed.events) {
            if (e.type === "SeatJoined" && e.data.player && e.data.player !== who.id) met.set(e.data.player, e.data.name);
          }
        } catch {
          // an invitation not yet accepted: no seat, no feed
        }
      }),
    );
    return [...met].map(([id, name]) => ({ id, name })).sort((a, b) => a.name.localeCompare(b.name));
  })().catch(() => []);
  known = { player: who.id, found };
  return found;
}

/** Forget the players found (another player signed in on this browser). */
export function forgetPastPlayers() {
  known = null;
}
