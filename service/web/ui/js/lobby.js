// The lobby: who I am (a player made on first use, its token kept in this browser; or
// signed in with a provider or a code from another device, account.js), "Play now"
// (quick play) and the public tables (finding.js), a new game (players, scoring, variant,
// clock, bots on any seats, public or not, invited players), joining a game by its link,
// and my games from the inbox, the ones where it is my turn first, invitations to accept
// or decline among them.

import { accountActions, linkCodeEntry, signInChoices } from "./account.js";
import { becomePlayer, get, post } from "./api.js";
import { remaining, tickCountdowns } from "./board.js";
import { fill, h } from "./dom.js";
import { declineSeat, forgetPastPlayers, pastPlayers, playNow, publicTables, takeSeat } from "./finding.js";
import { formatTime, language, t, tNodes } from "./i18n.js";
import { forgetPlayer, player, wasSignedOut } from "./player.js";
import { problemBox } from "./problem.js";
import { playerLink } from "./ratings.js";
import { takeSignInOutcome } from "./signin.js";
import { openStream } from "./sse.js";
import { newGameRequest } from "./state/options.js";
import { checkedOf, modeOf, optionsForm, select, valueOf } from "./view/options.js";

const GAME_ID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
/** The start of a game id, as the pages show it ("7ea56dc5"): 4 hex digits at least. */
const SHORT_ID = /^[0-9a-f]{4}[0-9a-f-]{0,32}$/;
/** How many pages of the player's games (100 each) a short id is looked for in. */
const OPEN_PAGES = 5;

/** The inbox order (docs/api.md): my turn first, soonest deadline, longest waiting; then the
 * others, most recently updated first. */
function inboxOrder(a, b) {
  if (a.my_turn !== b.my_turn) return a.my_turn ? -1 : 1;
  if (a.my_turn) {
    const da = a.deadline ? Date.parse(a.deadline) : Infinity;
    const db = b.deadline ? Date.parse(b.deadline) : Infinity;
    if (da !== db) return da - db;
    return Date.parse(a.due_since || 0) - Date.parse(b.due_since || 0);
  }
  return Date.parse(b.updated_at) - Date.parse(a.updated_at);
}

export function lobbyPage(main, params) {
  let stream = null;
  let timer = null;
  let parts = []; // what draw() made that holds a connection or a timer: {close()}
  const cleanups = [];
  const joinAfter = params.get("join");

  function joinedOrDrawn() {
    if (joinAfter && GAME_ID.test(joinAfter)) location.hash = `#/game/${joinAfter}`;
    else draw();
  }

  /** What the sign-in this page came back from gave: who, or why not. */
  function signInOutcome() {
    const outcome = takeSignInOutcome();
    if (!outcome) return null;
    if (outcome.error) return problemBox(outcome.error);
    if (joinAfter && GAME_ID.test(joinAfter)) location.hash = `#/game/${joinAfter}`; // signed in to join
    return h("p", { class: "notice", id: "signed-in", role: "status" }, t("signed_in_as", { name: outcome.session.player.name }));
  }

  function identity() {
    const who = player();
    const outcome = signInOutcome();
    if (who) {
      return h(
        "section",
        { class: "panel identity", "aria-labelledby": "me-title" },
        h("h2", { id: "me-title" }, t("me_title")),
        outcome,
        h("p", { id: "me-name", dataset: { player: who.id } }, tNodes("playing_as", { name: playerLink(who.id, who.name) })),
        h("p", {}, h("a", { href: `#/players/${who.id}`, id: "my-profile" }, t("my_profile"))),
        h("p", { class: "my-id" }, t("my_player_id"), " ", h("code", { id: "my-player-id" }, who.id)),
        accountActions({ redraw: draw }),
        signInChoices({ linking: true }),
        h(
          "button",
          {
            type: "button",
            class: "quiet",
            id: "forget-me",
            onclick: () => {
              if (confirm(t("forget_confirm"))) {
                forgetPlayer();
                forgetPastPlayers();
                draw();
              }
            },
          },
          t("forget_me"),
        ),
      );
    }
    const error = h("div");
    const input = h("input", { id: "player-name", name: "name", required: true, maxlength: 40, autocomplete: "nickname" });
    return h(
      "section",
      { class: "panel identity", "aria-labelledby": "me-title" },
      h("h2", { id: "me-title" }, t("welcome_title")),
      outcome,
      wasSignedOut() && h("p", { class: "notice", id: "signed-out", role: "status" }, t("signed_out_notice")),
      h("p", {}, t("welcome_text")),
      h(
        "form",
        {
          onsubmit: async (e) => {
            e.preventDefault();
            try {
              await becomePlayer(input.value.trim());
              joinedOrDrawn();
            } catch (err) {
              fill(error, problemBox(err));
            }
          },
        },
        h("label", { for: "player-name" }, t("your_name")),
        " ",
        input,
        " ",
        h("button", { type: "submit", class: "primary" }, t("become_player")),
      ),
      error,
      signInChoices(),
      linkCodeEntry({ onDone: joinedOrDrawn }),
    );
  }

  function createForm() {
    const who = player();
    if (!who) return null;
    const error = h("div");
    const seatsBox = h("fieldset", { class: "seats-choice" });
    // The players of my past games, offered in each "invite" field.
    const pastList = h("datalist", { id: "past-players" });
    let pastAsked = false;
    function offerPastPlayers() {
      if (pastAsked) return;
      pastAsked = true;
      pastPlayers().then((found) =>
        fill(pastList, found.map((p) => h("option", { value: p.id, label: p.name }, p.name))),
      );
    }
    const form = optionsForm({
      id: "new-game",
      className: "new-game",
      prefix: "new",
      between: [
        h(
          "fieldset",
          { class: "clock-choice" },
          h("legend", {}, t("clock")),
          h(
            "label",
            { class: "check" },
            // The clock's settings are disabled (and look it) while the clock is off.
            h("input", { type: "checkbox", name: "clock", id: "new-clock", onchange: () => clockSettings() }),
            " ",
            t("clock_use"),
          ),
          h(
            "label",
            { class: "field clock-setting" },
            h("span", {}, t("turn_seconds")),
            h("input", { type: "number", name: "turn_seconds", id: "new-turn-seconds", min: 1, max: 1209600, value: "60", disabled: true }),
          ),
          select("new-on_timeout", "on_timeout", [["autoplay", t("on_timeout.autoplay")], ["forfeit", t("on_timeout.forfeit")]], t("on_timeout")),
        ),
        h("label", { class: "check" }, h("input", { type: "checkbox", name: "public", id: "new-public" }), " ", t("public_use")),
      ],
      after: [seatsBox, pastList],
      end: [h("button", { type: "submit", class: "primary", id: "create-game" }, t("create_game")), error],
    });
    function clockSettings() {
      const on = form.elements.clock.checked;
      form.elements.turn_seconds.disabled = !on;
      form.elements.on_timeout.disabled = !on;
      form.querySelector(".clock-choice").dataset.on = on ? "1" : "";
    }
    clockSettings();
    function seatRows() {
      const n = Number(form.elements.players.value);
      const options = [
        ["me", t("seat_choice.me")],
        ["open", t("seat_choice.open")],
        ["basic", t("seat_choice.basic")],
        ["random", t("seat_choice.random")],
        ["strong", t("seat_choice.strong")],
        ["expert", t("seat_choice.expert")],
        ["invite", t("seat_choice.invite")],
      ];
      fill(
        seatsBox,
        h("legend", {}, t("seats")),
        Array.from({ length: n }, (_, seat) => {
          const invitee = h("input", {
            name: `invite${seat}`,
            id: `new-invite-${seat}`,
            list: "past-players",
            autocomplete: "off",
            spellcheck: "false",
            placeholder: t("invite_placeholder"),
            "aria-label": t("invite_seat", { n: seat + 1 }),
            hidden: true,
          });
          const choice = h(
            "select",
            {
              name: `seat${seat}`,
              id: `new-seat-${seat}`,
              onchange: () => {
                invitee.hidden = choice.value !== "invite";
                invitee.required = !invitee.hidden;
                if (!invitee.hidden) offerPastPlayers();
              },
            },
            options.map(([v, text]) => h("option", { value: v, selected: v === (seat === 0 ? "me" : "basic") }, text)),
          );
          return h(
            "span",
            { class: "seat-choice" },
            h("label", { class: "field" }, h("span", {}, t("seat_n", { n: seat + 1 })), choice),
            invitee,
          );
        }),
      );
    }
    form.elements.players.addEventListener("change", seatRows);
    seatRows();
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      fill(error);
      const mode = modeOf(form);
      const made = newGameRequest(mode, {
        clock: checkedOf(form, "clock") ? { turn_seconds: Number(valueOf(form, "turn_seconds")), on_timeout: valueOf(form, "on_timeout") } : null,
        isPublic: checkedOf(form, "public"),
        seats: Array.from({ length: mode.players }, (_, seat) => ({ choice: valueOf(form, `seat${seat}`), invite: valueOf(form, `invite${seat}`) })),
      });
      if ("error" in made) {
        fill(error, h("p", { role: "alert", class: "problem" }, t("one_seat_only")));
        return;
      }
      const { body, mine } = made;
      const button = form.querySelector("#create-game");
      button.disabled = true;
      try {
        // The server judges the options (a three-player Seven Followers is its 422).
        // The request carries the player's token: the audit names them as the game's
        // creator (and as who seated its bots), and invitations name who invites.
        const game = await post("/v1/games", body, { token: who.token });
        if (mine !== null) await post(`/v1/games/${game.id}/seats/${mine}`, {}, { token: who.token });
        location.hash = `#/game/${game.id}`;
      } catch (err) {
        fill(error, problemBox(err));
      } finally {
        button.disabled = false;
      }
    });
    return h("section", { class: "panel create", "aria-labelledby": "create-title" }, h("h2", { id: "create-title" }, t("new_game")), form);
  }

  /** The game a text names: a link or a whole id opens it; a short id ("7ea56dc5", as
   * the pages show it, "Game 7ea56dc5" too) is looked for among the player's games (the
   * API finds games by whole id only). Resolves to {id} or {message}. */
  async function findGame(text) {
    const whole = text.match(GAME_ID);
    if (whole) return { id: whole[0].toLowerCase() };
    const last = text.trim().split(/\s+/).pop() || "";
    const prefix = last.toLowerCase().replace(/[.,;:!?…]+$/, "");
    if (!SHORT_ID.test(prefix)) return { message: t("open_not_an_id") };
    const who = player();
    if (!who) return { message: t("open_need_full_id", { id: prefix }) };
    const found = [];
    let cursor = null;
    for (let pages = 0; pages < OPEN_PAGES; pages += 1) {
      const query = new URLSearchParams({ status: "all", limit: "100" });
      if (cursor) query.set("cursor", cursor);
      const page = await get(`/v1/me/games?${query}`, { token: who.token });
      found.push(...page.games.filter((g) => g.game_id.startsWith(prefix)).map((g) => g.game_id));
      cursor = page.next_cursor;
      if (!cursor) break;
    }
    const ids = [...new Set(found)];
    if (ids.length === 1) return { id: ids[0] };
    if (ids.length > 1) return { message: t("open_ambiguous", { id: prefix }) };
    return { message: t("open_not_found", { id: prefix }) };
  }

  function openForm() {
    const input = h("input", {
      id: "open-game",
      name: "game",
      required: true,
      placeholder: t("game_link_placeholder"),
      "aria-describedby": "open-game-message",
    });
    const message = h("p", { id: "open-game-message", class: "open-message", role: "status", "aria-live": "polite" });
    return h(
      "section",
      { class: "panel open", "aria-labelledby": "open-title" },
      h("h2", { id: "open-title" }, t("open_game")),
      h(
        "form",
        {
          onsubmit: async (e) => {
            e.preventDefault();
            message.textContent = t("open_looking");
            message.classList.remove("problem");
            try {
              const found = await findGame(input.value);
              if (found.id) {
                message.textContent = "";
                location.hash = `#/game/${found.id}`;
                return;
              }
              message.textContent = found.message;
            } catch (err) {
              message.textContent = err.message;
            }
            message.classList.add("problem");
          },
        },
        h("label", { for: "open-game" }, t("game_link")),
        " ",
        input,
        " ",
        h("button", { type: "submit" }, t("open")),
      ),
      message,
    );
  }

  function invitationButtons(entry) {
    const out = h("span", { class: "invite-error" });
    const act = (work) => async (e) => {
      const buttons = e.currentTarget.parentElement.querySelectorAll("button");
      for (const b of buttons) b.disabled = true;
      fill(out);
      try {
        await work();
      } catch (err) {
        for (const b of buttons) b.disabled = false;
        fill(out, problemBox(err));
      }
    };
    return h(
      "span",
      { class: "invitation" },
      h("span", { class: "badge invited" }, t("invited_seat", { n: entry.seat + 1 })),
      h("button", { type: "button", class: "primary accept", onclick: act(() => takeSeat(entry.game_id, entry.seat)) }, t("accept")),
      h(
        "button",
        {
          type: "button",
          class: "decline",
          onclick: act(async () => {
            await declineSeat(entry.game_id, entry.seat);
            // The player stream takes the game away too; this page need not wait for it.
            removeEntry(entry.game_id);
          }),
        },
        t("decline"),
      ),
      out,
    );
  }

  let removeEntry = () => {};

  function entryItem(entry) {
    return h(
      "li",
      {
        class: `inbox-entry${entry.my_turn ? " my-turn" : ""}${entry.invited ? " invited" : ""}`,
        dataset: { game: entry.game_id, myTurn: entry.my_turn ? "1" : "", invited: entry.invited ? "1" : "" },
      },
      h(
        "a",
        { href: `#/game/${entry.game_id}` },
        t("inbox_entry", {
          id: entry.game_id.slice(0, 8),
          variant: t(`variant.${entry.variant}`),
          players: entry.players,
          status: t(`status.${entry.status}`),
        }),
      ),
      entry.rated && h("span", { class: "badge rated" }, t("rated")),
      entry.invited ? invitationButtons(entry) : entry.my_turn && h("span", { class: "badge turn" }, t(`my_action.${entry.action}`)),
      entry.deadline &&
        h("span", { class: "deadline", dataset: { deadline: entry.deadline } }, h("span", { class: "left", role: "timer" }, remaining(entry.deadline))),
      h("span", { class: "updated" }, formatTime(entry.updated_at)),
    );
  }

  function gamesSection() {
    const who = player();
    if (!who) return null;
    const list = h("ul", { class: "inbox", id: "inbox" }, h("li", { class: "none" }, t("loading")));
    const finished = h("ul", { class: "inbox finished", id: "finished-games" });
    const state = { games: [] };
    const show = () => {
      const games = [...state.games].sort(inboxOrder);
      fill(list, games.length ? games.map(entryItem) : h("li", { class: "none" }, t("no_games")));
    };
    removeEntry = (gameId) => {
      state.games = state.games.filter((g) => g.game_id !== gameId);
      show();
    };
    stream = openStream("/v1/me/stream", {
      token: who.token,
      onMessage: (m) => {
        if (m.event === "matched") {
          quick?.matched(m.data); // a seek of mine was paired: its table opens
          return;
        }
        if (m.event === "inbox") state.games = m.data.games;
        else if (m.event === "game") {
          state.games = state.games.filter((g) => g.game_id !== m.data.game_id);
          if (m.data.status !== "finished") state.games.push(m.data);
          else loadFinished();
        }
        show();
      },
      onStatus: (status, error) => {
        if (status === "failed") fill(list, h("li", {}, problemBox(error)));
      },
    });
    async function loadFinished() {
      try {
        const page = await get("/v1/me/games?status=finished&limit=10", { token: who.token });
        fill(finished, page.games.length ? page.games.map(entryItem) : h("li", { class: "none" }, t("no_games")));
      } catch (err) {
        fill(finished, h("li", {}, problemBox(err)));
      }
    }
    loadFinished();
    return h(
      "section",
      { class: "panel games", "aria-labelledby": "games-title" },
      h("h2", { id: "games-title" }, t("my_games")),
      list,
      h("h3", {}, t("finished_games")),
      finished,
    );
  }

  let quick = null;

  function draw() {
    stream?.close();
    stream = null;
    for (const part of parts) part.close();
    quick = player() ? playNow() : null;
    const tables = publicTables();
    parts = [tables, quick].filter(Boolean);
    fill(
      main,
      h("h1", {}, t("lobby_title")),
      h("p", { class: "intro" }, t("lobby_intro"), " ", h("a", { href: `/ui/rules/${language()}.html`, target: "_blank", rel: "noopener", id: "rules-link", hreflang: language() }, t("rules_link"))),
      h("div", { class: "lobby" }, identity(), quick?.section, tables.section, createForm(), openForm(), gamesSection()),
    );
  }

  draw();
  timer = setInterval(() => tickCountdowns(main), 1000);
  cleanups.push(() => clearInterval(timer));
  return () => {
    stream?.close();
    for (const part of parts) part.close();
    for (const c of cleanups) c();
  };
}
