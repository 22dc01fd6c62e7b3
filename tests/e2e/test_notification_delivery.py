"""Turn notifications delivered (docs/api.md "Turn notifications"): a real `yokai worker`
process sends the pushes a commit queued to a push service of our own on loopback
(tests/support/push_service.py: it verifies each VAPID signature and decrypts each
message with the subscriber's keys), and its mail to a real SMTP server
(tests/support/smtp_server.py)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from service.adapters import migrate
from service.adapters.postgres.engine import sqlalchemy_url
from service.settings import Settings
from tests.support.api import Api, bearer
from tests.support.postgres import new_database, running_app
from tests.support.push_service import PushService, Received
from tests.support.smtp_server import SmtpServer
from tests.support.waiting import wait_for
from tests.support.workers import Setup

PUBLIC_URL = "https://yokai.example"


@pytest.fixture
def push_service() -> Iterator[PushService]:
    with PushService() as service:
        yield service


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    with SmtpServer() as server:
        yield server


@pytest.fixture
def setup(server_url: str, settings: Settings, tmp_path: Path, smtp: SmtpServer) -> Iterator[Setup]:
    """A database of its own, an app on it that allows loopback push endpoints and
    sends mail to ``smtp``, and the workers the test starts (with the same settings)."""
    url = new_database(server_url, "yokai_notify")
    migrate.upgrade(url)
    app_settings = dataclasses.replace(
        settings,
        database_url=url,
        push_allow_http=True,
        smtp_url=smtp.url,
        public_url=PUBLIC_URL,
    )
    with running_app(app_settings) as app:
        made = Setup(url, app.api(), tmp_path, [], app.container.deps)
        try:
            yield made
        finally:
            for w in made.started:
                if w.process.poll() is None:
                    w.process.kill()
                w.process.wait(timeout=30)


def start_worker(setup: Setup, smtp: SmtpServer) -> None:
    setup.worker(
        YOKAI_PUSH_ALLOW_HTTP="1",
        YOKAI_SMTP_URL=smtp.url,
        YOKAI_PUBLIC_URL=PUBLIC_URL,
        YOKAI_MAIL_FROM="Yokai Septet <turns@yokai.example>",
    )


def new_player(api: Api, name: str) -> str:
    r = api.post("/v1/players", {"name": name})
    assert r.status_code == 201, r.get_json()
    token: str = r.get_json()["token"]
    return token


def subscribed(api: Api, push: PushService, token: str) -> str:
    """A subscriber of the push service, subscribed for the player; its id."""
    key = api.get("/v1/push/key").get_json()["public_key"]
    subscriber = push.subscribe(key)
    r = api.post("/v1/me/push-subscriptions", subscriber.subscription, **bearer(token))
    assert r.status_code == 201, r.get_json()
    return str(subscriber.id)


def seated_game(api: Api, token: str, players: int = 3) -> str:
    """A game the player sits at (seat 0); the others join anonymously; it starts."""
    game_id: str = api.create(players)["id"]
    assert api.post(f"/v1/games/{game_id}/seats/0", {}, **bearer(token)).status_code == 201
    for seat in range(1, players):
        api.join(game_id, seat)
    return game_id


def of(received: list[Received], subscriber: str) -> list[dict[str, Any]]:
    return [r.json() for r in received if r.subscriber_id == subscriber]


def test_a_players_turn_is_pushed_encrypted_and_signed(
    setup: Setup, push_service: PushService, smtp: SmtpServer
) -> None:
    start_worker(setup, smtp)
    mio = new_player(setup.api, "Mio")
    phone = subscribed(setup.api, push_service, mio)
    laptop = subscribed(setup.api, push_service, mio)
    game_id = seated_game(setup.api, mio)
    version = setup.api.public(game_id)["version"]
    got = push_service.wait_for(lambda r: len(of(r, phone)) >= 1 and len(of(r, laptop)) >= 1)
    expected = {
        "type": "turn",
        "game_id": game_id,
        "version": version,
        "url": f"{PUBLIC_URL}/#/game/{game_id}",
    }
    assert of(got, phone) == [expected] and of(got, laptop) == [expected]
    assert push_service.rejections == []
    headers = next(r.headers for r in got if r.subscriber_id == phone)
    assert headers["Urgency"] == "normal" and int(headers["TTL"]) > 0 and headers["Topic"]


def test_no_push_while_the_player_looks(
    setup: Setup, push_service: PushService, smtp: SmtpServer
) -> None:
    """A player holding their player stream open (or a game's stream) is not pushed:
    they see the turn already. Once the stream ends, they are pushed again."""
    start_worker(setup, smtp)
    mio = new_player(setup.api, "Mio")
    phone = subscribed(setup.api, push_service, mio)
    stream = setup.api.client.get("/v1/me/stream", headers=bearer(mio), buffered=False)
    try:
        assert stream.status_code == 200
        seen = seated_game(setup.api, mio)
        # Claimed and dropped: the outbox empties, and nothing reached the phone.
        wait_for(lambda: queued(setup, "push") == 0, "the push to be taken")
        assert of(push_service.received, phone) == []
    finally:
        stream.close()
    second = seated_game(setup.api, mio)
    got = push_service.wait_for(lambda r: len(of(r, phone)) >= 1)
    assert [p["game_id"] for p in of(got, phone)] == [second] and second != seen


def database(setup: Setup) -> Any:
    """The setup's database, as its owner."""
    return create_engine(sqlalchemy_url(setup.url))


def queued(setup: Setup, kind: str) -> int:
    engine = database(setup)
    try:
        with engine.connect() as conn:
            found = conn.execute(
                text("SELECT count(*) FROM outbox WHERE kind = :k AND done_at IS NULL"),
                {"k": kind},
            )
            return int(found.scalar_one())
    finally:
        engine.dispose()


def test_a_gone_subscription_is_deleted(
    setup: Setup, push_service: PushService, smtp: SmtpServer
) -> None:
    start_worker(setup, smtp)
    mio = new_player(setup.api, "Mio")
    phone = subscribed(setup.api, push_service, mio)
    push_service.answer(phone, 410)
    seated_game(setup.api, mio)
    push_service.wait_for_attempts(lambda a: any(x.subscriber_id == phone for x in a))

    def listed() -> list[Any]:
        r = setup.api.get("/v1/me/push-subscriptions", **bearer(mio))
        found: list[Any] = r.get_json()["subscriptions"]
        return found

    wait_for(lambda: listed() == [], "the subscription to be deleted")


def test_a_busy_push_service_is_tried_again_after_retry_after(
    setup: Setup, push_service: PushService, smtp: SmtpServer
) -> None:
    start_worker(setup, smtp)
    mio = new_player(setup.api, "Mio")
    phone = subscribed(setup.api, push_service, mio)
    push_service.answer(phone, 429, retry_after="1")
    push_service.answer(phone, 503)
    seated_game(setup.api, mio)
    got = push_service.wait_for(lambda r: len(of(r, phone)) >= 1, timeout=90)
    attempts = [a for a in push_service.attempts if a.subscriber_id == phone]
    assert [a.status for a in attempts] == [429, 503, 201]
    assert attempts[1].at - attempts[0].at >= 1.0  # Retry-After: 1 was waited for
    assert len(of(got, phone)) == 1


def test_an_address_is_verified_by_the_code_mailed_to_it(
    setup: Setup, push_service: PushService, smtp: SmtpServer
) -> None:
    start_worker(setup, smtp)
    mio = new_player(setup.api, "Mio")
    r = setup.api.client.post(
        "/v1/me/email",
        json={"address": "mio@Example.ORG"},
        headers={**bearer(mio), "Accept-Language": "fr"},
    )
    assert r.status_code == 202, r.get_json()
    assert r.get_json()["email"] == {"address": "mio@example.org", "verified": False}
    (message,) = smtp.wait_for(lambda got: len(got) >= 1)
    assert message.rcpt_tos == ["mio@example.org"]
    code = mailed_code(message.message)
    wrong = "000000" if code != "000000" else "111111"
    r = setup.api.post("/v1/me/email/verify", {"code": wrong}, **bearer(mio))
    assert (r.status_code, r.get_json()["code"]) == (422, "wrong_code")
    r = setup.api.post("/v1/me/email/verify", {"code": code}, **bearer(mio))
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["email"] == {"address": "mio@example.org", "verified": True}


def test_a_reminder_comes_by_push_and_mail_before_the_clock_runs_out(
    setup: Setup, push_service: PushService, smtp: SmtpServer
) -> None:
    start_worker(setup, smtp)
    mio = new_player(setup.api, "Mio")
    phone = subscribed(setup.api, push_service, mio)
    _verify(setup, smtp, mio, "mio@example.org")
    r = setup.api.client.patch(
        "/v1/me/notifications", json={"reminder_minutes": 5}, headers=bearer(mio)
    )
    assert r.status_code == 200
    game_id = setup.api.create(3, clock={"turn_seconds": 600, "on_timeout": "autoplay"})["id"]
    setup.api.post(f"/v1/games/{game_id}/seats/0", {}, **bearer(mio))
    setup.api.join(game_id, 1)
    setup.api.join(game_id, 2)
    push_service.wait_for(lambda r: len(of(r, phone)) >= 1)  # the turn
    # Ten minutes on the clock: no reminder yet. Move the turn's deadline to 4 minutes
    # from now, as time passing would.
    soon = datetime.now(UTC) + timedelta(minutes=4)
    _set_deadline(setup, game_id, soon)
    got = push_service.wait_for(lambda r: len(of(r, phone)) >= 2, timeout=60)
    assert [p["type"] for p in of(got, phone)] == ["turn", "reminder"]
    reminder = next(r for r in got if r.json()["type"] == "reminder")
    assert reminder.headers["Urgency"] == "high"
    mails = smtp.wait_for(lambda got: len(got) >= 2)
    assert mails[1].rcpt_tos == ["mio@example.org"]
    assert mails[1].message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    link = mails[1].message["List-Unsubscribe"].strip("<>")
    token = link.split("token=", 1)[1]
    r = setup.api.client.post(f"/v1/unsubscribe?token={token}", data="List-Unsubscribe=One-Click")
    assert (r.status_code, r.get_json()) == (200, {"mail": False})
    assert setup.api.get("/v1/me/notifications", **bearer(mio)).get_json()["mail"] is False


def _verify(setup: Setup, smtp: SmtpServer, token: str, address: str) -> None:
    before = len(smtp.received)
    r = setup.api.post("/v1/me/email", {"address": address}, **bearer(token))
    assert r.status_code == 202, r.get_json()
    got = smtp.wait_for(lambda m: len(m) > before)
    code = mailed_code(got[-1].message)
    r = setup.api.post("/v1/me/email/verify", {"code": code}, **bearer(token))
    assert r.status_code == 200, r.get_json()


def mailed_code(message: EmailMessage) -> str:
    """The 6-digit code of a verification message (its plain text part)."""
    body = message.get_body(("plain",))
    assert body is not None
    text: str = body.get_content()
    return next(word for word in text.split() if word.isdigit() and len(word) == 6)


def _set_deadline(setup: Setup, game_id: str, at: datetime) -> None:
    engine = database(setup)
    try:
        with engine.begin() as conn:
            conn.execute(
                text("UPDATE inbox SET deadline = :at WHERE game_id = :g AND my_turn"),
                {"at": at, "g": game_id},
            )
    finally:
        engine.dispose()
