// Turn notifications' state (docs/api.md "Turn notifications"), pure: the server's key
// as PushManager.subscribe takes it, the settings form read into a PATCH of what
// changed, and what the page says of the e-mail address.

/**
 * The player's notification settings (GET /v1/me/notifications).
 * @typedef {object} NotificationSettings
 * @property {boolean} push
 * @property {boolean} mail
 * @property {{address: string, verified: boolean} | null} email
 * @property {"off" | "hourly" | "daily"} digest
 * @property {number | null} reminder_minutes
 */

export const DIGESTS = ["off", "hourly", "daily"];
export const REMINDER_MAX = 1440;

/** A base64url text (the VAPID public key of GET /v1/push/key) as its bytes.
 * @param {string} text
 * @returns {Uint8Array<ArrayBuffer>} */
export function bytesOf(text) {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4);
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

/** The reminder field: empty is none (null), else a whole number of minutes from 1 to
 * REMINDER_MAX; anything else is refused (undefined).
 * @param {string} text
 * @returns {number | null | undefined} */
export function reminderOf(text) {
  const trimmed = text.trim();
  if (trimmed === "") return null;
  if (!/^\d+$/.test(trimmed)) return undefined;
  const minutes = Number(trimmed);
  return minutes >= 1 && minutes <= REMINDER_MAX ? minutes : undefined;
}

/**
 * What the form changes of the settings, as the body of PATCH /v1/me/notifications
 * (empty: nothing to send); null when the reminder is not a valid one.
 * @param {NotificationSettings} before
 * @param {{push: boolean, mail: boolean, digest: string, reminder: string}} form
 * @returns {Partial<NotificationSettings> | null}
 */
export function settingsPatch(before, form) {
  const reminder = reminderOf(form.reminder);
  if (reminder === undefined || !DIGESTS.includes(form.digest)) return null;
  const wanted = {
    push: form.push,
    mail: form.mail,
    digest: /** @type {NotificationSettings["digest"]} */ (form.digest),
    reminder_minutes: reminder,
  };
  /** @type {Partial<NotificationSettings>} */
  const patch = {};
  for (const [key, value] of Object.entries(wanted)) {
    if (before[/** @type {keyof typeof wanted} */ (key)] !== value) Object.assign(patch, { [key]: value });
  }
  return patch;
}

/** What the page says of the address: none yet, not verified (no mail goes to it), or
 * verified: the key of its message.
 * @param {NotificationSettings["email"]} email
 * @returns {"email_none" | "email_unverified" | "email_verified"} */
export function emailState(email) {
  if (!email) return "email_none";
  return email.verified ? "email_verified" : "email_unverified";
}

/** Whether a subscription's key (an ArrayBuffer, or none) is `key`.
 * @param {ArrayBuffer | null} had
 * @param {Uint8Array} key */
export function sameBytes(had, key) {
  if (!had) return false;
  const bytes = new Uint8Array(had);
  return bytes.length === key.length && bytes.every((b, i) => b === key[i]);
}
