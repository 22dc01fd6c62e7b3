// This browser's side of Web Push (docs/api.md "Turn notifications"): the service
// worker's registration (which asks nothing of the person), the page's language kept
// where the worker reads it, and the subscription made when "Notify me" is pressed:
// permission, then PushManager.subscribe with the service's key, then the subscription
// sent to the service. Nothing here runs the permission prompt but subscribe().

import { get, post } from "../api.js";
import { bytesOf, sameBytes } from "../state/notify.js";
import { KEPT } from "./payload.js";

/** Whether this browser can be pushed to (a service worker, PushManager, notifications). */
export function pushSupported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

/** Register the service worker (/sw.js, scope "/"): shows nothing and asks nothing. Null
 * where the browser has none (or the page is not a secure context). */
export async function registerWorker() {
  if (!("serviceWorker" in navigator)) return null;
  return navigator.serviceWorker.register("/sw.js", { type: "module", scope: "/" });
}

/** Keep the page's language where the service worker reads it for its notifications.
 * @param {string} lang */
export async function keepLanguage(lang) {
  if (!("caches" in window)) return;
  const store = await caches.open(KEPT.cache);
  await store.put(KEPT.language, new Response(lang, { headers: { "Content-Type": "text/plain" } }));
}

/** This browser's push subscription, if it has one (asks nothing). */
export async function currentSubscription() {
  if (!pushSupported()) return null;
  const registration = await navigator.serviceWorker.getRegistration("/");
  return registration ? registration.pushManager.getSubscription() : null;
}

/**
 * "Notify me": ask permission (the only place that does), subscribe this browser with
 * the service's key and send the subscription to the service for `token`'s player.
 * Resolves to the permission: anything but "granted" subscribed nothing.
 * @param {string} token the player's
 * @returns {Promise<NotificationPermission>}
 */
export async function subscribe(token) {
  const permission = await Notification.requestPermission();
  if (permission !== "granted") return permission;
  await registerWorker();
  const registration = await navigator.serviceWorker.ready;
  /** @type {{public_key: string}} */
  const { public_key: publicKey } = await get("/v1/push/key");
  const key = bytesOf(publicKey);
  // A subscription made with another key (the service's changed) cannot be reused.
  const existing = await registration.pushManager.getSubscription();
  if (existing && !sameBytes(existing.options.applicationServerKey, key)) await existing.unsubscribe();
  const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  await post("/v1/me/push-subscriptions", subscription.toJSON(), { token });
  return permission;
}
