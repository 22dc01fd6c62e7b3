// state/options.js: what the one options form says, as the requests of a search (Play
// now) and of a new game; a remembered Play now choice.

import assert from "node:assert/strict";
import { test } from "node:test";

import { newGameRequest, playNowChoice, seekRequest } from "../../service/web/ui/js/state/options.js";

const MODE = { players: 4, scoring: "basic", variant: "standard", rated: false };

test("a search asks for the mode; bots and rated only when chosen", () => {
  assert.deepEqual(seekRequest(MODE, null), { players: 4, scoring: "basic", variant: "standard" });
  assert.deepEqual(seekRequest({ ...MODE, players: 3, scoring: "advanced", rated: true }, 5), {
    players: 3,
    scoring: "advanced",
    variant: "standard",
    bots_after_seconds: 5,
    rated: true,
  });
});

/** @param {string[]} choices @param {string[]} [invites] */
const seats = (choices, invites = []) => choices.map((choice, i) => ({ choice, invite: invites[i] ?? "" }));

test("a new game: bots by seat, my seat apart, invitations by seat, the rest open", () => {
  const made = newGameRequest(MODE, {
    clock: null,
    isPublic: false,
    seats: seats(["open", "me", "expert", "invite"], ["", "", "", "  0b7c1e2a-0000-4000-8000-000000000000 "]),
  });
  assert.deepEqual(made, {
    body: {
      players: 4,
      scoring: "basic",
      variant: "standard",
      bots: [{ seat: 2, level: "expert" }],
      invite: [{ player_id: "0b7c1e2a-0000-4000-8000-000000000000", seat: 3 }],
    },
    mine: 1,
  });
});

test("a new game: the clock, public and rated when chosen; no seat of mine when none is", () => {
  const made = newGameRequest(
    { ...MODE, players: 3, variant: "seven_followers", rated: true },
    { clock: { turn_seconds: 60, on_timeout: "forfeit" }, isPublic: true, seats: seats(["basic", "random", "strong", "me"]) },
  );
  assert.deepEqual(made, {
    body: {
      players: 3,
      scoring: "basic",
      variant: "seven_followers",
      bots: [
        { seat: 0, level: "basic" },
        { seat: 1, level: "random" },
        { seat: 2, level: "strong" },
      ],
      clock: { turn_seconds: 60, on_timeout: "forfeit" },
      visibility: "public",
      rated: true,
    },
    mine: null,
  });
});

test("a new game where I take two seats is not sent", () => {
  assert.deepEqual(newGameRequest(MODE, { clock: null, isPublic: false, seats: seats(["me", "basic", "me", "open"]) }), {
    error: "one_seat_only",
  });
});

test("a remembered Play now choice is taken only if the form still offers it", () => {
  const choice = { players: 3, scoring: "advanced", variant: "standard", rated: true, bots: true, bots_after_seconds: 20 };
  assert.deepEqual(playNowChoice(JSON.parse(JSON.stringify(choice))), choice);
  assert.equal(playNowChoice(null), null);
  assert.equal(playNowChoice("4"), null);
  for (const wrong of [{ players: 5 }, { scoring: "odd" }, { variant: "x" }, { rated: "yes" }, { bots: 1 }, { bots_after_seconds: 4 }, { bots_after_seconds: 601 }, { bots_after_seconds: 7.5 }]) {
    assert.equal(playNowChoice({ ...choice, ...wrong }), null, JSON.stringify(wrong));
  }
});
