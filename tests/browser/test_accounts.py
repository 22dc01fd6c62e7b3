"""Issue 28: accounts in the reference web client, used as a person uses it, in headless
Chromium against a real `yokai serve` that trusts a real OpenID provider process
(tests/support/oidc_provider.py), started for these tests and stopped at the end.

A person signs in with the provider (the authorization code flow with PKCE, in the
browser: the provider's own sign-in page, the code exchanged at its token endpoint,
the ID token handed to the service) and keeps their games; links a second device with
a code; signs every other device out, which the second device notices at its next
request; an operator suspends the player from the console and the player's audit shows
it. Every wait is Playwright's (expect, wait_for) with a timeout; no sleeps.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.browser.conftest import Served
from tests.browser.test_web_client import WAIT, _create_game, _expect
from tests.support.oidc import Provider, oidc_provider
from tests.support.serve import OPERATOR_TOKEN, serving

pytestmark = pytest.mark.browser

CLIENT_ID = "yokai-web"


@pytest.fixture(scope="module")
def provider() -> Iterator[Provider]:
    with oidc_provider() as running:
        yield running


@pytest.fixture(scope="module")
def signing(
    server_url: str, tmp_path_factory: pytest.TempPathFactory, provider: Provider
) -> Iterator[Served]:
    """`yokai serve` that signs in with the provider, for the web client's client id."""
    folder = tmp_path_factory.mktemp("browser-accounts")
    with serving(
        server_url,
        folder / "serve.log",
        folder,
        YOKAI_WORKERS="1",
        YOKAI_OIDC_ISSUERS=provider.url,
        YOKAI_OIDC_AUDIENCE=CLIENT_ID,
        YOKAI_OIDC_WEB_CLIENTS=f"{provider.url} {CLIENT_ID}",
    ) as base:
        yield Served(base)


def _device(browser: Any, served: Served, expected: str = "401|403") -> Any:
    """A browser context of its own (its own storage: another device), on the lobby.
    Refusals the test provokes (``expected`` statuses) are logged by Chromium; any other
    console error (a CSP violation, a script error, a 404) is kept in ``page.errors``."""
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    refused: list[tuple[int, str]] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "console",
        lambda m: (
            errors.append(m.text)
            if m.type == "error" and not re.search(rf"status of ({expected})\b", m.text)
            else None
        ),
    )
    page.on(
        "response",
        lambda r: refused.append((r.status, urlsplit(r.url).path)) if r.status == 401 else None,
    )
    page.errors = errors
    page.refused = refused
    page.goto(served.base + "/")
    return page


def _stored(page: Any) -> dict[str, Any] | None:
    found: dict[str, Any] | None = json.loads(
        page.evaluate("localStorage.getItem('yokai.player')") or "null"
    )
    return found


@contextmanager
def _screenshots_on_failure(artifacts: Path, name: str, pages: dict[str, Any]) -> Iterator[None]:
    try:
        yield
    except BaseException:
        for label, page in pages.items():
            with suppress(Exception):  # the failure itself matters more
                page.screenshot(path=str(artifacts / f"{name}-{label}-failed.png"), full_page=True)
        raise


def _sign_in_with_provider(page: Any, provider: Provider, user: str) -> None:
    """Click "Sign in with <provider>", sign in on the provider's page, come back."""
    host = urlsplit(provider.url).netloc
    page.get_by_role("button", name=f"Sign in with {host}").click()
    page.wait_for_url(f"{provider.url}/authorize?*", timeout=WAIT)
    page.get_by_label("User").fill(user)
    page.get_by_role("button", name="Sign in").click()


def _ops(browser: Any, served: Served) -> Any:
    ops = _device(browser, served)
    ops.goto(f"{served.base}/#/ops")
    ops.get_by_label("Operator token").fill(OPERATOR_TOKEN)
    ops.get_by_role("button", name="Enter").click()
    _expect()(ops.locator(".games-table")).to_be_visible(timeout=WAIT)
    return ops


def test_a_player_signs_in_links_a_device_signs_it_out_and_is_suspended(
    browser: Any, signing: Served, provider: Provider, artifacts: Path
) -> None:
    expect = _expect()
    pages: dict[str, Any] = {}
    with _screenshots_on_failure(artifacts, "accounts", pages):
        # Device A: a player made on first use, with a game, then signed in with the
        # provider: the identity is linked to that player, who keeps the game.
        a = pages["a"] = _device(browser, signing)
        host = urlsplit(provider.url).netloc
        expect(a.get_by_role("button", name=f"Sign in with {host}")).to_be_visible(timeout=WAIT)
        a.get_by_label("Your name").fill("Mio")
        a.get_by_role("button", name="Start").click()
        expect(a.locator("#me-name")).to_have_text("Playing as Mio")
        anonymous = _stored(a)
        assert anonymous is not None
        game_id = _create_game(a, "standard", "basic,basic,basic")
        a.goto(f"{signing.base}/#/")
        expect(a.locator(f'#inbox .inbox-entry[data-game="{game_id}"]')).to_be_visible(timeout=WAIT)

        _sign_in_with_provider(a, provider, "alice")
        expect(a.locator("#signed-in")).to_have_text("Signed in as Mio.", timeout=WAIT)
        assert a.url == f"{signing.base}/#/"  # no code or state left in the URL
        assert a.evaluate("sessionStorage.getItem('yokai.signin')") is None
        signed_in = _stored(a)
        assert signed_in is not None
        assert signed_in["id"] == anonymous["id"] and signed_in["token"] != anonymous["token"]
        expect(a.locator("#me-name")).to_have_text("Playing as Mio")
        expect(a.locator(f'#inbox .inbox-entry[data-game="{game_id}"]')).to_be_visible(timeout=WAIT)
        # The token it replaced is revoked: only the sign-in's is left.
        tokens = signing.call("GET", "/v1/me/tokens", token=signed_in["token"])["tokens"]
        assert [(t["id"], t["via"], t["current"]) for t in tokens] == [
            (signed_in["token_id"], "oidc", True)
        ]

        # A rename, in the account panel.
        a.get_by_label("New name").fill("Mio Sato")
        a.get_by_role("button", name="Rename").click()
        expect(a.locator("#me-name")).to_have_text("Playing as Mio Sato")
        a.screenshot(path=str(artifacts / "account-signed-in.png"), full_page=True)

        # Device A makes a link code; device B (its own storage) enters it.
        a.get_by_role("button", name="Link another device").click()
        code = a.locator("#link-code")
        expect(code).to_have_text(re.compile(r"^[0-9A-Z]{5}-[0-9A-Z]{5}$"))
        expect(a.locator("#link-code-expiry")).to_contain_text("It works once, until")
        b = pages["b"] = _device(browser, signing)
        expect(b.locator("#me-name")).to_have_count(0)
        b.get_by_label("Link code").fill(code.inner_text())
        b.get_by_role("button", name="Use the code").click()
        expect(b.locator("#me-name")).to_have_text("Playing as Mio Sato", timeout=WAIT)
        expect(b.locator("#me-name")).to_have_attribute("data-player", signed_in["id"])
        expect(b.locator(f'#inbox .inbox-entry[data-game="{game_id}"]')).to_be_visible(timeout=WAIT)
        expect(b.locator("#inbox .inbox-entry")).to_have_count(1)
        on_b = _stored(b)
        assert on_b is not None and on_b["token"] != signed_in["token"]

        # Device A signs every other device out: B's next request is refused (401),
        # and B shows itself signed out.
        a.get_by_role("button", name="Sign out everywhere else").click()
        expect(a.locator("#signed-out-others")).to_have_text("Other devices signed out: 1.")
        expect(b.locator("#signed-out")).to_be_visible(timeout=WAIT)
        expect(b.locator("#me-name")).to_have_count(0)
        expect(b.get_by_label("Link code")).to_be_visible()
        assert _stored(b) is None
        assert any(path.startswith("/v1/me") for status, path in b.refused)
        b.screenshot(path=str(artifacts / "account-signed-out.png"), full_page=True)
        expect(a.locator("#me-name")).to_have_text("Playing as Mio Sato")  # A still is

        # An operator suspends the player from the console; the audit shows it.
        ops = pages["ops"] = _ops(browser, signing)
        ops.get_by_label("Player id").fill(signed_in["id"])
        ops.get_by_role("button", name="Show").click()
        expect(ops).to_have_url(re.compile(f"#/ops/players/{signed_in['id']}$"))
        state = ops.locator("#ops-player-state")
        expect(state).to_have_attribute("data-suspended", "false", timeout=WAIT)
        ops.get_by_label("Reason").fill("abusive names")
        ops.get_by_role("button", name="Suspend", exact=True).click()
        expect(state).to_have_attribute("data-suspended", "true", timeout=WAIT)
        expect(state).to_have_text("Mio Sato: suspended")
        suspended = ops.locator('#player-audit li[data-action="suspended"]')
        expect(suspended).to_have_count(1, timeout=WAIT)
        expect(suspended).to_contain_text("abusive names")
        audit = signing.operator(f"/v1/players/{signed_in['id']}/audit")["entries"]
        assert [e["action"] for e in audit] == [
            "token_revoked",  # the anonymous token the sign-in replaced
            "renamed",
            "token_revoked",  # device B's
            "suspended",
        ]
        entries = ops.locator("#player-audit li")
        expect(entries).to_have_count(len(audit))
        for i, entry in enumerate(audit):
            expect(entries.nth(i)).to_have_attribute("data-action", entry["action"])
            if entry["request_id"]:
                expect(entries.nth(i)).to_contain_text(entry["request_id"])
        assert audit[-1]["actor"]["kind"] == "operator"
        expect(suspended).to_contain_text(f"operator: {audit[-1]['actor']['id']}")
        ops.screenshot(path=str(artifacts / "operator-player.png"), full_page=True)

        # The suspended player's device: refused (403 player_suspended), shown so.
        a.reload()
        expect(a.locator('#inbox [data-code="player_suspended"]')).to_be_visible(timeout=WAIT)
        suspended = a.locator('#inbox [data-code="player_suspended"]')
        expect(suspended.locator(".title")).to_have_text("This player is suspended")
        expect(suspended.locator(".detail")).to_have_count(0)  # it would say the same again

        # Lifted: the same device plays again; then it signs itself out.
        ops.get_by_role("button", name="Unsuspend").click()
        expect(state).to_have_attribute("data-suspended", "false", timeout=WAIT)
        expect(ops.locator('#player-audit li[data-action="unsuspended"]')).to_have_count(1)
        a.reload()
        expect(a.locator(f'#inbox .inbox-entry[data-game="{game_id}"]')).to_be_visible(timeout=WAIT)
        a.once("dialog", lambda dialog: dialog.accept())
        a.get_by_role("button", name="Sign out", exact=True).click()
        expect(a.get_by_label("Your name")).to_be_visible(timeout=WAIT)
        assert _stored(a) is None
        with pytest.raises(Exception, match="401"):
            signing.call("GET", "/v1/me", token=signed_in["token"])
        assert a.errors == [] and b.errors == [] and ops.errors == []


def test_a_first_sign_in_makes_a_player_and_refusals_are_shown(
    browser: Any, signing: Served, provider: Provider, artifacts: Path
) -> None:
    expect = _expect()
    pages: dict[str, Any] = {}
    with _screenshots_on_failure(artifacts, "sign-in", pages):
        # A browser without a player: the sign-in makes one, named by the provider.
        c = pages["c"] = _device(browser, signing)
        _sign_in_with_provider(c, provider, "Bob")
        expect(c.locator("#signed-in")).to_have_text("Signed in as Bob.", timeout=WAIT)
        expect(c.locator("#me-name")).to_have_text("Playing as Bob")
        bob = _stored(c)
        assert bob is not None
        me = signing.call("GET", "/v1/me", token=bob["token"])
        assert me == {"id": bob["id"], "name": "Bob"}

        # Another browser's own player cannot take Bob's account: 409, shown.
        d = pages["d"] = _device(browser, signing, expected="401|409")
        d.get_by_label("Your name").fill("Eve")
        d.get_by_role("button", name="Start").click()
        expect(d.locator("#me-name")).to_have_text("Playing as Eve")
        _sign_in_with_provider(d, provider, "Bob")
        problem = d.locator('[role="alert"][data-code="identity_in_use"]')
        expect(problem).to_be_visible(timeout=WAIT)
        expect(problem.locator(".title")).to_have_text("That identity belongs to another player")
        expect(d.locator("#me-name")).to_have_text("Playing as Eve")
        assert d.url == f"{signing.base}/#/"

        # A code that is no code; and an answer to a sign-in this tab never started.
        d.goto(f"{signing.base}/#/")
        d.once("dialog", lambda dialog: dialog.accept())
        d.get_by_role("button", name="Forget me on this browser").click()
        d.get_by_label("Link code").fill("00000-00000")
        d.get_by_role("button", name="Use the code").click()
        expect(d.locator('[data-code="invalid_link_code"]')).to_be_visible(timeout=WAIT)
        d.goto(f"{signing.base}/?code=stolen&state=forged#/")
        expect(d.locator('[data-code="sign_in_state"]')).to_be_visible(timeout=WAIT)
        assert d.url == f"{signing.base}/"
        assert _stored(d) is None
        assert c.errors == [] and d.errors == []
