// A game's chat at its table (docs/api.md "Table talk"): the page's state of it
// (state/chat.js) and its panel (view/chat.js) wired to the API. The history is read with
// the page (GET …/chat, page after page), and read again after it each time the game
// stream (re)opens: the stream's `event: chat` only brings what is said while it is
// open. Once the stream has ended with its game, what is said is read every few seconds
// while the page is open. Messages go by POST …/chat; a name's menu blocks and reports
// (PUT /v1/me/blocks/{id}, POST /v1/reports) and mutes in this browser only
// (localStorage). Every call is made with this browser's player's token: the server
// tells a seated player (the table's channel) from a spectator (the spectators').

import { get, post, request, revalidate } from "./api.js";
import { pause } from "./dom.js";
import { player } from "./player.js";
import { refusalOf } from "./problem.js";
import { MUTED_KEY, chatAccess, initialChat, mutedFrom, muting, withMessages } from "./state/chat.js";
import { chatView } from "./view/chat.js";

/** @typedef {import("./types.js").View} View */
/** @typedef {import("./state/chat.js").ChatState} ChatState */
/** @typedef {import("./state/chat.js").ChatMessage} ChatMessage */
/** @typedef {import("./state/chat.js").Preset} Preset */
/** @typedef {ReturnType<typeof chatAccess>} Access */

/** How often a finished game's chat is read (its stream has ended). */
export const CHAT_POLL_MS = 3000;
/** The longest page the server gives (GET …/chat's `limit`). */
const PAGE = 200;

/**
 * The chat of the game `gameId`, until `signal` aborts (the page is left):
 * {el, show(view, seated, left), heard(message), catchUp(fromStart), ended()}.
 * @param {string} gameId
 * @param {AbortSignal} signal
 */
export function tableChat(gameId, signal) {
  let state = initialChat(mutedFrom(localStorage.getItem(MUTED_KEY)));
  /** @type {Access} */
  let access = { channel: null, why: "sign_in" };
  let drawn = false;
  /** @type {Promise<void> | null} a read under way */
  let reading = null;
  let readAgain = false;
  let readFromStart = false;
  let polling = false;
  const token = () => player()?.token ?? null;

  const view = chatView({
    send: async (body) => {
      update({ ...state, busy: true, error: null });
      try {
        /** @type {ChatMessage} */
        const sent = await post(`/v1/games/${gameId}/chat`, body, { token: token(), signal });
        update({ ...withMessages(state, [sent]), busy: false });
        return true;
      } catch (err) {
        if (!signal.aborted) update({ ...state, busy: false, error: refusalOf(err) });
        return false;
      }
    },
    mute: (who, on) => {
      update(muting(state, who, on));
      localStorage.setItem(MUTED_KEY, JSON.stringify(state.muted));
    },
    block: async (playerId) => {
      await request("PUT", `/v1/me/blocks/${playerId}`, { token: token(), signal });
    },
    report: async (message, reason) => {
      const body = { player_id: message.from.player_id, game_id: gameId, message_id: message.id, reason };
      await post("/v1/reports", body, { token: token(), signal });
    },
  });

  /** @param {ChatState} next */
  function update(next) {
    state = next;
    if (!signal.aborted) view.render(state, access, player()?.id ?? null);
  }

  async function loadPresets() {
    try {
      /** @type {{presets: Preset[]}} */
      const found = await get("/v1/chat/presets", { signal });
      update({ ...state, presets: found.presets });
    } catch (err) {
      if (!signal.aborted) update({ ...state, error: refusalOf(err) });
    }
  }

  /** Read what was said after the newest message known (`fromStart`: every message,
   * as a finished game shows its players the spectators' channel too), page after page;
   * a read asked while one is under way is made once it ends (it may have started
   * before the news).
   * @param {boolean} [fromStart] */
  function catchUp(fromStart = false) {
    if (access.channel === null || signal.aborted) return Promise.resolve();
    readFromStart ||= fromStart;
    if (reading) {
      readAgain = true;
      return reading;
    }
    reading = (async () => {
      do {
        readAgain = false;
        /** @type {number | null} */
        let after = readFromStart ? null : state.after;
        readFromStart = false;
        /** @type {string | null} */
        const channel = access.channel;
        for (;;) {
          const from = after === null ? "" : `&after=${after}`;
          /** @type {{messages: ChatMessage[], next_after: number | null}} */
          const page = await get(`/v1/games/${gameId}/chat?limit=${PAGE}${from}`, { token: token(), signal });
          if (access.channel !== channel) break; // a seat taken meanwhile: read again
          update(withMessages(state, page.messages));
          if (page.messages.length < PAGE) break;
          after = page.next_after;
        }
      } while ((readAgain || readFromStart) && !signal.aborted);
    })()
      .catch((err) => {
        if (!signal.aborted) update({ ...state, error: refusalOf(err) });
      })
      .finally(() => {
        reading = null;
      });
    return reading;
  }

  /** The finished game's chat, read every CHAT_POLL_MS while the page is open (a 304
   * while nothing was said: the page after the newest message is revalidated). */
  async function poll() {
    /** @type {import("./api.js").Known<{messages: ChatMessage[]}> | null} */
    let known = null;
    let path = "";
    while (await pause(CHAT_POLL_MS, signal)) {
      if (access.channel === null) continue;
      const next = `/v1/games/${gameId}/chat?limit=${PAGE}${state.after === null ? "" : `&after=${state.after}`}`;
      if (next !== path) known = null;
      path = next;
      try {
        known = await revalidate(path, known, { token: token(), signal });
        update(withMessages(state, known.body.messages));
      } catch {
        // Lost for now: the next read asks again.
      }
    }
  }

  return {
    el: view.el,
    /** The table shows `view`, the page seated or not (`left`: the player's seat was
     * taken over by a bot): who may talk, and how. A change of channel (a seat taken)
     * starts the chat afresh.
     * @param {View} shown @param {boolean} seated @param {boolean} left */
    show(shown, seated, left) {
      const next = chatAccess(shown, { seated, signedIn: token() !== null, left });
      if (drawn && JSON.stringify(next) === JSON.stringify(access)) return;
      drawn = true;
      const channelChanged = next.channel !== access.channel;
      access = next;
      if (channelChanged) state = { ...initialChat(state.muted), presets: state.presets };
      update(state);
      if (access.channel !== null && !state.presets.length) loadPresets();
      if (channelChanged) catchUp();
    },
    /** A message the game stream brought. @param {ChatMessage} message */
    heard(message) {
      update(withMessages(state, [message]));
    },
    catchUp,
    /** The game stream ended with its game: read the chat again from its start (its
     * players now read the spectators' channel too), then every few seconds. */
    ended() {
      if (polling) return;
      polling = true;
      catchUp(true);
      poll();
    },
  };
}
