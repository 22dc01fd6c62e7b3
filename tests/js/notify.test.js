// Turn notifications in the client: what the service worker shows for a push
// (notify/payload.js, which /sw.js imports), which window a click opens, and the settings
// page's state (state/notify.js): the server's key, the form's PATCH, the address.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { LANGUAGES, fillTemplate, pickLanguage } from "../../service/web/ui/js/languages.js";
import { KINDS, notificationFor, targetOf, windowFor } from "../../service/web/ui/js/notify/payload.js";
import { bytesOf, emailState, reminderOf, sameBytes, settingsPatch } from "../../service/web/ui/js/state/notify.js";

const ORIGIN = "https://yokai.example";
const GAME = "0b5e6c1a-93f2-4d0e-a2b7-5f1c8e9d0a11";

/** @param {string} lang @returns {Record<string, string>} */
const catalogue = (lang) => JSON.parse(readFileSync(new URL(`../../service/web/ui/i18n/${lang}.json`, import.meta.url), "utf8"));

/** @param {string} type */
const push = (type) => ({ type, game_id: GAME, version: 12, url: `${ORIGIN}/#/game/${GAME}` });

test("a push shows its kind's title and body in the page's language, naming the game", () => {
  for (const lang of LANGUAGES) {
    const messages = catalogue(lang);
    for (const type of KINDS) {
      const { title, options } = notificationFor(push(type), messages, lang, ORIGIN);
      assert.equal(title, messages[`notify.${type}.title`], `${lang} ${type}`);
      assert.ok(title.trim());
      assert.equal(options.body, fillTemplate(messages[`notify.${type}.body`], { game: GAME.slice(0, 8) }));
      assert.ok(options.body.includes(GAME.slice(0, 8)), `${lang} ${type}: ${options.body}`);
      assert.equal(options.lang, lang);
    }
  }
  assert.notEqual(notificationFor(push("turn"), catalogue("fr"), "fr", ORIGIN).title, notificationFor(push("turn"), catalogue("en"), "en", ORIGIN).title);
});

test("one notification per game: tagged with the game; turns and reminders ring again, the others do not", () => {
  const shown = Object.fromEntries(KINDS.map((type) => [type, notificationFor(push(type), {}, "en", ORIGIN).options]));
  for (const type of KINDS) assert.equal(shown[type].tag, GAME);
  assert.deepEqual(
    KINDS.filter((type) => shown[type].renotify),
    ["turn", "reminder"],
  );
  assert.deepEqual(shown.turn.data, { url: `${ORIGIN}/#/game/${GAME}`, game_id: GAME, type: "turn" });
});

test("a push of an unknown kind, or with no payload, still shows something (a push must be shown)", () => {
  const odd = notificationFor({ type: "party", game_id: GAME }, catalogue("de"), "de", ORIGIN);
  assert.equal(odd.title, catalogue("de")["notify.other.title"]);
  assert.equal(odd.options.renotify, false);
  assert.equal(odd.options.data.url, `${ORIGIN}/#/game/${GAME}`);
  const empty = notificationFor(null, {}, "en", ORIGIN);
  assert.equal(empty.title, "Yokai Septet");
  assert.equal(empty.options.tag, "yokai");
  assert.equal(empty.options.data.url, `${ORIGIN}/`);
});

test("a push opens a page of this origin only: another origin's url becomes the game's page here", () => {
  assert.equal(targetOf({ game_id: GAME, url: `${ORIGIN}/#/game/${GAME}` }, ORIGIN), `${ORIGIN}/#/game/${GAME}`);
  assert.equal(targetOf({ game_id: GAME, url: `/#/game/${GAME}` }, ORIGIN), `${ORIGIN}/#/game/${GAME}`);
  assert.equal(targetOf({ game_id: GAME, url: `https://evil.example/#/game/${GAME}` }, ORIGIN), `${ORIGIN}/#/game/${GAME}`);
  assert.equal(targetOf({ game_id: GAME, url: "javascript:alert(1)" }, ORIGIN), `${ORIGIN}/#/game/${GAME}`);
  assert.equal(targetOf({ game_id: GAME }, ORIGIN), `${ORIGIN}/#/game/${GAME}`);
  assert.equal(targetOf({ url: "http://[bad" }, ORIGIN), `${ORIGIN}/`);
});

test("a click focuses the window showing the game, else sends one of ours there, else opens one", () => {
  const target = `${ORIGIN}/#/game/${GAME}`;
  const lobby = `${ORIGIN}/#/`;
  assert.deepEqual(windowFor(["https://other.example/", lobby, target], target), { at: 2, navigate: false });
  assert.deepEqual(windowFor(["https://other.example/", `${ORIGIN}/reference`, lobby], target), { at: 2, navigate: true });
  assert.equal(windowFor(["https://other.example/", `${ORIGIN}/reference`], target), null);
  assert.equal(windowFor([], target), null);
});

test("the worker's language: the first of the browser's that we have, else English", () => {
  assert.equal(pickLanguage(["fr-CA", "en"]), "fr");
  assert.equal(pickLanguage(["es-ES", "DE"]), "de");
  assert.equal(pickLanguage(["zh-Hans-CN"]), "zh");
  assert.equal(pickLanguage(["es"]), "en");
  assert.equal(pickLanguage([]), "en");
  assert.equal(fillTemplate("{a} and {b}", { a: 1 }), "1 and {b}");
});

test("the server's key (base64url, unpadded) as the bytes PushManager.subscribe takes", () => {
  assert.deepEqual([...bytesOf("AQID-_8")], [1, 2, 3, 0xfb, 0xff]);
  const key = new Uint8Array(65).map((_, i) => (i * 37) % 256);
  const text = Buffer.from(key).toString("base64url");
  assert.deepEqual(bytesOf(text), key);
  assert.ok(sameBytes(key.buffer, bytesOf(text)));
  assert.ok(!sameBytes(new Uint8Array(65).buffer, key));
  assert.ok(!sameBytes(null, key));
});

test("the reminder: empty is none, else whole minutes from 1 to 1440", () => {
  assert.equal(reminderOf(""), null);
  assert.equal(reminderOf("  "), null);
  assert.equal(reminderOf(" 15 "), 15);
  assert.equal(reminderOf("1"), 1);
  assert.equal(reminderOf("1440"), 1440);
  for (const bad of ["0", "1441", "2.5", "-3", "ten", "1e2"]) assert.equal(reminderOf(bad), undefined, bad);
});

test("the settings form is saved as a PATCH of what changed; a bad reminder sends nothing", () => {
  /** @type {import("../../service/web/ui/js/state/notify.js").NotificationSettings} */
  const before = { push: true, mail: true, email: null, digest: "off", reminder_minutes: null };
  const same = { push: true, mail: true, digest: "off", reminder: "" };
  assert.deepEqual(settingsPatch(before, same), {});
  assert.deepEqual(settingsPatch(before, { ...same, push: false }), { push: false });
  assert.deepEqual(settingsPatch(before, { ...same, mail: false, digest: "daily", reminder: "30" }), { mail: false, digest: "daily", reminder_minutes: 30 });
  assert.deepEqual(settingsPatch({ ...before, reminder_minutes: 30 }, same), { reminder_minutes: null });
  assert.equal(settingsPatch(before, { ...same, reminder: "0" }), null);
  assert.equal(settingsPatch(before, { ...same, digest: "weekly" }), null);
});

test("the address: none, not verified, verified", () => {
  assert.equal(emailState(null), "email_none");
  assert.equal(emailState({ address: "a@example.org", verified: false }), "email_unverified");
  assert.equal(emailState({ address: "a@example.org", verified: true }), "email_verified");
  for (const lang of LANGUAGES) {
    for (const key of ["email_none", "email_unverified", "email_verified"]) assert.ok(catalogue(lang)[key], `${lang} ${key}`);
  }
});
