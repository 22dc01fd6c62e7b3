// Finding a game, drawn (from state/finding.js): the public tables, each seat and a Join
// button for each free one; and "Play now": the options form, or the search waited for
// with the time spent and Cancel. What the person does goes to finding.js's actions;
// their refusals are shown here.

import { fill, h } from "../dom.js";
import { t, tNodes } from "../i18n.js";
import { problemBox, refusalOf } from "../problem.js";
import { playerLink, ratingBadge } from "../ratings.js";
import { freeSeats, isMine, listed, seatShown, waited } from "../state/finding.js";
import { ladderOf } from "../state/ladders.js";
import { seekRequest } from "../state/options.js";
import { checkedOf, modeOf, optionsForm, setMode, valueOf } from "./options.js";

/** @typedef {import("../types.js").LobbyGame} LobbyGame */
/** @typedef {import("../types.js").LobbySeat} LobbySeat */
/** @typedef {import("../types.js").Seek} Seek */
/** @typedef {import("../state/finding.js").Tables} Tables */
/** @typedef {import("../state/finding.js").Quick} Quick */
/** @typedef {import("../state/finding.js").SeatShown} SeatShown */
/** @typedef {ReturnType<typeof seekRequest>} SeekRequest */
/** @typedef {import("../state/options.js").PlayNowChoice} PlayNowChoice */

// --- the public tables -------------------------------------------------------------------

/** @param {SeatShown} shown */
function seatLabel(shown) {
  switch (shown.kind) {
    case "you":
      return t("you");
    case "bot":
      return t("bot_badge", { level: t(`bot_level.${shown.level}`) });
    case "reserved":
      return t("seat_reserved");
    case "player":
      return shown.name;
    default:
      return t("seat_open");
  }
}

/** A seat of a table: who sits there; a player the lobby names with a link to their
 * profile, and at a rated table their rating in the game's ladder.
 * @param {LobbyGame} table @param {LobbySeat} seat @param {string | null} me */
function seatItem(table, seat, me) {
  const label = seatLabel(seatShown(seat, me));
  const named = seat.player_id && seat.name ? seat.player_id : null;
  return h(
    "li",
    { dataset: { seat: seat.seat } },
    tNodes("seat_line", { n: seat.seat + 1, who: named ? playerLink(named, label) : label }),
    table.rated && named && [" ", ratingBadge(named, ladderOf(table.variant, table.players))],
  );
}

/**
 * @param {LobbyGame} table
 * @param {string | null} me
 * @param {(gameId: string, seat: number) => Promise<void>} join
 */
function tableItem(table, me, join) {
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
      table.seats.map((s) => seatItem(table, s, me)),
    ),
    isMine(table, me)
      ? h("a", { href: `#/game/${table.game_id}`, class: "open-mine" }, t("open_my_table"))
      : h(
          "span",
          { class: "join-buttons" },
          freeSeats(table).map((seat) =>
            h(
              "button",
              {
                type: "button",
                class: "primary",
                dataset: { joinSeat: seat },
                onclick: async (/** @type {MouseEvent} */ e) => {
                  const button = /** @type {HTMLButtonElement} */ (e.currentTarget);
                  button.disabled = true;
                  fill(out);
                  try {
                    await join(table.game_id, seat);
                  } catch (err) {
                    button.disabled = false;
                    fill(out, problemBox(refusalOf(err)));
                  }
                },
              },
              t("join_table_seat", { n: seat + 1 }),
            ),
          ),
        ),
    out,
  );
}

/**
 * The public tables' section: {section, show(tables, me), problem(error)}.
 * @param {(gameId: string, seat: number) => Promise<void>} join
 */
export function tablesView(join) {
  const list = h("ul", { class: "tables", id: "public-tables" }, h("li", { class: "none" }, t("loading")));
  const error = h("div");
  return {
    section: h(
      "section",
      { class: "panel public-tables", "aria-labelledby": "tables-title" },
      h("h2", { id: "tables-title" }, t("public_tables")),
      h("p", {}, t("public_tables_text")),
      list,
      error,
    ),
    /** @param {Tables} tables @param {string | null} me this browser's player's id */
    show(tables, me) {
      const open = listed(tables);
      fill(list, open.length ? open.map((table) => tableItem(table, me, join)) : h("li", { class: "none" }, t("no_tables")));
    },
    /** @param {import("../types.js").Refusal | null} refusal */
    problem: (refusal) => fill(error, problemBox(refusal)),
  };
}

// --- quick play ----------------------------------------------------------------------------

/**
 * What the person does in "Play now": search (resolves once the search is made; the
 * choice it was asked with goes with it), cancel the search (resolves once cancelled);
 * and the choice last asked with, which the form is drawn with (null: its defaults).
 * @typedef {object} QuickActions
 * @property {(ask: SeekRequest, choice: PlayNowChoice) => Promise<void>} submit
 * @property {(id: string) => Promise<void>} cancel
 * @property {() => PlayNowChoice | null} lastChoice
 */

/**
 * "Play now"'s section: {section, render(quick), close()}.
 * @param {QuickActions} actions
 */
export function quickView(actions) {
  const body = h("div", { class: "play-now-body" });
  const error = h("div");
  /** @type {ReturnType<typeof setInterval> | undefined} */
  let ticker;

  function form() {
    const seconds = h("input", {
      type: "number",
      name: "bots_after_seconds",
      id: "seek-bots-seconds",
      min: 5,
      max: 600,
      value: "30",
      disabled: true, // until bots are wanted
    });
    const button = h("button", { type: "submit", class: "primary", id: "play-now" }, t("play_now"));
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
            onchange: (/** @type {Event} */ e) => {
              seconds.disabled = !(/** @type {HTMLInputElement} */ (e.currentTarget).checked);
            },
          }),
          " ",
          t("seek_bots"),
        ),
        h("label", { class: "field" }, h("span", {}, t("seek_bots_seconds")), seconds),
      ],
      end: [h("p", {}, button)],
    });
    const last = actions.lastChoice();
    if (last) {
      setMode(f, last);
      /** @type {HTMLInputElement} */ (f.elements.namedItem("bots")).checked = last.bots;
      seconds.value = String(last.bots_after_seconds);
      seconds.disabled = !last.bots;
    }
    f.addEventListener("submit", async (e) => {
      e.preventDefault();
      fill(error);
      button.disabled = true;
      const bots = checkedOf(f, "bots");
      const botsAfter = Number(valueOf(f, "bots_after_seconds"));
      try {
        await actions.submit(seekRequest(modeOf(f), bots ? botsAfter : null), { ...modeOf(f), bots, bots_after_seconds: botsAfter });
      } catch (err) {
        button.disabled = false;
        fill(error, problemBox(refusalOf(err)));
      }
    });
    return f;
  }

  /** @param {Seek} seek */
  function waiting(seek) {
    const elapsed = h("span", { class: "elapsed", role: "timer" }, "0:00");
    const tick = () => {
      elapsed.textContent = t("clock_ms", waited(seek.created_at, Date.now()));
    };
    tick();
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
            await actions.cancel(seek.id);
          } catch (err) {
            fill(error, problemBox(refusalOf(err)));
          } finally {
            cancel.disabled = false;
          }
        },
      },
      t("cancel_seek"),
    );
    return [
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
    ];
  }

  return {
    section: h(
      "section",
      { class: "panel quick", "aria-labelledby": "quick-title" },
      h("h2", { id: "quick-title" }, t("quick_play")),
      h("p", {}, t("quick_play_text")),
      body,
      error,
    ),
    /** Quick play as it is now (drawn when it changes). @param {Quick} quick */
    render(quick) {
      clearInterval(ticker);
      if (quick.kind === "form") {
        fill(body, form());
        if (quick.ended) fill(error, h("p", { class: "notice", role: "status", id: "seek-ended" }, t(`seek_ended.${quick.ended}`)));
      } else if (quick.kind === "reading") fill(body, h("p", { class: "loading" }, t("loading")));
      else if (quick.kind === "waiting") fill(body, waiting(quick.seek));
    },
    close: () => clearInterval(ticker),
  };
}
