// The HTTP API, as any front end would call it: JSON bodies, bearer tokens in the
// Authorization header (never in a URL), problem details (RFC 9457) turned into errors
// whose message is the problem's `title`.

import { randomKey } from "./dom.js";

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
  if (method === "POST" && !sent["Idempotency-Key"]) sent["Idempotency-Key"] = randomKey();
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
    throw new ApiError(response.status, typeof payload === "object" ? payload : null);
  }
  return payload;
}

export const get = (path, options) => request("GET", path, options);
export const post = (path, body, options = {}) => request("POST", path, { ...options, body });

// --- who is using this browser ------------------------------------------------------------

const PLAYER = "yokai.player";
const OPERATOR = "yokai.operator";

/** The player of this browser, {id, name, token}, kept in localStorage; or null. */
export function player() {
  try {
    const found = JSON.parse(localStorage.getItem(PLAYER) || "null");
    return found && found.token ? found : null;
  } catch {
    return null;
  }
}

export async function becomePlayer(name) {
  const made = await post("/v1/players", { name });
  localStorage.setItem(PLAYER, JSON.stringify(made));
  return made;
}

export function forgetPlayer() {
  localStorage.removeItem(PLAYER);
}

/** The operator token, kept for this tab only (sessionStorage). */
export function operatorToken() {
  return sessionStorage.getItem(OPERATOR);
}

export function setOperatorToken(token) {
  if (token) sessionStorage.setItem(OPERATOR, token);
  else sessionStorage.removeItem(OPERATOR);
}
