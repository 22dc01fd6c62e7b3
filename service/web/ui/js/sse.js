// A Server-Sent Events reader over fetch().
//
// Why not the browser's EventSource: it cannot send an Authorization header, and a
// token must never travel in a URL (URLs end up in access logs, browser history and
// proxies). So the stream is opened with fetch() (api.js's openEventStream, the bearer
// token in a header) and read here as a ReadableStream, doing what EventSource would:
// parse the `event:`/`id:`/`data:` lines, remember the last id, and on a dropped
// connection reconnect with backoff, sending `Last-Event-ID` so the server resumes after
// the last message received (docs/api.md "Live delivery": nothing skipped, repeated or
// reordered). The public watcher uses the same reader, without a token.

import { ApiError, openEventStream } from "./api.js";
import { pause } from "./dom.js";

/**
 * A message of the stream: its event name ("message" when it has none), its id (the last
 * one the stream gave: null before any) and its data, parsed as JSON when it is JSON.
 * @typedef {{event: string, id: number | null, data: any}} Message
 */

/**
 * "open", "reconnecting", "ended" (the server sent `end`) or "failed" (an answer that
 * retrying cannot change).
 * @typedef {"open" | "reconnecting" | "ended" | "failed"} StreamStatus
 */

const FIRST_DELAY = 500;
const MAX_DELAY = 30000;

/**
 * Open `path` as an event stream. `onMessage({event, id, data})` gets each message, its
 * data parsed as JSON; `onStatus(state, error)` hears "open", "reconnecting", "ended"
 * (the server sent `end`) and "failed" (an answer that retrying cannot change: 4xx).
 * `lastEventId`: resume after this id from the first connection on.
 * Returns {close()}.
 * @param {string} path
 * @param {object} options
 * @param {(message: Message) => void} options.onMessage
 * @param {(status: StreamStatus, error?: unknown) => void} [options.onStatus]
 * @param {string | null} [options.token]
 * @param {number | null} [options.lastEventId]
 * @returns {{close: () => void, readonly lastEventId: number | null}}
 */
export function openStream(path, { token = null, lastEventId = null, onMessage, onStatus }) {
  const controller = new AbortController();
  let lastId = lastEventId;
  let delay = FIRST_DELAY;

  async function connect() {
    const body = await openEventStream(path, { token, lastEventId: lastId, signal: controller.signal });
    onStatus?.("open");
    let ended = false;
    await readMessages(body, (message) => {
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
 * each message; resolves when the body ends.
 * @param {ReadableStream<Uint8Array<ArrayBuffer>>} body
 * @param {(message: Message) => void} deliver
 * @returns {Promise<void>} */
export async function readMessages(body, deliver) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let event = "";
  /** @type {string[]} */
  let data = [];
  /** @type {number | null} */
  let id = null;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    const lines = buffer.split(/\r\n|\r|\n/);
    buffer = lines.pop() ?? ""; // an unfinished line waits for the next chunk
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
