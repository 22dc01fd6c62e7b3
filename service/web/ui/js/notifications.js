// Turn notifications in the client (docs/api.md "Turn notifications"): the "Notify me"
// button (the lobby's "You" panel and the settings page), which alone asks the browser's
// permission, and the settings page (#/notifications): push and mail on or off, the
// e-mail address and its code, the digest, the reminder, and the browsers subscribed.
// What it computes is state/notify.js's; the browser's push machinery, notify/push.js's.

import { del, get, patch, post } from "./api.js";
import { fill, h } from "./dom.js";
import { formatTime, t } from "./i18n.js";
import { player } from "./player.js";
import { problemBox, refusalOf } from "./problem.js";
import { DIGESTS, REMINDER_MAX, emailState, settingsPatch } from "./state/notify.js";
import { currentSubscription, pushSupported, subscribe } from "./notify/push.js";

/** @typedef {import("./state/notify.js").NotificationSettings} NotificationSettings */
/** @typedef {{id: string, endpoint: string, created_at: string}} Subscription */

/** "Notify me", for this browser's player; null where the browser cannot be pushed to
 * or holds no player. Pressing it asks permission; loading it never does. */
export function notifyMe() {
  const who = player();
  if (!who || !pushSupported()) return null;
  const out = h("div", { class: "notify-out", "aria-live": "polite" });
  const on = () => h("p", { class: "notice", id: "notify-on", role: "status" }, t("notify_on"));
  currentSubscription()
    .then((found) => {
      if (found && Notification.permission === "granted" && !out.firstChild) fill(out, on());
    })
    .catch(() => {});
  const button = h(
    "button",
    {
      type: "button",
      id: "notify-me",
      onclick: async () => {
        button.disabled = true;
        fill(out);
        try {
          const permission = await subscribe(who.token);
          fill(out, permission === "granted" ? on() : h("p", { class: "notice", id: "notify-denied", role: "alert" }, t("notify_denied")));
        } catch (err) {
          fill(out, problemBox(refusalOf(err)));
        } finally {
          button.disabled = false;
        }
      },
    },
    t("notify_me"),
  );
  return h("div", { class: "notify-me", id: "notify-me-box" }, h("p", {}, t("notify_me_text")), button, out);
}

/**
 * The settings page in `main`; returns what leaving it does.
 * @param {HTMLElement} main
 * @returns {() => void}
 */
export function notificationsPage(main) {
  const leaving = new AbortController();
  const who = player();
  const title = h("h1", {}, t("notifications_title"));
  if (!who) {
    fill(main, title, h("p", { id: "notifications-sign-in" }, t("notifications_sign_in"), " ", h("a", { href: "#/" }, t("nav_lobby"))));
    return () => {};
  }
  const options = { token: who.token, signal: leaving.signal };
  const settingsSlot = h("div", {}, h("p", { class: "loading" }, t("loading")));
  const emailSlot = h("div");
  const browsers = h("ul", { class: "subscriptions", id: "push-subscriptions" });
  const browsersOut = h("div");

  /** Shown what the page was refused, unless it was left. @param {HTMLElement} where @param {unknown} err */
  const refused = (where, err) => {
    if (!leaving.signal.aborted) fill(where, problemBox(refusalOf(err)));
  };

  async function load() {
    try {
      /** @type {NotificationSettings} */
      const settings = await get("/v1/me/notifications", options);
      fill(settingsSlot, settingsForm(settings, options, (next) => showEmail(next)));
      showEmail(settings);
    } catch (err) {
      refused(settingsSlot, err);
    }
  }

  /** The e-mail section as the settings say, with what was just done said under it.
   * @param {NotificationSettings} settings @param {Child} [said] */
  function showEmail(settings, said = null) {
    fill(emailSlot, emailSection(settings, options, reloadEmail, said));
  }

  /** @param {Child} said */
  async function reloadEmail(said) {
    showEmail(await get("/v1/me/notifications", options), said);
  }

  async function loadBrowsers() {
    try {
      /** @type {Subscription[]} */
      const found = [];
      /** @type {string | null} */
      let cursor = null;
      do {
        const query = cursor ? `?cursor=${encodeURIComponent(cursor)}` : "";
        /** @type {{subscriptions: Subscription[], next_cursor?: string | null}} */
        const page = await get(`/v1/me/push-subscriptions${query}`, options);
        found.push(...page.subscriptions);
        cursor = page.next_cursor ?? null;
      } while (cursor);
      fill(browsers, found.length ? found.map(browserItem) : h("li", { class: "none" }, t("subscriptions_none")));
    } catch (err) {
      refused(browsersOut, err);
    }
  }

  /** @param {Subscription} subscription */
  function browserItem(subscription) {
    const remove = h(
      "button",
      {
        type: "button",
        class: "quiet",
        dataset: { id: subscription.id },
        "aria-label": t("subscription_delete_named", { host: hostOf(subscription.endpoint) }),
        onclick: async () => {
          remove.disabled = true;
          fill(browsersOut);
          try {
            await del(`/v1/me/push-subscriptions/${encodeURIComponent(subscription.id)}`, options);
            await loadBrowsers();
          } catch (err) {
            remove.disabled = false;
            refused(browsersOut, err);
          }
        },
      },
      t("subscription_delete"),
    );
    return h(
      "li",
      { dataset: { id: subscription.id } },
      h("span", { class: "host" }, hostOf(subscription.endpoint)),
      " ",
      h("span", { class: "since" }, t("subscription_since", { time: formatTime(subscription.created_at) })),
      " ",
      remove,
    );
  }

  fill(
    main,
    h(
      "div",
      { class: "notifications" },
      title,
      h("p", { class: "intro" }, t("notifications_intro")),
      h("section", { class: "panel", "aria-labelledby": "this-browser-title" }, h("h2", { id: "this-browser-title" }, t("this_browser_title")), notifyMe() || h("p", {}, t("notify_unsupported"))),
      h("section", { class: "panel", "aria-labelledby": "settings-title" }, h("h2", { id: "settings-title" }, t("notification_settings_title")), settingsSlot),
      h("section", { class: "panel", "aria-labelledby": "email-title" }, h("h2", { id: "email-title" }, t("email_title")), emailSlot),
      h("section", { class: "panel", "aria-labelledby": "subscriptions-title" }, h("h2", { id: "subscriptions-title" }, t("subscriptions_title")), browsers, browsersOut),
    ),
  );
  load();
  loadBrowsers();
  return () => leaving.abort();
}

/** A push service's host (the endpoint itself is a secret of the browser's). @param {string} endpoint */
function hostOf(endpoint) {
  try {
    return new URL(endpoint).host;
  } catch {
    return "?";
  }
}

/**
 * Push, mail, digest and reminder, saved together (a PATCH of what changed).
 * @param {NotificationSettings} settings
 * @param {{token: string, signal: AbortSignal}} options
 * @param {(settings: NotificationSettings) => void} saved
 */
function settingsForm(settings, options, saved) {
  let known = settings;
  const push = h("input", { type: "checkbox", id: "notify-push", name: "push", checked: settings.push });
  const mail = h("input", { type: "checkbox", id: "notify-mail", name: "mail", checked: settings.mail });
  const digest = h(
    "select",
    { id: "notify-digest", name: "digest" },
    DIGESTS.map((d) => h("option", { value: d, selected: d === settings.digest }, t(`digest.${d}`))),
  );
  const reminder = h("input", {
    id: "notify-reminder",
    name: "reminder",
    inputmode: "numeric",
    autocomplete: "off",
    size: 5,
    "aria-describedby": "notify-reminder-hint",
    value: settings.reminder_minutes === null ? "" : String(settings.reminder_minutes),
  });
  const out = h("div", { "aria-live": "polite" });
  return h(
    "form",
    {
      id: "notify-settings",
      onsubmit: async (/** @type {SubmitEvent} */ e) => {
        e.preventDefault();
        const button = /** @type {HTMLFormElement} */ (e.target).querySelector("button");
        const body = settingsPatch(known, { push: push.checked, mail: mail.checked, digest: digest.value, reminder: reminder.value });
        if (body === null) {
          fill(out, h("p", { class: "problem", role: "alert", id: "notify-reminder-invalid" }, t("reminder_invalid", { max: REMINDER_MAX })));
          return;
        }
        fill(out);
        if (button) button.disabled = true;
        try {
          if (Object.keys(body).length) known = await patch("/v1/me/notifications", body, options);
          saved(known);
          fill(out, h("p", { class: "notice", id: "notify-saved", role: "status" }, t("settings_saved")));
        } catch (err) {
          if (!options.signal.aborted) fill(out, problemBox(refusalOf(err)));
        } finally {
          if (button) button.disabled = false;
        }
      },
    },
    h("p", {}, h("label", { class: "check" }, push, " ", t("notify_push"))),
    h("p", {}, h("label", { class: "check" }, mail, " ", t("notify_mail"))),
    h("p", { class: "field" }, h("label", { for: "notify-digest" }, t("notify_digest")), digest),
    h(
      "p",
      { class: "field" },
      h("label", { for: "notify-reminder" }, t("notify_reminder")),
      reminder,
      h("span", { id: "notify-reminder-hint" }, t("notify_reminder_hint", { max: REMINDER_MAX })),
    ),
    h("p", {}, h("button", { type: "submit", class: "primary" }, t("save"))),
    out,
  );
}

/**
 * The address, whether it is verified, "Send a code" and the code to verify it.
 * @param {NotificationSettings} settings
 * @param {{token: string, signal: AbortSignal}} options
 * @param {(said: Child) => Promise<void>} reload the section drawn again, `said` under it
 * @param {Child} said what the last action did
 */
function emailSection(settings, options, reload, said) {
  const state = emailState(settings.email);
  const address = h("input", {
    type: "email",
    id: "email-address",
    name: "address",
    required: true,
    autocomplete: "email",
    value: settings.email?.address ?? "",
  });
  const code = h("input", {
    id: "email-code",
    name: "code",
    required: true,
    inputmode: "numeric",
    autocomplete: "one-time-code",
    maxlength: 6,
    size: 8,
  });
  const out = h("div", { "aria-live": "polite" }, said);
  /** @param {SubmitEvent} e @param {() => Promise<Child>} work */
  async function act(e, work) {
    e.preventDefault();
    const button = /** @type {HTMLFormElement} */ (e.target).querySelector("button");
    fill(out);
    if (button) button.disabled = true;
    try {
      await reload(await work());
    } catch (err) {
      if (!options.signal.aborted) fill(out, problemBox(refusalOf(err)));
    } finally {
      if (button) button.disabled = false;
    }
  }
  return h(
    "div",
    { class: "email" },
    h("p", { id: "email-state", dataset: { state: state.replace("email_", "") } }, t(state, { address: settings.email?.address ?? "" })),
    h(
      "form",
      {
        id: "email-form",
        onsubmit: (/** @type {SubmitEvent} */ e) =>
          act(e, async () => {
            const sent = address.value.trim();
            await post("/v1/me/email", { address: sent }, options);
            return h("p", { class: "notice", id: "email-code-sent", role: "status" }, t("email_code_sent", { address: sent }));
          }),
      },
      h("label", { for: "email-address" }, t("email_address")),
      " ",
      address,
      " ",
      h("button", { type: "submit" }, t("email_send_code")),
    ),
    settings.email &&
      !settings.email.verified &&
      h(
        "form",
        {
          id: "email-verify-form",
          onsubmit: (/** @type {SubmitEvent} */ e) =>
            act(e, async () => {
              await post("/v1/me/email/verify", { code: code.value.trim() }, options);
              return h("p", { class: "notice", id: "email-verified-now", role: "status" }, t("email_verified_now"));
            }),
        },
        h("label", { for: "email-code" }, t("email_code")),
        " ",
        code,
        " ",
        h("button", { type: "submit" }, t("email_verify")),
      ),
    out,
  );
}

/** @typedef {import("./dom.js").Child} Child */
