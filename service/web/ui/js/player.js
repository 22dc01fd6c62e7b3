// Who is using this browser: its player (localStorage: the token outlives the tab) and
// the operator token (sessionStorage: this tab only); a player token refused by the API
// forgets the player. The calls that make, sign in and sign out a player are api.js's.

/** @typedef {import("./types.js").Player} Player */

const PLAYER = "yokai.player";
const OPERATOR = "yokai.operator";

/** The player of this browser, {id, name, token}, kept in localStorage; or null.
 * @returns {Player | null} */
export function player() {
  try {
    const found = JSON.parse(localStorage.getItem(PLAYER) || "null");
    return found && found.token ? found : null;
  } catch {
    return null;
  }
}

/** This browser's player, where a page acts as them: only a page shown to a player
 * calls it (the lobby's account and new-game forms, say).
 * @returns {Player} */
export function signedIn() {
  const who = player();
  if (!who) throw new Error("this browser has no player");
  return who;
}

let signedOut = false;

/** Keep this browser's player: {id, name, token}, and the token's id when known.
 * @param {Player} who */
export function keepPlayer({ id, name, token, token_id = null }) {
  localStorage.setItem(PLAYER, JSON.stringify({ id, name, token, token_id }));
  signedOut = false;
  playerChanged();
}

export function forgetPlayer() {
  localStorage.removeItem(PLAYER);
  playerChanged();
}

/** Tell the page ("yokai:player-changed") that this browser's player is another one, or
 * none: the header's "My profile" follows. */
function playerChanged() {
  window.dispatchEvent(new CustomEvent("yokai:player-changed"));
}

/** Whether this browser's player token was refused (revoked elsewhere) since the page
 * loaded: the page says so instead of just showing the welcome. */
export function wasSignedOut() {
  return signedOut;
}

/** A 401 to a request made with this browser's player token: the token no longer opens
 * the player (revoked from another device, or signed out): forget it, and tell the page
 * ("yokai:signed-out"), which shows the browser signed out. */
/** @param {number} status @param {string | null} token */
export function refusedWith(status, token) {
  const who = player();
  if (status !== 401 || !token || !who || who.token !== token) return;
  forgetPlayer();
  signedOut = true;
  window.dispatchEvent(new CustomEvent("yokai:signed-out"));
}

/** The operator token, kept for this tab only (sessionStorage). */
export function operatorToken() {
  return sessionStorage.getItem(OPERATOR);
}

/** @param {string | null} token */
export function setOperatorToken(token) {
  if (token) sessionStorage.setItem(OPERATOR, token);
  else sessionStorage.removeItem(OPERATOR);
}
