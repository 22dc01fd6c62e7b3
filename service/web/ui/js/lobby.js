// The lobby: who I am (a player made on first use, its token kept in this browser; or
// signed in with a provider or a code from another device, account.js), "Play now"
// (quick play) and the public tables (finding.js), a new game (players, scoring, variant,
// clock, bots on any seats, public or not, invited players), joining a game by its link,
// and my games from the inbox, the ones where it is my turn first, invitations to accept
// or decline among them.
//
// The page wires the lobby's state (state/lobby.js: pure) and its view (view/lobby.js)
// to the API: the player stream (my games, a seek matched), the new game, the lookups.

import { becomePlayer, get, post } from "./api.js";
import { tickCountdowns } from "./board.js";
import { declineSeat, forgetPastPlayers, pastPlayers, playNow, publicTables, takeSeat } from "./finding.js";
import { forgetPlayer, player, signedIn, wasSignedOut } from "./player.js";
import { refusalOf } from "./problem.js";
import { takeSignInOutcome } from "./signin.js";
import { openStream } from "./sse.js";
import { gameRef, joinTarget, shortIdFound, withInboxMessage, withoutGame } from "./state/lobby.js";
import { gamesView } from "./view/games.js";
import { createSection, identitySection, lobbyLayout, openSection } from "./view/lobby.js";

/** @typedef {import("./types.js").InboxEntry} InboxEntry */
/** @typedef {import("./types.js").GamesPage<InboxEntry>} InboxPage */
/** @typedef {import("./view/lobby.js").NotOpened} NotOpened */

/** How many pages of the player's games (100 each) a short id is looked for in. */
const OPEN_PAGES = 5;

/**
 * The game a text names: a link or a whole id opens it; a short id ("7ea56dc5", as the
 * pages show it) is looked for among the player's games. Resolves to null once it is
 * opened, or to why not.
 * @param {string} text
 * @returns {Promise<NotOpened | null>}
 */
async function openGame(text) {
  const ref = gameRef(text);
  if (ref.kind === "junk") return ref;
  let id = ref.kind === "id" ? ref.id : null;
  if (ref.kind === "short") {
    const who = player();
    if (!who) return { kind: "need_player", prefix: ref.prefix };
    /** @type {string[]} */
    const ids = [];
    /** @type {string | null} */
    let cursor = null;
    for (let pages = 0; pages < OPEN_PAGES; pages += 1) {
      const query = new URLSearchParams({ status: "all", limit: "100" });
      if (cursor) query.set("cursor", cursor);
      /** @type {InboxPage} */
      const page = await get(`/v1/me/games?${query}`, { token: who.token });
      ids.push(...page.games.map((g) => g.game_id));
      cursor = page.next_cursor;
      if (!cursor) break;
    }
    const found = shortIdFound(ids, ref.prefix);
    if (found.kind !== "id") return { kind: found.kind, prefix: ref.prefix };
    id = found.id;
  }
  location.hash = `#/game/${id}`;
  return null;
}

/**
 * My games, live by the player stream (which also says when a seek of mine is matched:
 * `onMatched`), and the last finished ones. Returns {section, invitations, close()}.
 * @param {(data: {seek_id: string, game_id: string}) => void} onMatched
 */
function myGames(onMatched) {
  const { token } = signedIn();
  /** @type {readonly InboxEntry[]} */
  let games = [];
  const view = gamesView({
    accept: (entry) => takeSeat(entry.game_id, entry.seat),
    decline: async (entry) => {
      await declineSeat(entry.game_id, entry.seat);
      // The player stream takes the game away too; this page need not wait for it.
      games = withoutGame(games, entry.game_id);
      view.show(games);
    },
  });
  async function loadFinished() {
    try {
      /** @type {InboxPage} */
      const page = await get("/v1/me/games?status=finished&limit=10", { token });
      view.showFinished(page.games);
    } catch (err) {
      view.finishedFailed(refusalOf(err));
    }
  }
  const stream = openStream("/v1/me/stream", {
    token,
    onMessage: (message) => {
      if (message.event === "matched") {
        onMatched(message.data); // a seek of mine was paired: its table opens
        return;
      }
      const next = withInboxMessage(games, message);
      games = next.games;
      if (next.finished) loadFinished();
      view.show(games);
    },
    onStatus: (status, error) => {
      if (status === "failed") view.failed(refusalOf(error));
    },
  });
  loadFinished();
  return { section: view.section, invitations: view.invitations, close: () => stream.close() };
}

/**
 * The lobby in `main`; returns what leaving it does.
 * @param {HTMLElement} main
 * @param {URLSearchParams} params
 * @returns {() => void}
 */
export function lobbyPage(main, params) {
  /** @type {{close: () => void}[]} what draw() made that holds a connection or a timer */
  let parts = [];
  const joinAfter = joinTarget(params);

  function joinedOrDrawn() {
    if (joinAfter) location.hash = `#/game/${joinAfter}`;
    else draw();
  }

  function draw() {
    for (const part of parts) part.close();
    const who = player();
    const outcome = takeSignInOutcome();
    if (outcome && "session" in outcome && joinAfter) location.hash = `#/game/${joinAfter}`; // signed in to join
    const identity = identitySection(who, {
      outcome,
      signedOut: wasSignedOut(),
      become: async (name) => {
        await becomePlayer(name);
        joinedOrDrawn();
      },
      forget: () => {
        forgetPlayer();
        forgetPastPlayers();
        draw();
      },
      redraw: draw,
      signedIn: joinedOrDrawn,
    });
    const quick = who ? playNow() : null;
    const tables = publicTables();
    const mine = who ? myGames((data) => quick?.matched(data)) : null;
    const create =
      who &&
      createSection({
        create: async (body, seat) => {
          // The request carries the player's token: the audit names them as the game's
          // creator (and as who seated its bots), and invitations name who invites.
          /** @type {{id: string}} */
          const game = await post("/v1/games", body, { token: who.token });
          if (seat !== null) await post(`/v1/games/${game.id}/seats/${seat}`, {}, { token: who.token });
          location.hash = `#/game/${game.id}`;
        },
        pastPlayers,
      });
    parts = [quick, tables, mine].filter((part) => part !== null);
    lobbyLayout(main, [mine?.invitations, identity, quick?.section, tables.section, create, openSection(openGame), mine?.section]);
  }

  draw();
  const timer = setInterval(() => tickCountdowns(main), 1000);
  return () => {
    for (const part of parts) part.close();
    clearInterval(timer);
  };
}
