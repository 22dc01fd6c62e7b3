// The HTTP API, as any front end would call it: JSON bodies, bearer tokens in the
// Authorization header (never in a URL), problem details (RFC 9457) turned into errors
// whose message is the problem's `title`.

import { randomKey } from "./dom.js";
import { forgetPlayer, keepPlayer, player, refusedWith } from "./player.js";

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
    this.code = this.problem.code || null;
  }
}

/** A request to the API; resolves to the JSON (or text) body, rejects with ApiError. */
export async function request(method, path, { token = null, body, accept, headers = {} } = {}) {
  const sent = { Accept: accept || "application/json", ...headers };
  if (token) sent.Authorization = `Bearer ${token}`;
  if (body !== undefined) sent["Content-Type"] = "application/json";
  // A command is sent with an Idempotency-Key: were the answer lost, sending it again
  // with the same key could not do it twice.
  if (method !== "GET" && !sent["Idempotency-Key"]) sent["Idempotency-Key"] = randomKey();
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: sent,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
      credentials: "omit",
    });
  } catch (err) {
    throw new ApiError(0, { title: err.message, code: "network" });
  }
  const type = response.headers.get("Content-Type") || "";
  const payload = type.includes("json") ? await response.json() : await response.text();
  if (!response.ok) {
    refusedWith(response.status, token);
    throw new ApiError(response.status, typeof payload === "object" ? payload : null);
  }
  return payload;
}

export const get = (path, options) => request("GET", path, options);
export const post = (path, body, options = {}) => request("POST", path, { ...options, body });
export const patch = (path, body, options = {}) => request("PATCH", path, { ...options, body });
export const del = (path, options) => request("DELETE", path, options);

// --- accounts (docs/api.md "Accounts"); this browser's player is kept by player.js -------

export async function becomePlayer(name) {
  const made = await post("/v1/players", { name });
  keepPlayer(made);
  return made;
}

/** An Idempotency-Key for a request that holds no token: 32 characters or more, as the
 * answer holds a secret. */
const longKey = () => randomKey() + randomKey();

/** Sign in (POST /v1/sessions) with `{id_token}` or `{link_code}`; with `token`, an ID
 * token's identity is linked to that token's player. Keeps the new token. */
export async function signIn(body, { token = null } = {}) {
  const headers = token ? {} : { "Idempotency-Key": longKey() };
  const made = await post("/v1/sessions", body, { token, headers });
  keepPlayer({ ...made.player, token: made.token, token_id: made.token_id });
  return made;
}

/** Every token of the player who sends `token` (all pages of GET /v1/me/tokens). */
export async function myTokens(token) {
  const found = [];
  let cursor = null;
  do {
    const query = new URLSearchParams({ limit: "200" });
    if (cursor) query.set("cursor", cursor);
    const page = await get(`/v1/me/tokens?${query}`, { token });
    found.push(...page.tokens);
    cursor = page.next_cursor;
  } while (cursor);
  return found;
}

async function tokenId(token) {
  const who = player();
  if (who && who.token === token && who.token_id) return who.token_id;
  const mine = (await myTokens(token)).find((t) => t.current);
  return mine ? mine.id : null;
}

/** Revoke a token of the player's (DELETE /v1/me/tokens/{id}), sent with `token`. */
export const revokeToken = (id, token) => del(`/v1/me/tokens/${encodeURIComponent(id)}`, { token });

/** Sign this browser out: its token is revoked on the server, then forgotten here. */
export async function signOut() {
  const who = player();
  if (!who) return;
  try {
    const id = await tokenId(who.token);
    if (id) await revokeToken(id, who.token);
  } catch (err) {
    if (err.status !== 401) throw err; // refused already: forgotten all the same
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
      if (err.status !== 404) throw err; // revoked meanwhile: as wanted
    }
  }
  return others.length;
}

/** Rename the player (PATCH /v1/me); the name kept here follows. */
export async function rename(name) {
  const who = player();
  const renamed = await patch("/v1/me", { name }, { token: who.token });
  keepPlayer({ ...who, name: renamed.name });
  return renamed;
}

/** A code that signs this player in on another device: {code, expires_at}. */
export function linkCode() {
  return post("/v1/me/link-codes", {}, { token: player().token });
}
