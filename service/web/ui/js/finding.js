// Finding a game (docs/api.md "The lobby", "Invitations", "Rematch", "Quick play"): the
// public tables, live, each free seat one click away; "Play now" (a seek the worker
// pairs, waited for on the player stream and by reading the seek); answering an
// invitation; and the players of my past games, to invite them again.
//
// Each part wires its state (state/finding.js: pure) and its view (view/finding.js) to
// the API: the lobby stream (or its long-poll), the seek made, read back and read again.

import { ApiError, del, follow, get, post } from "./api.js";
import { player, signedIn } from "./player.js";
import { openStream } from "./sse.js";
import { playersMet, quickStart, seekCancelled, seekGone, tablesOf, waitedFor, withLobbyMessage, withMatched, withSeek } from "./state/finding.js";
import { playNowChoice } from "./state/options.js";
import { quickView, tablesView } from "./view/finding.js";

/** @typedef {import("./types.js").GameEvent} GameEvent */
/** @typedef {import("./types.js").InboxEntry} InboxEntry */
/** @typedef {import("./types.js").Seek} Seek */
/** @typedef {import("./state/finding.js").Quick} Quick */
/** @typedef {import("./state/finding.js").Tables} Tables */

/** Join `seat` of `gameId` with this browser's player token, then open the table.
 * @param {string} gameId @param {number} seat */
export async function takeSeat(gameId, seat) {
  const who = player();
  if (!who) {
    location.hash = `#/?join=${gameId}`;
    return;
  }
  await post(`/v1/games/${gameId}/seats/${seat}`, {}, { token: who.token });
  location.hash = `#/game/${gameId}`;
}

/** Decline the seat kept for this browser's player.
 * @param {string} gameId @param {number} seat */
export function declineSeat(gameId, seat) {
  return post(`/v1/games/${gameId}/seats/${seat}/decline`, undefined, { token: signedIn().token });
}

/**
 * The lobby's open public tables, kept live by GET /v1/lobby/stream (its `lobby` message
 * is the whole list, then one `table` at a time; `open_seats: 0` takes a table away).
 * Were the stream refused for good, the list is read with GET /v1/lobby's long-poll
 * instead. Returns {section, close()}.
 */
export function publicTables() {
  /** @type {Tables} */
  let tables = tablesOf([]);
  const leaving = new AbortController();
  const view = tablesView(takeSeat);

  /** @param {Tables} next */
  function show(next) {
    tables = next;
    view.show(tables, player()?.id ?? null);
  }

  /** The fallback: GET /v1/lobby, then held until it changes (ETag, wait). */
  function poll() {
    follow("/v1/lobby?limit=100", {
      wait: 25,
      signal: leaving.signal,
      onChange: (/** @type {{games: import("./types.js").LobbyGame[]}} */ lobby) => {
        show(tablesOf(lobby.games));
        view.problem(null);
      },
      onError: (err) => {
        if (err instanceof ApiError && err.status) view.problem(err); // a refusal, not a lost connection
      },
    });
  }

  const stream = openStream("/v1/lobby/stream", {
    onMessage: (message) => {
      const next = withLobbyMessage(tables, message);
      if (next !== tables) show(next);
    },
    onStatus: (status) => {
      if (status === "failed" || status === "ended") poll();
    },
  });
  return {
    section: view.section,
    close: () => {
      leaving.abort();
      stream.close();
    },
  };
}

const SEEK = "yokai.seek";
const PLAY_NOW = "yokai.play_now";
const POLL_MS = 3000;

/** The choice "Play now" was last asked with in this browser, or null. */
export function lastChoice() {
  try {
    return playNowChoice(JSON.parse(localStorage.getItem(PLAY_NOW) || "null"));
  } catch {
    return null; // not JSON, or storage refused: the form's defaults
  }
}

/**
 * "Play now": a mode (players, scoring, variant) and, if wanted, bots after N seconds;
 * a seek is made (POST /v1/seeks) and waited for: the player stream's `matched`
 * (`matched()` below, called by the lobby, which holds that stream) or, every few
 * seconds, the seek itself. Matched, the table opens: the player's token acts for the
 * seat. The seek is kept for this tab, so coming back to the lobby goes on waiting; the
 * choice it was asked with is kept for this browser (localStorage), so the form is drawn
 * with it on the next page.
 * Returns {section, matched(data), close()}.
 */
export function playNow() {
  const who = signedIn();
  const token = who.token;
  /** @type {unknown} */
  let kept = null;
  try {
    kept = JSON.parse(sessionStorage.getItem(SEEK) || "null");
  } catch {
    kept = null;
  }
  let quick = quickStart(kept, who.id);
  /** @type {AbortController | null} reading the seek waited for */
  let watching = null;
  const view = quickView({ submit, cancel, lastChoice });

  /** @param {Quick} next */
  function update(next) {
    if (next === quick) return;
    const before = quick;
    quick = next;
    if (quick.kind === "waiting") {
      const { id, created_at } = quick.seek;
      sessionStorage.setItem(SEEK, JSON.stringify({ id, player: who.id, created_at }));
    } else if (quick.kind !== "reading") sessionStorage.removeItem(SEEK);
    if (waitedFor(before) !== waitedFor(quick) || quick.kind !== "waiting") {
      watching?.abort();
      watching = null;
    }
    if (quick.kind === "waiting" && !watching) watch(quick.seek.id);
    if (quick.kind === "matched") location.hash = `#/game/${quick.game}`;
    else view.render(quick);
  }

  /** Read the seek every few seconds, should the player stream be away, until it is
   * matched or ended (or the page is left).
   * @param {string} id */
  function watch(id) {
    const controller = (watching = new AbortController());
    follow(`/v1/seeks/${id}`, {
      token,
      every: POLL_MS,
      signal: controller.signal,
      onChange: (/** @type {Seek} */ seek) => update(withSeek(quick, seek)),
      onError: (err) => {
        if (err instanceof ApiError && err.status === 404 && waitedFor(quick) === id) update(seekGone());
      },
    });
  }

  /** @param {import("./view/finding.js").SeekRequest} ask
   * @param {import("./state/options.js").PlayNowChoice} choice remembered for the next page */
  async function submit(ask, choice) {
    try {
      localStorage.setItem(PLAY_NOW, JSON.stringify(choice));
    } catch {
      // storage refused (a private window's quota): the search goes on, unremembered
    }
    update(withSeek(quick, await post("/v1/seeks", ask, { token })));
  }

  /** @param {string} id */
  async function cancel(id) {
    try {
      await del(`/v1/seeks/${id}`, { token });
      update(seekCancelled());
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== "seek_matched") throw err;
      update(withSeek(quick, await get(`/v1/seeks/${id}`, { token })));
    }
  }

  view.render(quick);
  if (quick.kind === "reading") {
    // The seek of this tab: what it asked for, and whether it was matched while the
    // page was away.
    get(`/v1/seeks/${quick.id}`, { token }).then(
      (/** @type {Seek} */ seek) => update(withSeek(quick, seek)),
      () => update(seekGone()),
    );
  }

  return {
    section: view.section,
    /** The player stream's `matched`. @param {{seek_id: string, game_id: string}} data */
    matched: (data) => update(withMatched(quick, data)),
    close: () => {
      watching?.abort();
      view.close();
    },
  };
}

/** @type {{player: string, found: Promise<{id: string, name: string}[]>} | null} asked once a page load, per player */
let known = null;

/**
 * Players met in my recent games, to invite again: {id, name} from what the API shows a
 * seat (a game's events: the players kept seats were for, and the name each joined
 * with). Asked once a page load.
 * @returns {Promise<{id: string, name: string}[]>}
 */
export function pastPlayers() {
  const who = player();
  if (!who) return Promise.resolve([]);
  if (known?.player === who.id) return known.found;
  const found = (async () => {
    /** @type {{games: InboxEntry[]}} */
    const page = await get("/v1/me/games?status=all&limit=20", { token: who.token });
    const feeds = await Promise.all(
      page.games.map((entry) =>
        get(`/v1/games/${entry.game_id}/events?limit=100`, { token: who.token }).then(
          (/** @type {{events: GameEvent[]}} */ feed) => feed.events,
          () => [], // an invitation not yet accepted: no seat, no feed
        ),
      ),
    );
    return playersMet(feeds, who.id);
  })().catch(() => []);
  known = { player: who.id, found };
  return found;
}

/** Forget the players found (another player signed in on this browser). */
export function forgetPastPlayers() {
  known = null;
}
