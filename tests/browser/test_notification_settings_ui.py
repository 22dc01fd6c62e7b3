"""Issue 45: the notification settings page (#/notifications) in headless Chromium
against a real `yokai serve` whose mail goes to a real SMTP server (aiosmtpd) on
loopback.

Each field is saved and read back over HTTP (push, mail, digest, reminder; a reminder out
of 1-1440 is refused by the page, sending nothing); an address gets its code by mail, a
wrong code is refused with the problem shown, the right one makes it verified; a
subscription of the player's is listed and removed. axe-core finds nothing serious.

It needs the endpoints of API.md Part 4 (GET/PATCH /v1/me/notifications, /v1/me/email,
/v1/me/push-subscriptions): skipped until the OpenAPI document has them.
"""

from __future__ import annotations

import base64
import email
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from tests.browser.conftest import Served, assert_accessible
from tests.browser.test_ratings_ui import Pages, _expect, _player
from tests.support.ports import free_port
from tests.support.serve import serving

ROOT = Path(__file__).resolve().parents[2]
HAS_SETTINGS = "/v1/me/notifications:" in (ROOT / "openapi" / "openapi.yaml").read_text()

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not HAS_SETTINGS, reason="the service has no /v1/me/notifications yet (issue 45)"
    ),
]

WAIT = 30_000  # ms


class Inbox:
    """aiosmtpd's handler: keeps each message, and wakes whoever waits for one."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.messages: list[email.message.Message] = []
        self.arrived = threading.Condition()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # aiosmtpd's name
        with self.arrived:
            self.messages.append(email.message_from_bytes(envelope.content))
            self.arrived.notify_all()
        return "250 OK"

    def code_sent_to(self, address: str) -> str:
        """The 6-digit code of the first message to `address` (waited for: WAIT)."""
        with self.arrived:
            found = self.arrived.wait_for(
                lambda: any(address in str(m["To"]) for m in self.messages), WAIT / 1000
            )
        assert found, f"no mail to {address}"
        message = next(m for m in self.messages if address in str(m["To"]))
        texts = []
        for part in message.walk():
            raw = part.get_payload(decode=True)
            if part.get_content_maintype() == "text" and isinstance(raw, bytes):
                texts.append(raw.decode(part.get_content_charset() or "utf-8"))
        text = " ".join(texts)
        code = re.search(r"\b(\d{6})\b", text)
        assert code, text
        return code.group(1)


@pytest.fixture(scope="module")
def inbox() -> Iterator[Inbox]:
    from aiosmtpd.controller import Controller  # noqa: PLC0415 - the dev extra's

    handler = Inbox(free_port())
    controller = Controller(handler, hostname="127.0.0.1", port=handler.port)
    controller.start()
    try:
        yield handler
    finally:
        controller.stop()


@pytest.fixture(scope="module")
def mailing(
    server_url: str, tmp_path_factory: pytest.TempPathFactory, inbox: Inbox
) -> Iterator[Served]:
    """`yokai serve` whose mail goes to `inbox`."""
    folder = tmp_path_factory.mktemp("browser-serve-mail")
    with serving(
        server_url,
        folder / "serve.log",
        folder,
        YOKAI_WORKERS="1",
        YOKAI_SMTP_URL=f"smtp://127.0.0.1:{inbox.port}",
        YOKAI_MAIL_FROM="yokai@example.org",
    ) as base:
        yield Served(base)


@pytest.fixture
def pages(browser: Any, mailing: Served) -> Iterator[Pages]:
    opened = Pages(browser, mailing)
    try:
        yield opened
    finally:
        opened.close()


def _subscription() -> dict[str, Any]:
    """A browser's PushSubscription as JSON: a real P-256 key and auth secret."""
    key = ec.generate_private_key(ec.SECP256R1()).public_key()
    point = key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return {
        "endpoint": "https://push.example/send/abc123",
        "keys": {"p256dh": _b64(point), "auth": _b64(b"sixteen byte key")},
    }


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def test_the_settings_page_saves_each_field_and_verifies_the_address(
    pages: Pages, mailing: Served, inbox: Inbox
) -> None:
    expect = _expect()
    mio = _player(mailing, "Mio Settings")

    def settings() -> Any:
        return mailing.call("GET", "/v1/me/notifications", token=mio["token"])

    before = settings()
    page: Any = pages.open(mio)
    page.goto(f"{mailing.base}/#/notifications")
    form = page.locator("#notify-settings")
    expect(form).to_be_visible(timeout=WAIT)
    expect(page.locator("#notify-push")).to_be_checked(checked=before["push"])
    expect(page.locator("#email-state")).to_have_attribute("data-state", "none")
    assert_accessible(page, "the notification settings")

    page.locator("#notify-push").set_checked(not before["push"])
    page.locator("#notify-mail").set_checked(not before["mail"])
    page.locator("#notify-digest").select_option("daily")
    page.locator("#notify-reminder").fill("30")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#notify-saved")).to_be_visible(timeout=WAIT)
    now = settings()
    assert (now["push"], now["mail"]) == (not before["push"], not before["mail"])
    assert (now["digest"], now["reminder_minutes"]) == ("daily", 30)

    page.locator("#notify-reminder").fill("1441")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#notify-reminder-invalid")).to_be_visible(timeout=WAIT)
    assert settings()["reminder_minutes"] == 30
    page.locator("#notify-reminder").fill("")
    page.locator("#notify-digest").select_option("hourly")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#notify-saved")).to_be_visible(timeout=WAIT)
    assert (settings()["digest"], settings()["reminder_minutes"]) == ("hourly", None)

    page.locator("#email-address").fill("mio@example.org")
    page.get_by_role("button", name="Send a code").click()
    expect(page.locator("#email-code-sent")).to_be_visible(timeout=WAIT)
    expect(page.locator("#email-state")).to_have_attribute("data-state", "unverified")
    expect(page.locator("#email-state")).to_contain_text("mio@example.org")
    code = inbox.code_sent_to("mio@example.org")
    wrong = str((int(code[0]) + 1) % 10) + code[1:]
    page.locator("#email-code").fill(wrong)
    page.get_by_role("button", name="Verify").click()
    expect(page.locator(".email .problem")).to_be_visible(timeout=WAIT)
    expect(page.locator("#email-state")).to_have_attribute("data-state", "unverified")
    page.locator("#email-code").fill(code)
    page.get_by_role("button", name="Verify").click()
    expect(page.locator("#email-state")).to_have_attribute("data-state", "verified", timeout=WAIT)
    expect(page.locator("#email-verified-now")).to_be_visible()
    assert settings()["email"] == {"address": "mio@example.org", "verified": True}
    assert_accessible(page, "the notification settings, verified")
    # The wrong code's refusal is logged by the browser: the only error.
    assert [e for e in page.errors if "responded with a status of 4" not in e] == []


def test_the_settings_page_lists_the_players_browsers_and_removes_one(
    pages: Pages, mailing: Served
) -> None:
    expect = _expect()
    ren = _player(mailing, "Ren Settings")
    made = mailing.call("POST", "/v1/me/push-subscriptions", _subscription(), token=ren["token"])
    page: Any = pages.open(ren)
    page.goto(f"{mailing.base}/#/notifications")
    item = page.locator(f'#push-subscriptions li[data-id="{made["id"]}"]')
    expect(item).to_contain_text("push.example", timeout=WAIT)
    item.get_by_role("button", name="Remove the browser notified through push.example").click()
    expect(page.locator("#push-subscriptions .none")).to_be_visible(timeout=WAIT)
    listed = mailing.call("GET", "/v1/me/push-subscriptions", token=ren["token"])
    assert listed["subscriptions"] == []
    assert page.errors == []
