// problem.js: a refusal's box shows its detail only when the detail says more than its
// title (issue 48: an unknown game said "There is no such game" twice).

import assert from "node:assert/strict";
import { test } from "node:test";

import { repeats } from "../../service/web/ui/js/problem.js";

test("a detail that only says the title again is not shown beside it", () => {
  assert.equal(repeats("There is no such game", "There is no such game."), true);
  assert.equal(repeats("Il n’y a pas de telle partie", " il n’y a pas de telle partie. "), true);
  assert.equal(repeats("没有这局", "没有这局。"), true);
});

test("a detail that says more, or none, is kept as it is", () => {
  assert.equal(repeats("There is no such game", "Check the game's id: the whole UUID the API gave."), false);
  assert.equal(repeats("There is no such game", ""), false);
});
