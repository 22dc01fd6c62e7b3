// A game: the table as this browser's player sees it (their seat's view and hand), or
// as the public does. Every change arrives by the game's event stream; commands answer
// with the seat's view, shown at once. A seat kept for this browser's player (an
// invitation) is accepted or declined here; a finished game is played again (rematch).

import { ApiError, follow, get, post } from "./api.js";
import { board, roundResult, roundsPanel, scoresPanel, seatName, sideName, tableHead, tickCountdowns, winnerText } from "./board.js";
import { cardButton, cardFace, cardName } from "./cards.js";
import { fill, h } from "./dom.js";
import { fairnessPanel, recordPanel } from "./finished.js";
import { formatList, t } from "./i18n.js";
import { player } from "./player.js";
import { problemBox } from "./problem.js";
import { openStream } from "./sse.js";
import { sortCards } from "./state/cards.js";

const REMATCH_POLL_MS = 3000;

export function gamePage(main, gameId) {
  const me = player();
  const state = {
    view: null,
    token: null, // the player's token when the player holds a seat here
    tricks: [], // every trick seen: {round, number, cards: [{seat, card}], winner}
    playing: [], // cards of the trick under way, from the events
    roundNumber: 0,
    chosen: [], // cards chosen to pass, in target order
    busy: false,
    error: null,
    connection: "connecting",
    finishedShown: false,
    rematchError: null,
    // Events after this one happen while the page is open (the stream replays the
    // game's history first): only those show the round-end panel.
    liveFrom: Infinity,
    // A round that ended while the page was open: {result (the RoundEnded's data),
    // trick (its last trick, if any)}. Shown until the person presses Continue; the
    // game goes on meanwhile (the server waits for nobody), the panel only holds the
    // display.
    roundEnd: null,
    roundEndFocused: false,
  };
  let rematchWatch = null; // an AbortController: asking the finished game for its rematch
  let stream = null;
  let timer = null;
  let closed = false;
  const root = h("div", { class: "game" });
  const live = h("p", { class: "sr-only", "aria-live": "polite", role: "status" });
  fill(main, root, live);

  function accept(view) {
    if (state.view && view.version < state.view.version) return; // an older answer
    const before = state.view;
    state.view = view;
    // Cards chosen to pass stay chosen while the same pass is awaited; a new round
    // (or no pass to make) starts afresh.
    if (view.action !== "pass" || before?.round?.number !== view.round?.number) state.chosen = [];
    else state.chosen = state.chosen.filter((c) => view.hand.includes(c));
    render();
  }

  function onEvent(event) {
    switch (event.type) {
      case "RoundDealt":
        state.roundNumber = event.data.number;
        state.playing = [];
        break;
      case "CardPlayed":
        state.playing.push({ seat: event.data.seat, card: event.data.card });
        break;
      case "TrickTaken":
        state.tricks.push({
          round: state.roundNumber,
          number: event.data.number,
          cards: state.playing,
          winner: event.data.winner,
        });
        state.playing = [];
        break;
      case "RoundEnded":
        if (event.seq > state.liveFrom) {
          const number = event.data.number;
          const trick = state.tricks.filter((x) => x.round === number).at(-1) || null;
          state.roundEnd = { result: event.data, trick };
          state.roundEndFocused = false;
        }
        break;
      default:
        break;
    }
  }

  async function command(path, body) {
    state.busy = true;
    state.error = null;
    render();
    try {
      accept(await post(`/v1/games/${gameId}/${path}`, body, { token: state.token }));
    } catch (err) {
      state.error = err;
    } finally {
      state.busy = false;
      render();
    }
  }

  async function join(seat) {
    const who = player();
    if (!who) {
      location.hash = `#/?join=${gameId}`;
      return;
    }
    state.error = null;
    try {
      await post(`/v1/games/${gameId}/seats/${seat}`, {}, { token: who.token });
      restart();
    } catch (err) {
      state.error = err;
      render();
    }
  }

  function toggle(card) {
    const at = state.chosen.indexOf(card);
    if (at >= 0) state.chosen.splice(at, 1);
    else if (state.chosen.length < 3) state.chosen.push(card);
    render();
  }

  function handSection(view) {
    const action = view.action;
    const passing = view.status === "passing" && action === "pass";
    const playing = action === "play" && !state.busy;
    let prompt;
    if (passing) {
      prompt = view.variant.startsWith("seven_followers")
        ? t("pass_prompt_each")
        : t("pass_prompt", { name: seatName(view, (view.seat + (view.players === 4 ? 2 : 1)) % view.players) });
    } else if (view.status === "passing") prompt = t("pass_waiting");
    else if (view.status === "playing" && action === "play") prompt = t("your_turn");
    else if (view.status === "playing") prompt = t("waiting_for", { name: seatName(view, view.round.turn) });
    else if (view.status === "waiting") prompt = t("waiting_players");
    else prompt = "";
    const buttons = sortCards(view.hand).map((card) => {
      let cardState = "idle";
      if (passing && !state.busy) cardState = "legal";
      else if (playing) cardState = view.legal.includes(card) ? "legal" : "illegal";
      return cardButton(card, {
        state: cardState,
        pressed: passing ? state.chosen.includes(card) : null,
        onclick: () => (passing ? toggle(card) : command("play", { card })),
      });
    });
    const sevenFollowers = view.variant.startsWith("seven_followers");
    const slots = passing
      ? h(
          "ol",
          { class: "pass-slots", "aria-label": t("pass_chosen") },
          [0, 1, 2].map((i) =>
            h(
              "li",
              { dataset: { slot: i } },
              h(
                "span",
                { class: "label" },
                sevenFollowers
                  ? t("pass_to", { name: seatName(view, (view.seat + i + 1) % view.players) })
                  : t("pass_card_n", { n: i + 1 }),
              ),
              state.chosen[i] ? cardFace(state.chosen[i], { small: true }) : h("span", { class: "empty" }, t("pass_slot_empty")),
            ),
          ),
        )
      : null;
    const passButton = passing
      ? h(
          "button",
          {
            type: "button",
            class: "primary",
            id: "pass-button",
            disabled: state.chosen.length !== 3 || state.busy,
            onclick: () => command("pass", { cards: [...state.chosen] }),
          },
          t("pass_button"),
        )
      : null;
    const given = view.pass
      ? h(
          "div",
          { class: "pass-done" },
          h("p", {}, t("pass_given", { cards: formatList(view.pass.given.map(cardName)) })),
          view.pass.received.every((c) => c) &&
            h("p", {}, t("pass_received", { cards: formatList(view.pass.received.map(cardName)) })),
        )
      : null;
    return h(
      "section",
      { class: "my-hand", "aria-labelledby": "hand-title" },
      h("h2", { id: "hand-title" }, t("your_hand")),
      h("p", { class: `prompt${action ? " act" : ""}`, id: "prompt" }, prompt),
      slots,
      h("div", { class: "hand", role: "group", "aria-label": t("your_hand") }, buttons),
      passButton,
      given,
    );
  }

  async function decline(seat) {
    state.error = null;
    try {
      await post(`/v1/games/${gameId}/seats/${seat}/decline`, undefined, { token: player().token });
      restart();
    } catch (err) {
      state.error = err;
      render();
    }
  }

  function joinSection(view) {
    if (view.status !== "waiting") return null;
    const who = player();
    const seated = state.token !== null && view.seat !== undefined;
    // A seat kept for an invited player is theirs alone.
    const free = view.seats.filter((s) => !s.joined && !s.reserved_for);
    const kept = who && !seated ? view.seats.find((s) => !s.joined && s.reserved_for === who.id) : null;
    return h(
      "section",
      { class: "panel join", "aria-labelledby": "join-title" },
      h("h2", { id: "join-title" }, t("join_title")),
      kept &&
        h(
          "div",
          { class: "invited-here", id: "invitation" },
          h("p", {}, t("invited_here", { n: kept.seat + 1 })),
          h("button", { type: "button", class: "primary", id: "accept-invitation", onclick: () => join(kept.seat) }, t("accept")),
          " ",
          h("button", { type: "button", id: "decline-invitation", onclick: () => decline(kept.seat) }, t("decline")),
        ),
      h("p", {}, t("invite_text")),
      h("p", {}, h("input", { type: "text", readonly: true, class: "invite", value: location.href, "aria-label": t("invite_link") })),
      seated
        ? null
        : who
          ? h(
              "div",
              { class: "join-buttons" },
              free.map((s) =>
                h("button", { type: "button", dataset: { joinSeat: s.seat }, onclick: () => join(s.seat) }, t("join_seat", { n: s.seat + 1 })),
              ),
            )
          : h("p", {}, h("a", { href: `#/?join=${gameId}` }, t("join_need_name"))),
    );
  }

  /** A finished game: play it again. The rematch made (by anyone), its table is one
   * click away; made by this player, they sit there already (or are invited). */
  function rematchSection(view) {
    if (view.expired) return null;
    const seated = state.token !== null && view.seat !== undefined;
    if (view.rematch) {
      return h(
        "p",
        { class: "rematch" },
        h("a", { href: `#/game/${view.rematch}`, id: "join-rematch", class: "button primary", role: "button" }, t("join_rematch")),
      );
    }
    if (!seated) return null;
    return h(
      "div",
      { class: "rematch" },
      h(
        "button",
        {
          type: "button",
          class: "primary",
          id: "rematch",
          disabled: state.busy,
          onclick: async () => {
            state.busy = true;
            state.rematchError = null;
            render();
            try {
              const made = await post(`/v1/games/${gameId}/rematch`, undefined, { token: state.token });
              location.hash = `#/game/${made.id}`;
            } catch (err) {
              state.rematchError = err;
            } finally {
              state.busy = false;
              render();
            }
          },
        },
        t("rematch"),
      ),
      problemBox(state.rematchError),
    );
  }

  /** The finished game's stream has ended: its `rematch` is learnt by reading the public
   * view now and then, until it is made or the page is left. */
  function watchForRematch() {
    if (rematchWatch || state.view?.rematch) return;
    rematchWatch = new AbortController();
    const watch = rematchWatch;
    // Revalidated (the view's ETag): mostly a 304 until something changes.
    follow(`/v1/games/${gameId}`, {
      every: REMATCH_POLL_MS,
      signal: watch.signal,
      onChange: (view) => {
        if (view.rematch && state.view && !state.view.rematch) {
          state.view = { ...state.view, rematch: view.rematch };
          render();
        }
        if (state.view?.rematch) watch.abort();
      },
    });
  }

  function tricksPanel(view) {
    const rounds = [...new Set(state.tricks.map((x) => x.round))];
    return h(
      "section",
      { class: "panel tricks", "aria-labelledby": "tricks-title" },
      h("h2", { id: "tricks-title" }, t("tricks_title")),
      rounds.length === 0 && h("p", { class: "none" }, t("no_tricks_yet")),
      rounds.map((r) =>
        h(
          "details",
          { open: r === state.roundNumber || null, dataset: { round: r } },
          h("summary", {}, t("round_n", { n: r })),
          h(
            "ol",
            {},
            state.tricks
              .filter((x) => x.round === r)
              .map((x) =>
                h(
                  "li",
                  { class: "trick-line", dataset: { round: r, trick: x.number, winner: x.winner } },
                  h("span", { class: "who" }, t("trick_won_by", { n: x.number, name: seatName(view, x.winner) })),
                  // Each card with who played it, in play order; the winner's marked.
                  h(
                    "ul",
                    { class: "plays" },
                    x.cards.map((p) =>
                      h(
                        "li",
                        { class: `play${p.seat === x.winner ? " winner" : ""}`, dataset: { seat: p.seat } },
                        h("span", { class: "player" }, seatName(view, p.seat)),
                        " ",
                        cardFace(p.card, { small: true }),
                        p.seat === x.winner && [" ", h("span", { class: "won" }, t("trick_winner_mark"))],
                      ),
                    ),
                  ),
                ),
              ),
          ),
        ),
      ),
    );
  }

  /** The end of a round: its last trick (each card with its player), who won it and
   * why, the points and the scores; "Continue" shows the table as it is now. */
  function roundEndPanel(view) {
    const { result, trick } = state.roundEnd;
    const sides = view.scores.map((_, side) => side);
    return h(
      "section",
      { class: "panel round-end", id: "round-end", "aria-labelledby": "round-end-title", dataset: { round: result.number } },
      h("h2", { id: "round-end-title" }, t("round_end_title", { n: result.number })),
      h("p", { class: "round-end-result" }, roundResult(view, result)),
      trick &&
        h(
          "div",
          { class: "round-end-trick" },
          h("h3", {}, t("round_end_last_trick", { name: seatName(view, trick.winner) })),
          h(
            "ul",
            { class: "plays" },
            trick.cards.map((p) =>
              h(
                "li",
                { class: `play${p.seat === trick.winner ? " winner" : ""}`, dataset: { seat: p.seat } },
                h("span", { class: "player" }, seatName(view, p.seat)),
                cardFace(p.card),
              ),
            ),
          ),
        ),
      h(
        "table",
        { class: "round-end-scores" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", { scope: "col" }, t("round_end_side")),
            h("th", { scope: "col" }, t("round_end_points")),
            h("th", { scope: "col" }, t("round_end_total")),
          ),
        ),
        h(
          "tbody",
          {},
          sides.map((side) =>
            h(
              "tr",
              { dataset: { side } },
              h("th", { scope: "row" }, sideName(view, side)),
              h("td", { class: "points" }, String(result.points[side] ?? 0)),
              h("td", { class: "score" }, String(view.scores[side])),
            ),
          ),
        ),
      ),
      h(
        "button",
        {
          type: "button",
          class: "primary",
          id: "round-continue",
          onclick: () => {
            state.roundEnd = null;
            render();
          },
        },
        t("round_end_continue"),
      ),
    );
  }

  function render() {
    const view = state.view;
    if (!view) return;
    const focused = document.activeElement?.dataset?.card || document.activeElement?.id || null;
    const seated = state.token !== null && view.seat !== undefined;
    if (view.status === "finished") state.roundEnd = null; // the final result says it all
    const roundEnd = state.roundEnd;
    root.dataset.status = view.status;
    root.dataset.version = view.version;
    // While the round's end is shown, nothing is to be done on this page but Continue.
    root.dataset.action = seated && !roundEnd ? view.action || "" : "";
    if (roundEnd) root.dataset.roundEnd = roundEnd.result.number;
    else delete root.dataset.roundEnd;
    root.dataset.busy = state.busy ? "1" : "";
    root.dataset.seat = seated ? view.seat : "";
    root.dataset.connection = state.connection;
    const finished = view.status === "finished";
    fill(
      root,
      h(
        "header",
        { class: "game-head" },
        h("h1", {}, t("game_title", { id: gameId.slice(0, 8) })),
        h("p", { class: `connection ${state.connection}` }, t(`connection.${state.connection}`)),
      ),
      tableHead(view),
      problemBox(state.error),
      finished &&
        h(
          "section",
          { class: "panel finished", id: "final" },
          h("h2", {}, t("game_over")),
          h("p", { class: "winner-text" }, winnerText(view)),
          rematchSection(view),
        ),
      h(
        "div",
        { class: "layout" },
        roundEnd
          ? h("div", { class: "play-area" }, roundEndPanel(view))
          : h("div", { class: "play-area" }, board(view, { me: seated ? view.seat : null }), seated && !finished ? handSection(view) : null, joinSection(view)),
        h("aside", { class: "side" }, scoresPanel(view), roundsPanel(view), tricksPanel(view)),
      ),
      finished && h("div", { class: "after" }, fairnessSlot, recordSlot),
    );
    if (finished && !state.finishedShown) {
      state.finishedShown = true;
      fairnessPanel(fairnessSlot, view);
      recordPanel(recordSlot, gameId);
      watchForRematch();
    }
    tickCountdowns(root);
    if (roundEnd && !state.roundEndFocused) {
      state.roundEndFocused = true;
      document.getElementById("round-continue")?.focus();
    } else if (focused) {
      const again = root.querySelector(`[data-card="${CSS.escape(focused)}"]:is(button)`) || document.getElementById(focused);
      if (again && !again.disabled) again.focus();
    }
    // The status region says what the page says now: the prompt, or the game's end (no
    // stale "Waiting for …" once the game is over); nothing when there is no prompt.
    const prompt = root.querySelector("#prompt");
    let said = prompt ? prompt.textContent : "";
    if (finished) said = t("game_over_status", { result: winnerText(view) });
    else if (roundEnd) said = t("round_end_status", { n: roundEnd.result.number, result: roundResult(view, roundEnd.result) });
    if (live.textContent !== said) live.textContent = said;
  }
  const fairnessSlot = h("section", { class: "panel fairness", "aria-labelledby": "fair-title" });
  const recordSlot = h("section", { class: "panel record", "aria-labelledby": "record-title" });

  function connect() {
    // From the game's first event: the trick list shows every trick of the game.
    stream = openStream(`/v1/games/${gameId}/stream`, {
      token: state.token,
      lastEventId: 0,
      onMessage: (message) => {
        if (message.event === "game_event") onEvent(message.data);
        else if (message.event === "view") accept(message.data);
      },
      onStatus: (status, error) => {
        state.connection = status === "failed" ? "failed" : status;
        if (error) state.error = error;
        render();
      },
    });
  }

  async function start() {
    const who = player();
    state.token = null;
    try {
      if (who) {
        try {
          // The player's token acts for the seat the player holds in this game.
          const view = await get(`/v1/games/${gameId}/view`, { token: who.token });
          state.token = who.token;
          accept(view);
        } catch (err) {
          if (!(err instanceof ApiError) || (err.status !== 403 && err.status !== 401)) throw err;
        }
      }
      if (!state.token) accept(await get(`/v1/games/${gameId}`));
    } catch (err) {
      fill(root, h("h1", {}, t("game_title", { id: gameId.slice(0, 8) })), problemBox(err));
      return;
    }
    state.liveFrom = state.view.version;
    if (!closed) connect();
  }

  function restart() {
    stream?.close();
    rematchWatch?.abort();
    rematchWatch = null;
    Object.assign(state, {
      view: null,
      tricks: [],
      playing: [],
      roundNumber: 0,
      chosen: [],
      finishedShown: false,
      liveFrom: Infinity,
      roundEnd: null,
    });
    start();
  }

  timer = setInterval(() => tickCountdowns(root), 1000);
  start();
  return () => {
    closed = true;
    stream?.close();
    rematchWatch?.abort();
    clearInterval(timer);
  };
}
