// A Server-Sent Events reader over fetch().
//
// Why not the browser's EventSource: it cannot send an Authorization header, and a
// token must never travel in a URL (URLs end up in access logs, browser history and
// proxies). So this reads the stream with fetch() and a ReadableStream, sending the
// bearer token as a header, and does what EventSource would: parse the
// `event:`/`id:`/`data:` lines, remember the last id, and on a dropped connection
// reconnect with backoff, sending `Last-Event-ID` so the server resumes after the last
// message received (docs/api.md "Live delivery": nothing skipped, repeated or reordered).
// The public watcher uses the same reader, without a token.

import { ApiError } from "./api.js";
import { pause } from "./dom.js";
import { refusedWith } from "./player.js";

const FIRST_DELAY = 500;
const MAX_DELAY = 30000;

/**
 * Open `path` as an event stream. `onMessage({event, id, data})` gets each message, its
 * data parsed as JSON; `onStatus(state, error)` hears "open", "reconnecting", "ended"
 * (the server sent `end`) and "failed" (an answer that retrying cannot change: 4xx).
 * `lastEventId`: resume after this id from the first connection on.
 * Returns {close()}.
 */
export function openStream(path, { token = null, lastEventId = null, onMessage, onStatus }) {
  const controller = new AbortController();
  let lastId = lastEventId;
  let delay = FIRST_DELAY;

  async function connect() {
    const headers = { Accept: "text/event-stream" };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (lastId !== null) headers["Last-Event-ID"] = String(lastId);
    const response = await fetch(path, {
      headers,
      signal: controller.signal,
      cache: "no-store",
      credentials: "omit",
    });
    if (!response.ok) {
      const problem = await response.json().catch(() => null);
      refusedWith(response.status, token); // a revoked player token: signed out
      throw new ApiError(response.status, problem);
    }
    onStatus?.("open");
    let ended = false;
    await readMessages(response.body, (message) => {
      delay = FIRST_DELAY; // a stream that delivers is a healthy one
      if (message.id !== null) lastId = message.id;
      if (message.event === "end") ended = true;
      onMessage(message);
    });
    return ended;
  }

  (async () => {
    while (!controller.signal.aborted) {
      try {
        if (await connect()) {
          onStatus?.("ended");
          return;
        }
      } catch (err) {
        if (controller.signal.aborted) return;
        // 429 (too many streams) and 5xx may pass; other refusals will not.
        if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 429) {
          onStatus?.("failed", err);
          return;
        }
      }
      if (controller.signal.aborted) return;
      onStatus?.("reconnecting");
      await pause(delay * (1 + Math.random() * 0.2), controller.signal);
      delay = Math.min(delay * 2, MAX_DELAY);
    }
  })();

  return {
    close: () => controller.abort(),
    get lastEventId() {
      return lastId;
    },
  };
}

/** Parse an SSE body (WHATWG HTML "event stream interpretation"), calling `deliver` for
 * each message; resolves when the body ends. */
async function readMessages(body, deliver) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let event = "";
  let data = [];
  let id = null;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    const lines = buffer.split(/\r\n|\r|\n/);
    buffer = lines.pop(); // an unfinished line waits for the next chunk
    for (const line of lines) {
      if (line === "") {
        if (data.length) {
          const text = data.join("\n");
          let parsed;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = text;
          }
          deliver({ event: event || "message", id, data: parsed });
        }
        event = "";
        data = [];
        continue;
      }
      if (line.startsWith(":")) continue; // a comment: the server's keep-alive
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
      else if (field === "id" && !value.includes("\0")) id = value === "" ? null : Number(value);
    }
  }
}
