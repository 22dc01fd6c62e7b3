// A game: the table as this browser's player sees it (their seat's view and hand), or
// as the public does. Every change arrives by the game's event stream; commands answer
// with the seat's view, shown at once. A seat kept for this browser's player (an
// invitation) is accepted or declined here; a finished game is played again (rematch).
//
// The page wires the game's state (state/table.js: pure, each view, event and answer
// giving the next state) and its view (view/table.js: the DOM) to the API: the event
// stream, the commands, and a finished game read every few seconds for its rematch. The
// game's chat (chat.js) sits beside the table: it hears the stream's `event: chat`.

import { ApiError, follow, get, post } from "./api.js";
import { tableChat } from "./chat.js";
import { player, signedIn } from "./player.js";
import { refusalOf } from "./problem.js";
import { profileOf } from "./ratings.js";
import { openStream } from "./sse.js";
import {
  TRICK_HOLD_MS,
  TRICK_HOLDS_MS,
  continued,
  holdsSeat,
  initialTable,
  isSeated,
  released,
  restarted,
  started,
  toggled,
  withEvent,
  withRematch,
  withView,
} from "./state/table.js";
import { tableView } from "./view/table.js";

/** @typedef {import("./state/table.js").TableState} TableState */
/** @typedef {import("./types.js").View} View */
/** @typedef {import("./types.js").GamesPage<import("./types.js").InboxEntry>} InboxPage */

const REMATCH_POLL_MS = 3000;
/** Where this browser keeps how long a taken trick stays on the table. */
const HOLD_KEY = "yokai.trickHoldMs";

/** The length chosen in this browser, if it is one offered; else the default. */
function chosenHold() {
  const ms = Number(localStorage.getItem(HOLD_KEY));
  return TRICK_HOLDS_MS.includes(ms) ? ms : TRICK_HOLD_MS;
}

/**
 * The game page in `main`; returns what leaving it does.
 * @param {HTMLElement} main
 * @param {string} gameId
 * @returns {() => void}
 */
export function gamePage(main, gameId) {
  let state = initialTable(chosenHold());
  /** @type {ReturnType<typeof setTimeout> | undefined} the redraw once a held trick goes */
  let holdTimer;
  /** @type {{close: () => void} | null} */
  let stream = null;
  /** @type {AbortController | null} asking the finished game for its rematch */
  let rematchWatch = null;
  let finishedShown = false;
  /** @type {string | null} the token that watches the game when the page holds no seat */
  let watcherToken = null;
  /** whether this browser's player held a seat here that a bot took over */
  let seatLeft = false;
  const leaving = new AbortController();
  const chat = tableChat(gameId, leaving.signal);
  const view = tableView(main, gameId, {
    play: (card) => {
      state = released(state); // the seat's own card shows at once
      command("play", { card });
    },
    toggle: (card) => update(toggled(state, card)),
    pass: () => command("pass", { cards: [...state.chosen] }),
    join,
    decline,
    rematch,
    continueRound: () => update(continued(state)),
    holdFor: (ms) => {
      localStorage.setItem(HOLD_KEY, String(ms));
      update({ ...state, holdMs: ms });
    },
  }, chat.el);

  /** @type {Set<string>} invited players whose profile (their name) is awaited */
  const awaited = new Set();

  /** The state is `next`: drawn, unless nothing changed (an older view, say).
   * @param {TableState} next */
  function update(next) {
    if (next === state) return;
    state = next;
    if (!state.view) return;
    for (const seat of state.view.seats) {
      const invited = !seat.joined ? seat.reserved_for : null;
      if (invited && !awaited.has(invited) && profileOf(invited).value === undefined) {
        awaited.add(invited); // drawn again with their name once it has come
        profileOf(invited).promise.then(() => update({ ...state }), () => {});
      }
    }
    view.render(state, player()?.id ?? null);
    chat.show(state.view, isSeated(state), seatLeft);
    if (state.view.status === "finished" && !finishedShown) {
      finishedShown = true;
      view.finished(state.view);
      watchForRematch();
    }
  }

  /** @param {string} path @param {unknown} body */
  async function command(path, body) {
    update({ ...state, busy: true, error: null });
    try {
      /** @type {View} */
      const answer = await post(`/v1/games/${gameId}/${path}`, body, { token: state.token });
      state = withView(state, answer);
    } catch (err) {
      state = { ...state, error: refusalOf(err) };
    }
    update({ ...state, busy: false });
  }

  /** @param {number} seat */
  async function join(seat) {
    const who = player();
    if (!who) {
      location.hash = `#/?join=${gameId}`;
      return;
    }
    state = { ...state, error: null };
    try {
      await post(`/v1/games/${gameId}/seats/${seat}`, {}, { token: who.token });
      restart();
    } catch (err) {
      update({ ...state, error: refusalOf(err) });
    }
  }

  /** @param {number} seat */
  async function decline(seat) {
    state = { ...state, error: null };
    try {
      await post(`/v1/games/${gameId}/seats/${seat}/decline`, undefined, { token: signedIn().token });
      restart();
    } catch (err) {
      update({ ...state, error: refusalOf(err) });
    }
  }

  async function rematch() {
    update({ ...state, busy: true, rematchError: null });
    try {
      /** @type {{id: string}} */
      const made = await post(`/v1/games/${gameId}/rematch`, undefined, { token: state.token });
      location.hash = `#/game/${made.id}`;
    } catch (err) {
      state = { ...state, rematchError: refusalOf(err) };
    } finally {
      update({ ...state, busy: false });
    }
  }

  /** The finished game's stream has ended: its `rematch` is learnt by reading the public
   * view now and then (revalidated: a 304 until the game changes), until it is made or
   * the page is left. */
  function watchForRematch() {
    if (rematchWatch || state.view?.rematch) return;
    const watch = (rematchWatch = new AbortController());
    follow(`/v1/games/${gameId}`, {
      every: REMATCH_POLL_MS,
      signal: watch.signal,
      onChange: (/** @type {View} */ found) => {
        update(withRematch(state, found.rematch));
        if (state.view?.rematch) watch.abort();
      },
    });
  }

  function connect() {
    // From the game's first event: the trick list shows every trick of the game.
    stream = openStream(`/v1/games/${gameId}/stream`, {
      token: state.token ?? watcherToken,
      lastEventId: 0,
      onMessage: (message) => {
        if (message.event === "game_event") {
          const held = state.held;
          state = withEvent(state, message.data);
          if (state.held && state.held !== held) {
            // Drawn again once the taken trick has had its time on the table.
            clearTimeout(holdTimer);
            holdTimer = setTimeout(() => update({ ...state }), state.held.until - Date.now() + 20);
          }
        }
        else if (message.event === "view") update(withView(state, message.data));
        else if (message.event === "chat") chat.heard(message.data);
      },
      onStatus: (status, error) => {
        if (error instanceof ApiError && error.code === "seat_left" && watcherToken) {
          // A player who left the seat (a bot plays it): watched as the public.
          watcherToken = null;
          seatLeft = true;
          stream?.close();
          connect();
          return;
        }
        // What was said while no stream was open is read; after the end, every few seconds.
        if (status === "open") chat.catchUp();
        else if (status === "ended") chat.ended();
        update({ ...state, connection: status, error: error ? refusalOf(error) : state.error });
      },
    });
  }

  async function start() {
    const who = player();
    const { signal } = leaving;
    state = { ...state, token: null };
    watcherToken = null;
    seatLeft = false;
    try {
      if (who) {
        try {
          // The player's token acts for the seat the player holds in this game; whether
          // they hold one is asked first (the seat's view refuses a player without one).
          /** @type {InboxPage} */
          const entry = await get(`/v1/me/games?status=all&game=${gameId}`, { token: who.token, signal });
          if (holdsSeat(entry.games)) {
            /** @type {View} */
            const mine = await get(`/v1/games/${gameId}/view`, { token: who.token, signal });
            update(withView({ ...state, token: who.token }, mine));
          } else {
            // A player without a seat watches with their token: the spectators' chat
            // comes with the public view.
            watcherToken = who.token;
          }
        } catch (err) {
          // A token refused meanwhile (a seat let go since): the game as the public sees it.
          if (!(err instanceof ApiError) || (err.status !== 403 && err.status !== 401)) throw err;
          // One whose seat a bot took over (403 seat_left) watches as the public: their
          // token no longer opens the game's stream.
          seatLeft = err.code === "seat_left";
          if (err.status === 403 && !seatLeft) watcherToken = who.token;
        }
      }
      if (!state.token) update(withView(state, await get(`/v1/games/${gameId}`, { signal })));
    } catch (err) {
      if (!signal.aborted) view.failed(refusalOf(err));
      return;
    }
    state = started(state);
    if (!signal.aborted) connect();
  }

  function restart() {
    stream?.close();
    rematchWatch?.abort();
    rematchWatch = null;
    finishedShown = false;
    state = restarted(state);
    start();
  }

  const timer = setInterval(view.tick, 1000);
  start();
  return () => {
    leaving.abort();
    stream?.close();
    rematchWatch?.abort();
    clearInterval(timer);
    clearTimeout(holdTimer);
  };
}
