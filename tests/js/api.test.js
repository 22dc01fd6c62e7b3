// api.js, the client's one caller of fetch(): requests and their refusals, conditional
// GETs (If-None-Match, a 304 answered with the body known), following a resource (a
// long-poll, a periodic read) until aborted, and opening an event stream.

import assert from "node:assert/strict";
import { test } from "node:test";

import { ApiError, follow, get, openEventStream, post, revalidate } from "../../service/web/ui/js/api.js";
import { fakeFetch, json, notModified, useFetch } from "./fake-fetch.js";

/** A test that waits on its fetch or stream gives up rather than hang the suite. */
const TIMEOUT = { timeout: 10_000 };

test("a command carries its JSON, the token and an Idempotency-Key; a GET no key", TIMEOUT, async (t) => {
  const { fetch, calls } = fakeFetch(json({ id: "g1" }, { status: 201 }), json({ id: "g1" }));
  useFetch(t, fetch);
  assert.deepEqual(await post("/v1/games", { players: 4 }, { token: "tok" }), { id: "g1" });
  assert.deepEqual(await get("/v1/games/g1"), { id: "g1" });
  const [sent, asked] = calls;
  assert.equal(sent.init.method, "POST");
  assert.equal(sent.init.body, JSON.stringify({ players: 4 }));
  assert.equal(sent.headers.get("Authorization"), "Bearer tok");
  assert.equal(sent.headers.get("Content-Type"), "application/json");
  assert.match(sent.headers.get("Idempotency-Key") ?? "", /^[0-9a-f-]{32,36}$/);
  assert.equal(asked.headers.get("Idempotency-Key"), null);
  assert.equal(asked.headers.get("Authorization"), null);
});

test("a refusal is an ApiError with the problem's title, code and status", TIMEOUT, async (t) => {
  const problem = { title: "Not your turn", status: 409, code: "not_your_turn", detail: "seat 2 plays" };
  useFetch(t, fakeFetch(json(problem, { status: 409 })).fetch);
  await assert.rejects(post("/v1/games/g1/play", { card: "red-3" }), (err) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.message, "Not your turn");
    assert.equal(err.status, 409);
    assert.equal(err.code, "not_your_turn");
    assert.equal(err.problem.detail, "seat 2 plays");
    return true;
  });
});

test("no answer at all is an ApiError 0 `network`; an aborted request rejects with the abort", TIMEOUT, async (t) => {
  const { fetch } = fakeFetch(() => {
    throw new TypeError("Failed to fetch");
  });
  useFetch(t, fetch);
  await assert.rejects(get("/v1/lobby"), (err) => err instanceof ApiError && err.status === 0 && err.code === "network");
  const controller = new AbortController();
  const asked = get("/v1/lobby", { signal: controller.signal }); // held: nothing more scripted
  controller.abort();
  await assert.rejects(asked, (err) => !(err instanceof ApiError) && err instanceof Error && err.name === "AbortError");
});

test("revalidate asks with If-None-Match and answers a 304 with the body it knew", TIMEOUT, async (t) => {
  const { fetch, calls } = fakeFetch(json({ v: 1 }, { headers: { ETag: '"7"' } }), notModified('"7"'), json({ v: 2 }, { headers: { ETag: '"8"' } }));
  useFetch(t, fetch);
  const first = await revalidate("/v1/games/g1", null);
  assert.deepEqual(first, { etag: '"7"', body: { v: 1 }, changed: true });
  const same = await revalidate("/v1/games/g1", first);
  assert.deepEqual(same, { etag: '"7"', body: { v: 1 }, changed: false });
  const next = await revalidate("/v1/games/g1", same);
  assert.deepEqual(next, { etag: '"8"', body: { v: 2 }, changed: true });
  assert.deepEqual(
    calls.map((c) => [c.url, c.headers.get("If-None-Match")]),
    [
      ["/v1/games/g1", null],
      ["/v1/games/g1", '"7"'],
      ["/v1/games/g1", '"7"'],
    ],
  );
});

test("revalidate long-polls (wait) only with an ETag to compare", TIMEOUT, async (t) => {
  const { fetch, calls } = fakeFetch(json({ games: [] }), json({ games: [] }, { headers: { ETag: '"x"' } }), notModified('"x"'));
  useFetch(t, fetch);
  const untagged = await revalidate("/v1/lobby?limit=100", null, { wait: 25 });
  await revalidate("/v1/lobby?limit=100", untagged, { wait: 25 });
  await revalidate("/v1/me/games", { etag: '"x"', body: {} }, { wait: 10 });
  assert.deepEqual(
    calls.map((c) => c.url),
    ["/v1/lobby?limit=100", "/v1/lobby?limit=100", "/v1/me/games?wait=10"],
  );
});

test("follow long-polls: each change heard once, 304s not, until aborted", TIMEOUT, async (t) => {
  const { fetch, calls } = fakeFetch(
    json({ games: ["a"] }, { headers: { ETag: '"1"' } }),
    notModified('"1"'),
    json({ games: ["b"] }, { headers: { ETag: '"2"' } }),
  );
  useFetch(t, fetch);
  const controller = new AbortController();
  /** @type {string[][]} */
  const heard = [];
  const following = follow("/v1/lobby?limit=100", {
    wait: 25,
    signal: controller.signal,
    onChange: (lobby) => {
      heard.push(lobby.games);
      if (heard.length === 2) controller.abort();
    },
  });
  await following;
  assert.deepEqual(heard, [["a"], ["b"]]);
  assert.deepEqual(
    calls.map((c) => [c.url, c.headers.get("If-None-Match")]),
    [
      ["/v1/lobby?limit=100", null],
      ["/v1/lobby?limit=100&wait=25", '"1"'],
      ["/v1/lobby?limit=100&wait=25", '"1"'],
    ],
  );
});

test("follow hears a refusal, asks again after it, and ends when aborted mid-request", TIMEOUT, async (t) => {
  const { fetch, calls } = fakeFetch(
    json({ title: "Unavailable", status: 503, code: "store_unavailable" }, { status: 503 }),
    json({ games: [] }, { headers: { ETag: '"1"' } }),
  );
  useFetch(t, fetch);
  const controller = new AbortController();
  /** @type {unknown[]} */
  const errors = [];
  let changes = 0;
  const following = follow("/v1/lobby?limit=100", {
    wait: 25,
    retry: 1,
    signal: controller.signal,
    onError: (err) => errors.push(err),
    onChange: () => {
      changes += 1;
    },
  });
  // The third ask is held (nothing more scripted), as a long-poll is: abort it.
  for (let turns = 0; calls.length < 3 && turns < 10_000; turns += 1) await new Promise((resolve) => setImmediate(resolve));
  controller.abort();
  await following;
  assert.equal(errors.length, 1);
  assert.ok(errors[0] instanceof ApiError && errors[0].code === "store_unavailable");
  assert.equal(changes, 1);
  assert.equal(calls.length, 3);
});

test("follow with `every` reads after each period, revalidated, and stops once aborted", TIMEOUT, async (t) => {
  const { fetch, calls } = fakeFetch(
    json({ status: "open" }, { headers: { ETag: '"s1"' } }),
    notModified('"s1"'),
    json({ status: "matched" }, { headers: { ETag: '"s2"' } }),
  );
  useFetch(t, fetch);
  const controller = new AbortController();
  /** @type {string[]} */
  const heard = [];
  await follow("/v1/seeks/s", {
    every: 1,
    token: "tok",
    signal: controller.signal,
    onChange: (seek) => {
      heard.push(seek.status);
      if (seek.status === "matched") controller.abort();
    },
  });
  assert.deepEqual(heard, ["open", "matched"]);
  assert.deepEqual(
    calls.map((c) => [c.url, c.headers.get("If-None-Match"), c.headers.get("Authorization")]),
    [
      ["/v1/seeks/s", null, "Bearer tok"],
      ["/v1/seeks/s", '"s1"', "Bearer tok"],
      ["/v1/seeks/s", '"s1"', "Bearer tok"],
    ],
  );
});

test("an event stream is asked for with Last-Event-ID and the token; a refusal is an ApiError", TIMEOUT, async (t) => {
  const { fetch, calls } = fakeFetch(
    new Response("data: 1\n\n", { headers: { "Content-Type": "text/event-stream" } }),
    json({ title: "Forbidden", status: 403, code: "forbidden" }, { status: 403 }),
  );
  useFetch(t, fetch);
  const body = await openEventStream("/v1/games/g/stream", { token: "tok", lastEventId: 41 });
  assert.equal(await new Response(body).text(), "data: 1\n\n");
  assert.equal(calls[0].headers.get("Last-Event-ID"), "41");
  assert.equal(calls[0].headers.get("Accept"), "text/event-stream");
  assert.equal(calls[0].headers.get("Authorization"), "Bearer tok");
  await assert.rejects(openEventStream("/v1/lobby/stream", {}), (err) => err instanceof ApiError && err.status === 403);
  assert.equal(calls[1].headers.get("Last-Event-ID"), null);
});
