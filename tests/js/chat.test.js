// state/chat.js: a game's chat merged from its history and its stream, muting, who may
// talk and how, and what a message says.

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  chatAccess,
  hasAuthorMenu,
  initialChat,
  isHidden,
  messageWords,
  mutedFrom,
  muting,
  shownMessages,
  textToSend,
  withMessages,
} from "../../service/web/ui/js/state/chat.js";

/** @typedef {import("../../service/web/ui/js/state/chat.js").ChatMessage} ChatMessage */
/** @typedef {import("../../service/web/ui/js/types.js").View} View */

/** @param {number} id @param {Partial<ChatMessage> & {player?: string | null}} [more] @returns {ChatMessage} */
function message(id, { player = "p-aiko", ...more } = {}) {
  return {
    id,
    at: "2026-11-28T12:00:00Z",
    channel: "table",
    from: { seat: 0, name: "Aiko", player_id: player },
    text: `message ${id}`,
    preset: null,
    ...more,
  };
}

/** @param {Partial<View>} more @returns {View} */
function viewOf(more) {
  return /** @type {View} */ ({ id: "g", version: 1, players: 4, rated: false, status: "playing", ...more });
}

test("history and stream merge oldest first, each message once", () => {
  let state = initialChat();
  state = withMessages(state, [message(1), message(2)]); // the history
  state = withMessages(state, [message(4)]); // the stream
  state = withMessages(state, [message(2), message(3), message(4)]); // a read after a reconnect
  assert.deepEqual(state.messages.map((m) => m.id), [1, 2, 3, 4]);
  assert.equal(state.after, 4);
});

test("nothing new leaves the state as it was", () => {
  const state = withMessages(initialChat(), [message(1)]);
  assert.equal(withMessages(state, [message(1)]), state);
  assert.equal(withMessages(state, []), state);
});

test("a message twice in one delivery is kept once", () => {
  const state = withMessages(initialChat(), [message(5), message(5)]);
  assert.deepEqual(state.messages.map((m) => m.id), [5]);
});

test("a muted player's messages are hidden, and shown again once unmuted", () => {
  let state = withMessages(initialChat(), [message(1), message(2, { player: "p-bea" }), message(3, { player: null })]);
  state = muting(state, { player_id: "p-aiko", name: "Aiko" }, true);
  assert.deepEqual(shownMessages(state).map((m) => m.id), [2, 3]);
  assert.equal(isHidden(state, message(9)), true);
  // muting twice keeps one entry
  state = muting(state, { player_id: "p-aiko", name: "Aiko" }, true);
  assert.deepEqual(state.muted, [{ player_id: "p-aiko", name: "Aiko" }]);
  state = muting(state, { player_id: "p-aiko", name: "Aiko" }, false);
  assert.deepEqual(shownMessages(state).map((m) => m.id), [1, 2, 3]);
  assert.deepEqual(state.muted, []);
});

test("the muted list read back from storage drops what it cannot use", () => {
  assert.deepEqual(mutedFrom(null), []);
  assert.deepEqual(mutedFrom("not json"), []);
  assert.deepEqual(mutedFrom('{"player_id": "x"}'), []);
  assert.deepEqual(mutedFrom('[{"player_id": "x", "name": "X"}, {"player_id": 3}, null]'), [{ player_id: "x", name: "X" }]);
});

test("a visitor without a player has no chat, nor a player whose seat a bot took over", () => {
  assert.deepEqual(chatAccess(viewOf({}), { seated: false, signedIn: false }), { channel: null, why: "sign_in" });
  assert.deepEqual(chatAccess(null, { seated: false, signedIn: true }), { channel: null, why: "sign_in" });
  assert.deepEqual(chatAccess(viewOf({}), { seated: false, signedIn: true, left: true }), { channel: null, why: "left" });
});

test("a seated player talks at the table, with presets only at a rated four-player table", () => {
  assert.deepEqual(chatAccess(viewOf({}), { seated: true, signedIn: true }), { channel: "table", freeText: true });
  assert.deepEqual(chatAccess(viewOf({ rated: true }), { seated: true, signedIn: true }), { channel: "table", freeText: false });
  assert.deepEqual(chatAccess(viewOf({ rated: true, players: 3 }), { seated: true, signedIn: true }), { channel: "table", freeText: true });
});

test("a player without a seat talks with the spectators, freely, rated or not", () => {
  assert.deepEqual(chatAccess(viewOf({ rated: true }), { seated: false, signedIn: true }), { channel: "spectators", freeText: true });
});

test("the author's menu is for other players' messages only", () => {
  assert.equal(hasAuthorMenu(message(1), "p-bea"), true);
  assert.equal(hasAuthorMenu(message(1), "p-aiko"), false); // my own
  assert.equal(hasAuthorMenu(message(1, { player: null }), "p-bea"), false); // a seat's token
  assert.equal(hasAuthorMenu(message(1), null), true);
});

test("a preset says its words in the page's language, a text itself", () => {
  const presets = [{ id: "good_luck", text: { en: "Good luck!", fr: "Bonne chance !", de: "Viel Glück!", zh: "祝你好运！" } }];
  const preset = message(1, { text: null, preset: "good_luck" });
  assert.equal(messageWords(preset, presets, "fr"), "Bonne chance !");
  assert.equal(messageWords(preset, presets, "xx"), "Good luck!");
  assert.equal(messageWords(message(1, { text: null, preset: "new_one" }), presets, "fr"), "new_one");
  assert.equal(messageWords(message(2), presets, "fr"), "message 2");
});

test("a draft is sent trimmed, and not when empty or too long", () => {
  assert.equal(textToSend("  hi  "), "hi");
  assert.equal(textToSend("   "), null);
  assert.equal(textToSend("é".repeat(280)), "é".repeat(280));
  assert.equal(textToSend("x".repeat(281)), null);
});
