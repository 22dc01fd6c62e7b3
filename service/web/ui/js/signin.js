// Sign-in with an OpenID provider (docs/api.md "Accounts"): the authorization code flow
// with PKCE, in the browser (RFC 6749, RFC 7636, OpenID Connect Core 3.1). This page is a
// public client: it holds no secret. What binds the answer to the request it made:
//
// - a random `code_verifier`, its SHA-256 sent as the `code_challenge`: only this page
//   can exchange the code it gets back;
// - a random `state`, checked when the provider sends the browser back (no other site
//   can start a sign-in that this page finishes);
// - a random `nonce`, which must be in the ID token (no ID token minted for another
//   sign-in is accepted).
//
// All three are kept in sessionStorage (this tab) until the provider sends the browser
// back to "/" with `?code=&state=`; the code is exchanged at the provider's token
// endpoint (which the page's CSP lets it reach) for an ID token, handed to
// POST /v1/sessions, which verifies its signature. The URL is cleaned at once.

import { ApiError, get, myTokens, postForm, revokeToken, signIn } from "./api.js";
import { t } from "./i18n.js";
import { player } from "./player.js";

/** @typedef {import("./types.js").Session} Session */

/**
 * A provider this service signs in with (GET /v1/sessions/providers).
 * @typedef {object} Provider
 * @property {string} issuer
 * @property {string} client_id
 * @property {string} authorization_endpoint
 * @property {string} token_endpoint
 */

/**
 * A sign-in under way, kept for this tab until the provider sends the browser back.
 * @typedef {object} Flow
 * @property {string} state
 * @property {string} nonce
 * @property {string} verifier
 * @property {string} issuer
 * @property {string} client_id
 * @property {string} token_endpoint
 * @property {string} redirect_uri
 * @property {string} back the page the sign-in left (its hash)
 */

const PENDING = "yokai.signin";

/** @type {Promise<Provider[]> | null} */
let listed = null;

/** The providers this service signs in with (GET /v1/sessions/providers); none when it
 * cannot be asked. Asked once a page load.
 * @returns {Promise<Provider[]>} */
export function providers() {
  listed ??= get("/v1/sessions/providers")
    .then((/** @type {{providers?: Provider[]}} */ answer) => answer.providers || [])
    .catch(() => []);
  return listed;
}

/** What a provider is called on its button: its issuer's host.
 * @param {Provider} provider */
export function providerName(provider) {
  try {
    return new URL(provider.issuer).host;
  } catch {
    return provider.issuer;
  }
}

/** @param {Uint8Array} bytes */
function base64url(bytes) {
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** `n` random bytes, in base64url. @param {number} n */
const random = (n) => base64url(crypto.getRandomValues(new Uint8Array(n)));

/** A refusal of this page's own (not the API's), shown as the API's problems are.
 * @param {string} code @param {string} [detail] */
function failure(code, detail = "") {
  return new ApiError(0, { title: t("sign_in_failed"), code, detail });
}

/** Whether this browser can sign in here: SHA-256 (crypto.subtle) needs a secure
 * context (HTTPS, or localhost). */
export function canSignIn() {
  return Boolean(globalThis.crypto?.subtle);
}

/** Leave for the provider's sign-in page; the browser comes back to "/" with a code,
 * and to the page it is on now.
 * @param {Provider} provider */
export async function startSignIn(provider) {
  if (!canSignIn()) throw failure("sign_in_insecure");
  const verifier = random(32); // 43 characters, 256 bits
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  const state = random(24);
  const nonce = random(24);
  const redirectUri = `${location.origin}/`;
  sessionStorage.setItem(
    PENDING,
    JSON.stringify({
      state,
      nonce,
      verifier,
      issuer: provider.issuer,
      client_id: provider.client_id,
      token_endpoint: provider.token_endpoint,
      redirect_uri: redirectUri,
      back: location.hash || "#/",
    }),
  );
  const url = new URL(provider.authorization_endpoint);
  const query = {
    response_type: "code",
    client_id: provider.client_id,
    redirect_uri: redirectUri,
    scope: "openid profile",
    state,
    nonce,
    code_challenge: base64url(new Uint8Array(digest)),
    code_challenge_method: "S256",
  };
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  location.assign(url.toString());
}

/** Whether this page load is the provider sending the browser back. */
export function returningFromProvider() {
  const query = new URLSearchParams(location.search);
  return query.has("state") && (query.has("code") || query.has("error"));
}

/** @returns {Flow | null} */
function pending() {
  try {
    return JSON.parse(sessionStorage.getItem(PENDING) || "null");
  } catch {
    return null;
  }
}

/** An ID token's claims (its signature is the service's to verify).
 * @param {string} idToken
 * @returns {{nonce?: string, iss?: string, aud?: string | string[]}} */
function claimsOf(idToken) {
  const part = String(idToken).split(".")[1] || "";
  const padded = part.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(part.length / 4) * 4, "=");
  const bytes = Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  return JSON.parse(new TextDecoder().decode(bytes));
}

/** The code exchanged at the provider's token endpoint for an ID token.
 * @param {Flow} flow @param {string} code
 * @returns {Promise<string>} */
async function exchange(flow, code) {
  /** @type {boolean} */
  let ok;
  /** @type {any} */
  let answer;
  try {
    ({ ok, body: answer } = await postForm(
      flow.token_endpoint,
      new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: flow.redirect_uri,
        client_id: flow.client_id,
        code_verifier: flow.verifier,
      }),
    ));
  } catch (err) {
    throw failure("sign_in_provider", err instanceof Error ? err.message : String(err));
  }
  if (!ok || typeof answer.id_token !== "string") {
    throw failure("sign_in_provider", [answer.error, answer.error_description].filter(Boolean).join(": "));
  }
  return answer.id_token;
}

/**
 * Finish the sign-in the provider sent the browser back from: the URL is cleaned (back
 * to the page the sign-in left), the state checked, the code exchanged, the ID token's
 * nonce checked, and the token handed to POST /v1/sessions, with this browser's player
 * token if it has one (the identity is then linked to that player, who keeps their
 * games; the token it replaces is revoked). Resolves to the session; rejects with an
 * ApiError (the API's refusal, or this page's own).
 * @returns {Promise<Session>}
 */
export async function finishSignIn() {
  const query = new URLSearchParams(location.search);
  const flow = pending();
  sessionStorage.removeItem(PENDING); // one return per sign-in
  history.replaceState(null, "", `/${flow?.back || ""}`);
  if (!flow || !flow.state || query.get("state") !== flow.state) throw failure("sign_in_state");
  if (query.has("error")) {
    throw failure("sign_in_provider", [query.get("error"), query.get("error_description")].filter(Boolean).join(": "));
  }
  const idToken = await exchange(flow, query.get("code") ?? "");
  let claims;
  try {
    claims = claimsOf(idToken);
  } catch {
    throw failure("sign_in_provider");
  }
  const audiences = [claims.aud ?? []].flat();
  if (claims.nonce !== flow.nonce || claims.iss !== flow.issuer || !audiences.includes(flow.client_id)) {
    throw failure("sign_in_nonce");
  }
  const before = player();
  /** @type {string | null} */
  let replaced = null;
  if (before) {
    try {
      replaced = before.token_id || (await myTokens(before.token)).find((t) => t.current)?.id || null;
    } catch {
      replaced = null; // the sign-in says what is wrong with the token, if anything
    }
  }
  let session;
  try {
    session = await signIn({ id_token: idToken }, { token: before?.token || null });
  } catch (err) {
    if (!before || !(err instanceof ApiError) || err.status !== 401 || err.code === "invalid_id_token") throw err;
    // This browser's token was revoked meanwhile (now forgotten): sign in as the
    // identity's own player instead.
    replaced = null;
    session = await signIn({ id_token: idToken });
  }
  if (replaced && replaced !== session.token_id) {
    // The token this browser held is replaced: nobody holds it any more.
    await revokeToken(replaced, session.token).catch(() => {});
  }
  return session;
}

/** @type {{session: Session} | {error: unknown} | null} */
let outcome = null;

/** Finish the sign-in this page load returns from (main.js, before the first page is
 * shown); its outcome waits for the lobby: takeSignInOutcome. */
export async function completeSignIn() {
  try {
    outcome = { session: await finishSignIn() };
  } catch (error) {
    outcome = { error };
  }
}

/** The outcome of the sign-in this page load finished, once: {session} or {error}.
 * @returns {{session: Session} | {error: unknown} | null} */
export function takeSignInOutcome() {
  const found = outcome;
  outcome = null;
  return found;
}
