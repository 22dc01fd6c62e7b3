// sse.js: the event stream's messages parsed as EventSource would (WHATWG HTML "event
// stream interpretation"), and a dropped stream resumed after the last message received.

import assert from "node:assert/strict";
import { test } from "node:test";

import { openStream, readMessages } from "../../service/web/ui/js/sse.js";
import { eventStream, fakeFetch, json, useFetch } from "./fake-fetch.js";

/** A test that waits on its fetch or stream gives up rather than hang the suite. */
const TIMEOUT = { timeout: 10_000 };

/** @param {string[]} chunks */
async function messagesOf(chunks) {
  /** @type {{event: string, id: number | null, data: unknown}[]} */
  const found = [];
  const body = eventStream(chunks).body;
  assert.ok(body);
  await readMessages(body, (message) => found.push(message));
  return found;
}

test("messages: event, id, JSON data; comments skipped; lines cut anywhere between chunks", TIMEOUT, async () => {
  const found = await messagesOf([
    ": keep-alive\n\n",
    'event: game_event\nid: 3\ndata: {"type":"Card',
    'Played","seq":3}\n',
    "\nevent: view\r\nid: 4\r\ndata: {}\r\n\r\n",
  ]);
  assert.deepEqual(found, [
    { event: "game_event", id: 3, data: { type: "CardPlayed", seq: 3 } },
    { event: "view", id: 4, data: {} },
  ]);
});

test("messages: data lines joined, text that is not JSON kept as text, the id kept until reset", TIMEOUT, async () => {
  const found = await messagesOf(["data: first\ndata:second\n\n", "id: 9\nevent: end\ndata: 1\n\n", "data: 2\n\n", "id:\ndata: 3\n\n", "event: lonely\n\n"]);
  assert.deepEqual(found, [
    { event: "message", id: null, data: "first\nsecond" },
    { event: "end", id: 9, data: 1 },
    { event: "message", id: 9, data: 2 },
    { event: "message", id: null, data: 3 },
  ]);
});

test("a dropped stream is resumed with Last-Event-ID; a refusal ends it as failed", TIMEOUT, async (t) => {
  const { fetch, calls } = fakeFetch(
    eventStream(["id: 1\ndata: 1\n\n", "id: 2\ndata: 2\n\n"]), // then the connection drops
    json({ title: "Gone", status: 404, code: "game_not_found" }, { status: 404 }),
  );
  useFetch(t, fetch);
  /** @type {unknown[]} */
  const heard = [];
  /** @type {string[]} */
  const statuses = [];
  const failed = new Promise((resolve) => {
    openStream("/v1/games/g/stream", {
      token: "tok",
      lastEventId: 0,
      onMessage: (m) => heard.push(m.data),
      onStatus: (status, error) => {
        statuses.push(status);
        if (status === "failed") resolve(error);
      },
    });
  });
  const error = /** @type {{status: number}} */ (await failed);
  assert.equal(error.status, 404);
  assert.deepEqual(heard, [1, 2]);
  assert.deepEqual(statuses, ["open", "reconnecting", "failed"]);
  assert.deepEqual(
    calls.map((c) => c.headers.get("Last-Event-ID")),
    ["0", "2"],
  );
});
