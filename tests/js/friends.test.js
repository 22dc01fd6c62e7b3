// state/friends.js: the followed players a page at a time, one unfollowed, and the game
// "Invite to a game" creates.

import assert from "node:assert/strict";
import { test } from "node:test";

import { DEFAULT_MODE, inviteRequest, withFirstPage, withPage, withoutFriend } from "../../service/web/ui/js/state/friends.js";

/** @typedef {import("../../service/web/ui/js/state/friends.js").Friend} Friend */

/** @param {string} id @returns {Friend} */
function friend(id) {
  return { player_id: id, name: id.toUpperCase(), since: "2026-01-01T10:00:00Z", online: false, playing: [] };
}

test("the friends a page at a time; a first page starts again; a player listed twice is kept once", () => {
  let friends = withPage([], [friend("a"), friend("b")], true);
  friends = withPage(friends, [friend("b"), friend("c")], false);
  assert.deepEqual(friends.map((f) => f.player_id), ["a", "b", "c"]);
  assert.deepEqual(withPage(friends, [friend("d")], true).map((f) => f.player_id), ["d"]);
  assert.deepEqual(withoutFriend(friends, "b").map((f) => f.player_id), ["a", "c"]);
  assert.equal(friends.length, 3); // the list itself is left as it was
});

test("the first page read again: the whole list replaces it; a first page of several updates those it lists", () => {
  const friends = [friend("a"), friend("b"), friend("c")];
  const online = { ...friend("b"), online: true, playing: ["g-1"] };
  assert.deepEqual(withFirstPage(friends, { players: [friend("a"), online], next_cursor: null }), [friend("a"), online]);
  assert.deepEqual(withFirstPage(friends, { players: [friend("a"), online], next_cursor: "x" }), [friend("a"), online, friend("c")]);
  assert.equal(friends[1].online, false); // the list itself is left as it was
});

test("an invitation: the last Play now mode (unrated), my seat 0, the friend's seat 1, bots on the rest", () => {
  const mode = { players: 3, scoring: "advanced", variant: "standard", rated: true };
  assert.deepEqual(inviteRequest(mode, " p-1 "), {
    body: { players: 3, scoring: "advanced", variant: "standard", bots: [{ seat: 2, level: "basic" }], invite: [{ player_id: "p-1", seat: 1 }] },
    mine: 0,
  });
});

test("an invitation without a Play now choice: a four-player standard game", () => {
  const { body, mine } = inviteRequest(null, "p-2");
  assert.equal(mine, 0);
  assert.equal(body.players, DEFAULT_MODE.players);
  assert.equal(body.variant, "standard");
  assert.equal(body.rated, undefined);
  assert.deepEqual(body.invite, [{ player_id: "p-2", seat: 1 }]);
  assert.deepEqual(body.bots, [{ seat: 2, level: "basic" }, { seat: 3, level: "basic" }]);
});
