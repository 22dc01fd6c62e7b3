"""Issue 45: the web client installs on a home screen and asks to notify only when asked,
in headless Chromium against a real `yokai serve`.

The manifest is linked, Chromium parses it (DevTools' Page.getAppManifest) with the right
fields, and its icons load; the service worker registers and becomes active with scope
"/", and a push delivered to it (DevTools' ServiceWorker.deliverPushMessage: a real
PushManager.subscribe needs the browser vendor's push service, which a test machine
cannot reach) shows the game's notification in the page's language; "Notify me" asks
nothing at load, is absent without a player or without PushManager, and says what to do
when notifications are blocked. Every wait is Playwright's with a deadline.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from tests.browser.conftest import Served, assert_accessible
from tests.browser.test_ratings_ui import Pages, _expect, _player, pages

__all__ = ["pages"]  # the fixture

pytestmark = pytest.mark.browser

WAIT = 30_000  # ms
GAME = "0b5e6c1a-93f2-4d0e-a2b7-5f1c8e9d0a11"
# Counts the page's permission requests: a page that asks at load is caught even where
# headless Chromium answers the prompt by itself.
COUNT_ASKS = """
window.__asked = 0;
if (window.Notification) {
  const ask = Notification.requestPermission.bind(Notification);
  Notification.requestPermission = (...args) => { window.__asked += 1; return ask(...args); };
}
"""


def _eventually(page: Any, check: str) -> Any:
    """The first truthy answer of ``check`` (an async function's source) in the page,
    asked again until WAIT has passed (then null). Playwright's wait_for_function takes
    no promise, and the page's CSP forbids evaluating a string inside it."""
    return page.evaluate(
        f"""async () => {{
              const check = {check};
              const end = Date.now() + {WAIT};
              while (Date.now() < end) {{
                const found = await check();
                if (found) return found;
                await new Promise(resolve => setTimeout(resolve, 50));
              }}
              return null;
            }}"""
    )


def _with_script(page: Any, script: str) -> Any:
    page.context.add_init_script(script)
    page.reload()
    return page


def test_the_manifest_is_linked_parsed_and_its_icons_load(pages: Pages, served: Served) -> None:
    page: Any = pages.open()
    href = page.locator('link[rel="manifest"]').get_attribute("href")
    assert href == "/manifest.webmanifest"
    cdp = page.context.new_cdp_session(page)
    found = cdp.send("Page.getAppManifest")
    assert found["url"] == f"{served.base}/manifest.webmanifest"
    assert found["errors"] == [], found["errors"]
    manifest = json.loads(found["data"])
    assert manifest["name"] == "Yokai Septet"
    assert (manifest["start_url"], manifest["display"]) == ("/", "standalone")
    assert manifest["theme_color"] == "#7a2e1d"
    assert manifest["background_color"] == "#f4f1ea"
    for icon in manifest["icons"]:
        size = page.evaluate(
            """src => new Promise((resolve, reject) => {
                 const img = new Image();
                 img.onload = () => resolve(`${img.naturalWidth}x${img.naturalHeight}`);
                 img.onerror = () => reject(new Error(src));
                 img.src = src;
               })""",
            icon["src"],
        )
        assert size == icon["sizes"], icon
    assert {i["purpose"] for i in manifest["icons"]} == {"any", "maskable"}
    assert page.errors == []


def test_the_service_worker_is_active_with_scope_root_and_shows_a_push(
    pages: Pages, served: Served
) -> None:
    page: Any = pages.open()
    page.context.grant_permissions(["notifications"], origin=served.base)
    registration = page.evaluate(
        """async () => {
             const r = await navigator.serviceWorker.ready;
             return {scope: r.scope, script: r.active.scriptURL};
           }"""
    )
    assert registration == {"scope": f"{served.base}/", "script": f"{served.base}/sw.js"}
    assert _eventually(
        page, "() => navigator.serviceWorker.ready.then(r => r.active.state === 'activated')"
    )
    # The page's language reaches the worker: a French page, a French notification.
    page.select_option("#lang", "fr")
    page.wait_for_function("() => document.documentElement.lang === 'fr'", timeout=WAIT)
    assert _eventually(
        page,
        "() => caches.open('yokai-notify').then(c => c.match('/sw/language'))"
        ".then(r => r && r.text()).then(t => t === 'fr')",
    )

    cdp = page.context.new_cdp_session(page)
    workers: list[dict[str, Any]] = []
    cdp.on("ServiceWorker.workerRegistrationUpdated", lambda e: workers.extend(e["registrations"]))
    cdp.send("ServiceWorker.enable")
    # The registrations come as events, heard while Playwright waits on the page.
    deadline = time.monotonic() + WAIT / 1000
    ours: list[dict[str, Any]] = []
    while not ours and time.monotonic() < deadline:
        page.evaluate("() => new Promise(resolve => setTimeout(resolve, 50))")
        ours = [w for w in workers if w["scopeURL"] == f"{served.base}/"]
    assert ours, workers
    payload = {"type": "turn", "game_id": GAME, "version": 7, "url": f"{served.base}/#/game/{GAME}"}
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {
            "origin": served.base,
            "registrationId": ours[0]["registrationId"],
            "data": json.dumps(payload),
        },
    )
    shown = _eventually(
        page,
        """() => navigator.serviceWorker.ready.then(r => r.getNotifications()).then(([n]) =>
             n && {title: n.title, body: n.body, tag: n.tag, lang: n.lang, data: n.data})""",
    )
    assert shown["title"] == "À vous de jouer"
    assert GAME[:8] in shown["body"]
    assert shown["tag"] == GAME
    assert shown["lang"] == "fr"
    assert shown["data"] == {"url": f"{served.base}/#/game/{GAME}", "game_id": GAME, "type": "turn"}
    assert page.errors == []


def test_notify_me_asks_nothing_at_load_and_says_so_when_blocked(
    pages: Pages, served: Served
) -> None:
    expect = _expect()
    page: Any = _with_script(pages.open(_player(served, "Mio Push")), COUNT_ASKS)
    button = page.get_by_role("button", name="Notify me")
    expect(button).to_be_visible(timeout=WAIT)
    assert _eventually(page, "() => navigator.serviceWorker.ready.then(r => Boolean(r.active))")
    assert page.evaluate("[window.__asked, Notification.permission]") == [0, "default"]

    cdp = page.context.new_cdp_session(page)
    cdp.send(
        "Browser.setPermission",
        {"permission": {"name": "notifications"}, "setting": "denied", "origin": served.base},
    )
    button.click()
    denied = page.locator("#notify-denied")
    expect(denied).to_be_visible(timeout=WAIT)
    expect(denied).to_contain_text("blocks notifications")
    assert page.evaluate("window.__asked") == 1
    assert page.errors == []


def test_notify_me_is_absent_without_a_player_or_without_push(pages: Pages, served: Served) -> None:
    expect = _expect()
    nobody: Any = pages.open()
    expect(nobody.get_by_role("button", name="Start")).to_be_visible(timeout=WAIT)
    expect(nobody.locator("#notify-me")).to_have_count(0)

    who = _player(served, "Ren Push")
    no_push: Any = _with_script(pages.open(who), "delete window.PushManager;")
    expect(no_push.locator("#me-name")).to_be_visible(timeout=WAIT)
    expect(no_push.locator("#notify-me")).to_have_count(0)
    expect(no_push.locator("#notifications-link")).to_be_visible()
    assert nobody.errors == [] and no_push.errors == []


class FakeSettings:
    """The endpoints of API.md Part 4 the settings page calls, answered in the browser
    (Playwright's routing) as the contract says, recording what the page sent. The page
    against the real service: test_notification_settings_ui.py."""

    CODE = "424242"

    def __init__(self, token: str) -> None:
        self.token = token
        self.settings: dict[str, Any] = {
            "push": True,
            "mail": True,
            "email": None,
            "digest": "off",
            "reminder_minutes": None,
        }
        self.subscriptions = [
            {
                "id": "s1",
                "endpoint": "https://push.example/send/abc",
                "created_at": "2026-11-28T09:00:00Z",
            }
        ]
        self.sent: list[tuple[str, str, Any]] = []

    def answer(self, route: Any) -> None:
        request = route.request
        path = request.url.split("/v1/", 1)[1].split("?")[0]
        body: Any = request.post_data_json if request.post_data else None
        self.sent.append((request.method, path, body))
        if request.headers.get("authorization") != f"Bearer {self.token}":
            self._problem(route, 401, "unauthorized", "Unauthorized")
        elif (request.method, path) == ("GET", "me/notifications"):
            route.fulfill(json=self.settings)
        elif (request.method, path) == ("PATCH", "me/notifications"):
            self.settings.update(body)
            route.fulfill(json=self.settings)
        elif (request.method, path) == ("POST", "me/email"):
            self.settings["email"] = {"address": body["address"], "verified": False}
            route.fulfill(status=202, json={"address": body["address"]})
        elif (request.method, path) == ("POST", "me/email/verify"):
            if body["code"] != self.CODE:
                self._problem(route, 422, "wrong_code", "That is not the code we sent")
                return
            self.settings["email"]["verified"] = True
            route.fulfill(json=self.settings)
        elif (request.method, path) == ("GET", "me/push-subscriptions"):
            route.fulfill(json={"subscriptions": self.subscriptions})
        elif request.method == "DELETE" and path.startswith("me/push-subscriptions/"):
            gone = path.rsplit("/", 1)[1]
            self.subscriptions = [s for s in self.subscriptions if s["id"] != gone]
            route.fulfill(status=204, body="")
        else:
            self._problem(route, 404, "not_found", "Not found")

    @staticmethod
    def _problem(route: Any, status: int, code: str, title: str) -> None:
        route.fulfill(
            status=status,
            content_type="application/problem+json",
            body=json.dumps(
                {"type": f"/problems/{code}", "title": title, "status": status, "code": code}
            ),
        )


def test_the_settings_page_sends_what_the_contract_says_and_shows_the_answers(
    pages: Pages, served: Served
) -> None:
    """Against answers of the contract's shape: each field saved (only what changed), a
    bad reminder refused before sending, the address's code, a refusal shown as a
    problem, a browser removed; axe-core clean."""
    expect = _expect()
    aiko = _player(served, "Aiko Settings")
    fake = FakeSettings(aiko["token"])
    page: Any = pages.open(aiko)
    page.route(
        lambda url: (
            "/v1/me/notifications" in url
            or "/v1/me/email" in url
            or "/v1/me/push-subscriptions" in url
        ),
        fake.answer,
    )
    page.get_by_role("link", name="Notification settings").click()
    expect(page.locator("#notify-settings")).to_be_visible(timeout=WAIT)
    expect(page.locator("#email-state")).to_have_attribute("data-state", "none")
    expect(page.locator('#push-subscriptions li[data-id="s1"]')).to_contain_text("push.example")
    assert_accessible(page, "the notification settings")

    page.locator("#notify-push").uncheck()
    page.locator("#notify-digest").select_option("daily")
    page.locator("#notify-reminder").fill("30")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#notify-saved")).to_be_visible(timeout=WAIT)
    assert (
        "PATCH",
        "me/notifications",
        {"push": False, "digest": "daily", "reminder_minutes": 30},
    ) in fake.sent

    page.locator("#notify-reminder").fill("0")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#notify-reminder-invalid")).to_be_visible(timeout=WAIT)
    page.locator("#notify-reminder").fill("")
    page.locator("#notify-mail").uncheck()
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#notify-saved")).to_be_visible(timeout=WAIT)
    patches = [body for method, _, body in fake.sent if method == "PATCH"]
    assert patches[1:] == [{"mail": False, "reminder_minutes": None}]

    page.locator("#email-address").fill("aiko@example.org")
    page.get_by_role("button", name="Send a code").click()
    expect(page.locator("#email-code-sent")).to_contain_text("aiko@example.org", timeout=WAIT)
    expect(page.locator("#email-state")).to_have_attribute("data-state", "unverified")
    page.locator("#email-code").fill("000000")
    page.get_by_role("button", name="Verify").click()
    refused = page.locator('.email .problem[data-code="wrong_code"]')
    expect(refused).to_contain_text("That is not the code we sent", timeout=WAIT)
    page.locator("#email-code").fill(FakeSettings.CODE)
    page.get_by_role("button", name="Verify").click()
    expect(page.locator("#email-state")).to_have_attribute("data-state", "verified", timeout=WAIT)
    expect(page.locator("#email-state")).to_contain_text("aiko@example.org: verified.")
    expect(page.locator("#email-code")).to_have_count(0)
    assert_accessible(page, "the notification settings, verified")

    page.get_by_role("button", name="Remove the browser notified through push.example").click()
    expect(page.locator("#push-subscriptions .none")).to_be_visible(timeout=WAIT)
    assert ("DELETE", "me/push-subscriptions/s1", None) in fake.sent
    # The wrong code's 422 is logged by the browser: the only error.
    assert [e for e in page.errors if "status of 422" not in e] == []
