// A game's chat as pure functions: the messages the page knows (the history read with
// GET …/chat and those the game stream brings, merged by id), the players this browser
// muted, who may talk here and how (docs/api.md "Table talk"), and what each message
// shows. No DOM, no fetch: table.js wires it to the API, view/chat.js draws it;
// tests/js/chat.test.js runs it.

/** @typedef {import("../types.js").View} View */
/** @typedef {import("../types.js").Refusal} Refusal */

/**
 * A message as the API gives it (POST and GET …/chat, the stream's `event: chat`): a
 * `text`, or a `preset`'s id; `seat` null on the spectators' channel, `player_id` null for
 * a seat joined without a player.
 * @typedef {object} ChatMessage
 * @property {number} id
 * @property {string} at
 * @property {"table" | "spectators"} channel
 * @property {{seat: number | null, name: string, player_id: string | null}} from
 * @property {string | null} text
 * @property {string | null} preset
 */

/** A preset, in each language (GET /v1/chat/presets).
 * @typedef {{id: string, text: Record<string, string>}} Preset */

/** A player this browser muted: their id, and their name to offer Unmute by.
 * @typedef {{player_id: string, name: string}} Muted */

/**
 * @typedef {object} ChatState
 * @property {ChatMessage[]} messages oldest first, each id once
 * @property {number | null} after the newest message's id (the next poll's `after`)
 * @property {Muted[]} muted
 * @property {Preset[]} presets
 * @property {boolean} busy a message is being sent
 * @property {Refusal | null} error the last message's refusal
 */

/** Where this browser keeps the players it muted (every game's chat). */
export const MUTED_KEY = "yokai.chatMuted";
/** The longest text the server takes (docs/api.md "Chat"). */
export const LONGEST_TEXT = 280;

/**
 * A chat before anything was read.
 * @param {Muted[]} [muted]
 * @returns {ChatState}
 */
export function initialChat(muted = []) {
  return { messages: [], after: null, muted, presets: [], busy: false, error: null };
}

/**
 * The muted players kept in this browser (what localStorage holds under MUTED_KEY):
 * anything unreadable is none.
 * @param {string | null} stored
 * @returns {Muted[]}
 */
export function mutedFrom(stored) {
  try {
    const found = JSON.parse(stored || "[]");
    if (!Array.isArray(found)) return [];
    return found.filter((m) => m && typeof m.player_id === "string" && typeof m.name === "string");
  } catch {
    return [];
  }
}

/**
 * Messages arrive (a page of history, the stream's, a message just sent): merged with
 * those known, oldest first, each id once (the same message may come by the stream and
 * by a read); the state itself when nothing is new.
 * @param {ChatState} state
 * @param {ChatMessage[]} messages
 * @returns {ChatState}
 */
export function withMessages(state, messages) {
  const known = new Set(state.messages.map((m) => m.id));
  const fresh = messages.filter((m) => !known.has(m.id) && known.add(m.id));
  if (!fresh.length) return state;
  const merged = [...state.messages, ...fresh].sort((a, b) => a.id - b.id);
  return { ...state, messages: merged, after: merged[merged.length - 1].id };
}

/**
 * A player muted in this browser (their messages hidden), or no longer.
 * @param {ChatState} state
 * @param {Muted} who
 * @param {boolean} on
 * @returns {ChatState}
 */
export function muting(state, who, on) {
  const others = state.muted.filter((m) => m.player_id !== who.player_id);
  return { ...state, muted: on ? [...others, { player_id: who.player_id, name: who.name }] : others };
}

/**
 * Whether a message is hidden here: its author is muted.
 * @param {ChatState} state
 * @param {ChatMessage} message
 */
export function isHidden(state, message) {
  const author = message.from.player_id;
  return author !== null && state.muted.some((m) => m.player_id === author);
}

/**
 * The messages the panel shows: all but the muted players'.
 * @param {ChatState} state
 */
export function shownMessages(state) {
  return state.messages.filter((m) => !isHidden(state, m));
}

/**
 * Who may talk on this page, and how. A visitor without a player: nobody (the server
 * shows the chat to no one without a token), nor a player whose seat a bot took over
 * (403 `seat_left`): `why` says which. A seated player: the table's channel, presets
 * only at a rated four-player table (partners must not signal: 422 `presets_only`). A
 * player without a seat: the spectators' channel, free text.
 * @param {View | null} view
 * @param {{seated: boolean, signedIn: boolean, left?: boolean}} who
 * @returns {{channel: null, why: "sign_in" | "left"} | {channel: "table" | "spectators", freeText: boolean}}
 */
export function chatAccess(view, { seated, signedIn, left = false }) {
  if (!view || !signedIn) return { channel: null, why: "sign_in" };
  if (left) return { channel: null, why: "left" };
  if (!seated) return { channel: "spectators", freeText: true };
  return { channel: "table", freeText: !(view.rated && view.players === 4) };
}

/**
 * Whether a message's author has a menu (mute, block, report): a player's message, not
 * this browser's player's own.
 * @param {ChatMessage} message
 * @param {string | null} me this browser's player's id
 */
export function hasAuthorMenu(message, me) {
  return message.from.player_id !== null && message.from.player_id !== me;
}

/**
 * What a message says: its preset in the page's language (English, else its id, for a
 * language or preset unknown here), or its text.
 * @param {ChatMessage} message
 * @param {Preset[]} presets
 * @param {string} lang
 */
export function messageWords(message, presets, lang) {
  if (message.preset === null) return message.text ?? "";
  const preset = presets.find((p) => p.id === message.preset);
  return preset ? presetWords(preset, lang) : message.preset;
}

/**
 * A preset's words in the page's language (English for a language unknown here).
 * @param {Preset} preset
 * @param {string} lang
 */
export function presetWords(preset, lang) {
  return preset.text[lang] ?? preset.text.en ?? preset.id;
}

/**
 * What a text field holds, as it would be sent: trimmed; null when nothing is left or it
 * is longer than the server takes (the field's own limit stops that first).
 * @param {string} draft
 * @returns {string | null}
 */
export function textToSend(draft) {
  const text = draft.trim();
  return text && [...text].length <= LONGEST_TEXT ? text : null;
}
