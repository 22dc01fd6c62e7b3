// The HTTP API, as any front end would call it: JSON bodies, bearer tokens in the
// Authorization header (never in a URL), problem details (RFC 9457) turned into errors
// whose message is the problem's `title`.
//
// This is the one module of the client that calls fetch(): the JSON calls (request, get,
// post, patch, del); a resource revalidated by its ETag (revalidate: If-None-Match, a 304
// answered with the body known); a resource followed as it changes (follow: a long-poll,
// or a read every few seconds); an event stream's body (openEventStream: sse.js reads it,
// the protocol, not the transport); and the two requests that are not the API's (the
// client's own files, an OpenID provider's token endpoint). Calls take an AbortSignal: a
// page that is left aborts what it asked for.

import { pause, randomKey } from "./dom.js";
import { forgetPlayer, keepPlayer, player, refusedWith, signedIn } from "./player.js";

/** @typedef {import("./types.js").Player} Player */
/** @typedef {import("./types.js").Problem} Problem */
/** @typedef {import("./types.js").Session} Session */
/** @typedef {import("./types.js").Token} Token */

/**
 * @typedef {object} RequestOptions
 * @property {string | null} [token] a bearer token: the player's, a seat's, the operator's
 * @property {unknown} [body] sent as JSON
 * @property {string} [accept] the type wanted (JSON unless said)
 * @property {Record<string, string>} [headers]
 * @property {AbortSignal} [signal] aborts the request (a page left)
 */

/**
 * An answer kept to revalidate: its ETag and its body.
 * @template T
 * @typedef {object} Known
 * @property {string | null} etag
 * @property {T} body
 */

export class ApiError extends Error {
  /**
   * @param {number} status the HTTP status; 0 when no answer came
   * @param {Problem | null} [problem]
   */
  constructor(status, problem) {
    super(problem?.title || `HTTP ${status}`);
    this.status = status;
    /** @type {Problem} */
    this.problem = problem || {};
    this.code = this.problem.code || null;
  }
}

/** How long a followed resource that could not be read waits before it is asked again. */
const RETRY_MS = 5000;

/**
 * @param {string} method
 * @param {string} path
 * @param {RequestOptions} options
 * @returns {Promise<Response>}
 */
async function send(method, path, { token = null, body, accept, headers = {}, signal }) {
  /** @type {Record<string, string>} */
  const sent = { Accept: accept || "application/json", ...headers };
  if (token) sent.Authorization = `Bearer ${token}`;
  if (body !== undefined) sent["Content-Type"] = "application/json";
  // A command is sent with an Idempotency-Key: were the answer lost, sending it again
  // with the same key could not do it twice.
  if (method !== "GET" && !sent["Idempotency-Key"]) sent["Idempotency-Key"] = randomKey();
  try {
    return await fetch(path, {
      method,
      headers: sent,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
      credentials: "omit",
      signal,
    });
  } catch (err) {
    if (signal?.aborted) throw err; // the page was left: nobody waits for an answer
    throw new ApiError(0, { title: err instanceof Error ? err.message : String(err), code: "network" });
  }
}

/** An answer's body: its JSON, or its text.
 * @param {Response} response
 * @returns {Promise<any>} */
async function payloadOf(response) {
  const type = response.headers.get("Content-Type") || "";
  return type.includes("json") ? response.json() : response.text();
}

/** A refusal as an ApiError (a 401 to this browser's player token forgets it).
 * @param {Response} response
 * @param {string | null} token the token the request was sent with
 * @returns {Promise<ApiError>} */
async function refusal(response, token) {
  const payload = await payloadOf(response).catch(() => null);
  refusedWith(response.status, token);
  return new ApiError(response.status, payload && typeof payload === "object" ? payload : null);
}

/**
 * A request to the API; resolves to the JSON (or text) body, rejects with ApiError (or,
 * once its signal has aborted, with the abort's reason).
 * @param {string} method
 * @param {string} path
 * @param {RequestOptions} [options]
 * @returns {Promise<any>}
 */
export async function request(method, path, options = {}) {
  const response = await send(method, path, options);
  if (!response.ok) throw await refusal(response, options.token ?? null);
  return payloadOf(response);
}

/** @param {string} path @param {RequestOptions} [options] */
export const get = (path, options) => request("GET", path, options);
/** @param {string} path @param {unknown} body @param {RequestOptions} [options] */
export const post = (path, body, options = {}) => request("POST", path, { ...options, body });
/** @param {string} path @param {unknown} body @param {RequestOptions} [options] */
export const patch = (path, body, options = {}) => request("PATCH", path, { ...options, body });
/** @param {string} path @param {RequestOptions} [options] */
export const del = (path, options) => request("DELETE", path, options);

/**
 * GET `path`, revalidated: with `known` (an earlier answer and its ETag) the request
 * carries If-None-Match, and a 304 (nothing changed) answers with known's body. `wait`
 * (seconds; only with an ETag to compare) makes it a long-poll: the server holds the
 * request until the resource changes (GET /v1/lobby, the inbox). Resolves to the answer
 * to keep, and whether it changed.
 * @template [T=any]
 * @param {string} path
 * @param {Known<T> | null} known
 * @param {RequestOptions & {wait?: number}} [options]
 * @returns {Promise<Known<T> & {changed: boolean}>}
 */
export async function revalidate(path, known, { wait, headers = {}, ...options } = {}) {
  const etag = known?.etag ?? null;
  const url = etag && wait ? `${path}${path.includes("?") ? "&" : "?"}wait=${wait}` : path;
  const response = await send("GET", url, { ...options, headers: etag ? { ...headers, "If-None-Match": etag } : headers });
  if (response.status === 304 && known) return { ...known, changed: false };
  if (!response.ok) throw await refusal(response, options.token ?? null);
  return { etag: response.headers.get("ETag"), body: await payloadOf(response), changed: true };
}

/**
 * Follow a resource as it changes, until `signal` aborts: `onChange(body)` hears each new
 * version. With `wait` (seconds) it is a long-poll, asked again as soon as it answers (the
 * server holds each request until a change); with `every` (ms) it is read that often, the
 * first time after one period (the caller has just read it). Each ask after the first is
 * revalidated (If-None-Match). A refusal or a lost connection goes to `onError`, and the
 * next ask waits `every` ms, or `retry` ms (RETRY_MS unless said).
 * @template [T=any]
 * @param {string} path
 * @param {object} options
 * @param {AbortSignal} options.signal
 * @param {(body: T) => void} options.onChange
 * @param {(error: unknown) => void} [options.onError]
 * @param {string | null} [options.token]
 * @param {number} [options.wait]
 * @param {number} [options.every]
 * @param {number} [options.retry]
 * @returns {Promise<void>} once the signal has aborted
 */
export async function follow(path, { signal, onChange, onError, token = null, wait, every = 0, retry = RETRY_MS }) {
  /** @type {Known<T> | null} */
  let known = null;
  while (!signal.aborted) {
    if (every && !(await pause(every, signal))) return;
    try {
      /** @type {Known<T> & {changed: boolean}} */
      const answer = await revalidate(path, known, { token, signal, wait });
      known = answer;
      if (answer.changed) onChange(answer.body);
      // A long-poll needs an ETag to wait on: without one, do not ask again at once.
      if (!every && !answer.etag && !(await pause(retry, signal))) return;
    } catch (err) {
      if (signal.aborted) return;
      onError?.(err);
      if (!every && !(await pause(retry, signal))) return;
    }
  }
}

/**
 * Open an event stream (text/event-stream) and resolve to its body, which sse.js reads;
 * `lastEventId` resumes after that message. Rejects with ApiError on a refusal (a 401 to
 * this browser's player token forgets it, as for any request).
 * @param {string} path
 * @param {{token?: string | null, lastEventId?: number | null, signal?: AbortSignal}} options
 * @returns {Promise<ReadableStream<Uint8Array<ArrayBuffer>>>}
 */
export async function openEventStream(path, { token = null, lastEventId = null, signal }) {
  /** @type {Record<string, string>} */
  const headers = lastEventId === null ? {} : { "Last-Event-ID": String(lastEventId) };
  const response = await send("GET", path, { token, accept: "text/event-stream", headers, signal });
  if (!response.ok) throw await refusal(response, token);
  if (!response.body) throw new ApiError(0, { title: "no body", code: "network" });
  return response.body;
}

/**
 * A file of the client itself (a message catalogue), as JSON. Unlike the API's answers,
 * the browser's cache keeps it, revalidated (the service sends `Cache-Control: no-cache`
 * and an ETag).
 * @param {string} path
 * @returns {Promise<any>}
 */
export async function clientFile(path) {
  const response = await fetch(path, { credentials: "omit" });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.json();
}

/**
 * POST a form to another origin: an OpenID provider's token endpoint, which the page's
 * CSP lets it reach (signin.js). Resolves to whether it was accepted and its JSON body
 * ({} when it has none); rejects when the provider cannot be reached.
 * @param {string} url
 * @param {URLSearchParams} form
 * @returns {Promise<{ok: boolean, body: any}>}
 */
export async function postForm(url, form) {
  const response = await fetch(url, {
    method: "POST",
    headers: { Accept: "application/json" },
    body: form,
    cache: "no-store",
    credentials: "omit",
  });
  return { ok: response.ok, body: await response.json().catch(() => ({})) };
}

// --- accounts (docs/api.md "Accounts"); this browser's player is kept by player.js -------

/** Become a player (POST /v1/players): this browser keeps them.
 * @param {string} name
 * @returns {Promise<Player>} */
export async function becomePlayer(name) {
  const made = await post("/v1/players", { name });
  keepPlayer(made);
  return made;
}

/** An Idempotency-Key for a request that holds no token: 32 characters or more, as the
 * answer holds a secret. */
const longKey = () => randomKey() + randomKey();

/** Sign in (POST /v1/sessions) with `{id_token}` or `{link_code}`; with `token`, an ID
 * token's identity is linked to that token's player. Keeps the new token.
 * @param {{id_token: string} | {link_code: string}} body
 * @param {{token?: string | null}} [options]
 * @returns {Promise<Session>} */
export async function signIn(body, { token = null } = {}) {
  /** @type {Record<string, string>} */
  const headers = token ? {} : { "Idempotency-Key": longKey() };
  /** @type {Session} */
  const made = await post("/v1/sessions", body, { token, headers });
  keepPlayer({ ...made.player, token: made.token, token_id: made.token_id });
  return made;
}

/** Every token of the player who sends `token` (all pages of GET /v1/me/tokens).
 * @param {string} token
 * @returns {Promise<Token[]>} */
export async function myTokens(token) {
  /** @type {Token[]} */
  const found = [];
  /** @type {string | null} */
  let cursor = null;
  do {
    const query = new URLSearchParams({ limit: "200" });
    if (cursor) query.set("cursor", cursor);
    /** @type {{tokens: Token[], next_cursor: string | null}} */
    const page = await get(`/v1/me/tokens?${query}`, { token });
    found.push(...page.tokens);
    cursor = page.next_cursor;
  } while (cursor);
  return found;
}

/** The id of `token`, a token of this browser's player.
 * @param {string} token
 * @returns {Promise<string | null>} */
async function tokenId(token) {
  const who = player();
  if (who && who.token === token && who.token_id) return who.token_id;
  const mine = (await myTokens(token)).find((t) => t.current);
  return mine ? mine.id : null;
}

/** Revoke a token of the player's (DELETE /v1/me/tokens/{id}), sent with `token`.
 * @param {string} id
 * @param {string} token */
export const revokeToken = (id, token) => del(`/v1/me/tokens/${encodeURIComponent(id)}`, { token });

/** Sign this browser out: its token is revoked on the server, then forgotten here. */
export async function signOut() {
  const who = player();
  if (!who) return;
  try {
    const id = await tokenId(who.token);
    if (id) await revokeToken(id, who.token);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 401) throw err; // refused already: forgotten all the same
  }
  forgetPlayer();
}

/** Sign out every other device of the player: revoke each token but this one. Returns
 * how many were revoked. */
export async function signOutElsewhere() {
  const who = player();
  if (!who) return 0;
  const others = (await myTokens(who.token)).filter((t) => !t.current);
  for (const other of others) {
    try {
      await revokeToken(other.id, who.token);
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 404) throw err; // revoked meanwhile: as wanted
    }
  }
  return others.length;
}

/** Rename this browser's player (PATCH /v1/me); the name kept here follows.
 * @param {string} name
 * @returns {Promise<{name: string}>} */
export async function rename(name) {
  const who = signedIn();
  const renamed = await patch("/v1/me", { name }, { token: who.token });
  keepPlayer({ ...who, name: renamed.name });
  return renamed;
}

/** A code that signs this player in on another device.
 * @returns {Promise<{code: string, expires_at: string}>} */
export function linkCode() {
  return post("/v1/me/link-codes", {}, { token: signedIn().token });
}
