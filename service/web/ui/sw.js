// The web client's service worker, served at /sw.js so that its scope is the whole client
// ("/"), as an ES module (register(..., {type: "module"})). It shows the service's pushes
// (docs/api.md "Turn notifications") and opens the game a notification is about. It
// caches no page and handles no fetch: the client is always loaded from the service.
//
// What it makes of a push is js/notify/payload.js's (tested under node). It holds no
// token and asks the API nothing: a push says all it shows. The only files it reads are
// the message catalogue of the page's language (kept in Cache Storage by the page) and,
// when the service cannot be reached, the copy it kept of it.

import { pickLanguage } from "./ui/js/languages.js";
import { KEPT, notificationFor, targetOf, windowFor } from "./ui/js/notify/payload.js";

/** @type {any} */
const worker = self;

worker.addEventListener("install", () => worker.skipWaiting());
worker.addEventListener("activate", (/** @type {any} */ event) => event.waitUntil(worker.clients.claim()));

/** The page's language, as it kept it; else the browser's. */
async function language() {
  try {
    const kept = await (await caches.open(KEPT.cache)).match(KEPT.language);
    if (kept) return pickLanguage([await kept.text()]);
  } catch {
    // no Cache Storage: the browser's language
  }
  return pickLanguage(worker.navigator.languages || [worker.navigator.language || "en"]);
}

/** The catalogue of `lang`, read again (revalidated) and kept; the kept one offline. */
async function messages(/** @type {string} */ lang) {
  const path = `/ui/i18n/${lang}.json`;
  const store = await caches.open(KEPT.cache);
  try {
    const response = await fetch(path, { credentials: "omit" });
    if (response.ok) {
      await store.put(path, response.clone());
      return await response.json();
    }
  } catch {
    // offline: the copy kept below
  }
  const kept = await store.match(path);
  return kept ? kept.json() : {};
}

/** The push's payload, or null when it has none (or none we can read). */
function payloadOf(/** @type {any} */ event) {
  try {
    return event.data ? event.data.json() : null;
  } catch {
    return null;
  }
}

worker.addEventListener("push", (/** @type {any} */ event) => {
  const payload = payloadOf(event);
  event.waitUntil(
    (async () => {
      const lang = await language();
      const found = await messages(lang).catch(() => ({}));
      const { title, options } = notificationFor(payload, found, lang, worker.location.origin);
      await worker.registration.showNotification(title, options);
    })(),
  );
});

worker.addEventListener("notificationclick", (/** @type {any} */ event) => {
  event.notification.close();
  const data = event.notification.data || {};
  const target = data.url || targetOf(null, worker.location.origin);
  event.waitUntil(
    (async () => {
      const windows = await worker.clients.matchAll({ type: "window" });
      const choice = windowFor(
        windows.map((/** @type {any} */ w) => w.url),
        target,
      );
      if (!choice) return worker.clients.openWindow(target);
      // Focused first: a worker may focus a window only just after the click.
      const chosen = await windows[choice.at].focus();
      if (choice.navigate) await chosen.navigate(target);
    })(),
  );
});
