// What the service worker (/sw.js) makes of a push, as pure functions that node's tests
// run too: the notification a payload shows, in the page's language, and which window a
// click on it opens. A push's payload (docs/api.md "Turn notifications") is
// {"type": "turn" | "invited" | "matched" | "reminder", "game_id", "version", "url"}:
// nothing hidden, and nothing here asks the API for more (no token reaches the worker).

import { fillTemplate } from "../languages.js";

/** @typedef {{type?: string, game_id?: string, version?: number, url?: string}} Payload */

/**
 * A notification to show: what registration.showNotification takes.
 * @typedef {object} Shown
 * @property {string} title
 * @property {{body: string, tag: string, renotify: boolean, lang: string, icon: string,
 *   badge: string, data: {url: string, game_id: string | null, type: string}}} options
 */

export const KINDS = ["turn", "invited", "matched", "reminder"];
/** The kinds that make a phone ring again for a game already shown: the player must act. */
const RENOTIFY = ["turn", "reminder"];
const ICON = "/ui/icons/icon-192.png";

/**
 * The address a push opens: its `url` when it is of this origin, else the game's page
 * here (a payload cannot send the person elsewhere), else the lobby.
 * @param {Payload | null} payload
 * @param {string} origin this service's, e.g. "https://yokai.example"
 * @returns {string}
 */
export function targetOf(payload, origin) {
  const game = typeof payload?.game_id === "string" ? payload.game_id : null;
  const fallback = `${origin}/${game ? `#/game/${encodeURIComponent(game)}` : ""}`;
  if (typeof payload?.url !== "string") return fallback;
  try {
    const url = new URL(payload.url, origin);
    return url.origin === origin ? url.href : fallback;
  } catch {
    return fallback;
  }
}

/**
 * The notification of a push: its title and body from the catalogue of `lang` (that of
 * ui/i18n/<lang>.json: "notify.<type>.title", "notify.<type>.body"), tagged with the game
 * so that one game has one notification, the newest replacing the older.
 * @param {Payload | null} payload
 * @param {Record<string, string>} messages the catalogue ({} when none could be read)
 * @param {string} lang
 * @param {string} origin
 * @returns {Shown}
 */
export function notificationFor(payload, messages, lang, origin) {
  const type = KINDS.includes(String(payload?.type)) ? String(payload?.type) : "other";
  const game = typeof payload?.game_id === "string" ? payload.game_id : null;
  const params = { game: game ? game.slice(0, 8) : "" };
  const text = (/** @type {string} */ key, /** @type {string} */ otherwise) =>
    fillTemplate(messages[key] ?? otherwise, params);
  return {
    title: text(`notify.${type}.title`, "Yokai Septet"),
    options: {
      body: text(`notify.${type}.body`, ""),
      tag: game || "yokai",
      renotify: RENOTIFY.includes(type),
      lang,
      icon: ICON,
      badge: ICON,
      data: { url: targetOf(payload, origin), game_id: game, type },
    },
  };
}

/**
 * Which open window a click opens the game in, given their addresses: one showing it
 * already (focused as it is), else one of this client (focused and sent there); null:
 * a new window.
 * @param {readonly string[]} urls the open windows' addresses
 * @param {string} target the game's address (targetOf)
 * @returns {{at: number, navigate: boolean} | null}
 */
export function windowFor(urls, target) {
  const showing = urls.indexOf(target);
  if (showing >= 0) return { at: showing, navigate: false };
  const origin = new URL(target).origin;
  const ours = urls.findIndex((url) => {
    const open = new URL(url);
    return open.origin === origin && open.pathname === "/";
  });
  return ours >= 0 ? { at: ours, navigate: true } : null;
}

/** Where the page keeps its language for the worker (Cache Storage, which both can read:
 * a worker has no localStorage): the language as the text of a response. */
export const KEPT = { cache: "yokai-notify", language: "/sw/language" };
