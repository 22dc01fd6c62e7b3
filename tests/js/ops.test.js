// state/ops.js: the operators' games list (its status, its pages), a player id typed in,
// and a player's suspension as their audit says it.

import assert from "node:assert/strict";
import { test } from "node:test";

import { FIRST_PAGE, listStatus, paged, playerIdOf, reportStatus, resolution, suspendedBy } from "../../service/web/ui/js/state/ops.js";

test("the list's status comes from its link; an unknown one lists every game", () => {
  assert.equal(listStatus(new URLSearchParams("status=finished")), "finished");
  assert.equal(listStatus(new URLSearchParams("status=nonsense")), "");
  assert.equal(listStatus(new URLSearchParams("")), "");
});

test("the list's pages: next adds the cursor, previous goes back one, never before the first", () => {
  let pages = paged(paged(FIRST_PAGE, { next: "c1" }), { next: "c2" });
  assert.deepEqual(pages, [null, "c1", "c2"]);
  pages = paged(pages, "previous");
  assert.deepEqual(pages, [null, "c1"]);
  assert.deepEqual(paged(paged(pages, "previous"), "previous"), [null]);
});

test("a player id typed in is trimmed and lower-cased; anything else is none", () => {
  assert.equal(playerIdOf(" 0B7C1E2A-0000-4000-8000-00000000000A "), "0b7c1e2a-0000-4000-8000-00000000000a");
  assert.equal(playerIdOf("0b7c1e2a"), null);
  assert.equal(playerIdOf("0b7c1e2a-0000-4000-8000-00000000000a/../x"), null);
});

test("suspended: as the last suspension or lifting of one in the audit says", () => {
  assert.equal(suspendedBy([]), false);
  assert.equal(suspendedBy([{ action: "suspended" }, { action: "renamed" }]), true);
  assert.equal(suspendedBy([{ action: "suspended" }, { action: "unsuspended" }, { action: "token_revoked" }]), false);
  assert.equal(suspendedBy([{ action: "unsuspended" }, { action: "suspended" }]), true);
});

test("the reports list shows the open ones unless its link asks for the closed", () => {
  assert.equal(reportStatus(new URLSearchParams("status=closed")), "closed");
  assert.equal(reportStatus(new URLSearchParams("status=finished")), "open");
  assert.equal(reportStatus(new URLSearchParams("")), "open");
});

test("a resolution sends minutes with a mute only, and the note trimmed", () => {
  assert.deepEqual(resolution("mute", " 30 ", " insults "), { action: "mute", note: "insults", minutes: 30 });
  assert.deepEqual(resolution("warn", "30", "once"), { action: "warn", note: "once" });
  assert.deepEqual(resolution("suspend", "", "again"), { action: "suspend", note: "again" });
});
