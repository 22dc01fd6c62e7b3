"""A receiver's ``Retry-After`` (RFC 9110 section 10.2.3), read by the sender webhooks and
pushes share and honoured by the webhook retry schedule: a real receiver on 127.0.0.1
answers 429 or 503 with it, and the delivery's next attempt waits at least that long,
up to MAX_RETRY (docs/api.md: Webhooks)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from uuid import uuid4

import pytest

from service.adapters.webhooks.delivery import HttpSender
from service.adapters.webhooks.sender import Poster, retry_after_seconds
from service.application.webhooks.delivery import FIRST_RETRY, MAX_RETRY
from service.application.webhooks.dispatcher import WebhookDeliveries
from service.application.webhooks.endpoints import new_secret
from service.application.webhooks.ports import WebhookDelivery
from tests.application.fakes import Database, FixedClock, ScriptedDealer, make_deps
from tests.support.waiting import wait_for
from tests.support.webhook_receiver import receiving

NOW = 1_700_000_000.0  # Tue, 14 Nov 2023 22:13:20 GMT


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("120", 120.0),
        (" 0 ", 0.0),
        ("Tue, 14 Nov 2023 22:15:20 GMT", 120.0),  # IMF-fixdate
        ("Tuesday, 14-Nov-23 22:15:20 GMT", 120.0),  # RFC 850's obsolete form
        ("Tue Nov 14 22:15:20 2023", 120.0),  # asctime's obsolete form
        ("Tue, 14 Nov 2023 22:00:00 GMT", 0.0),  # a date gone by: at once
        (None, None),
        ("", None),
        ("soon", None),
        ("-5", None),
        ("1.5", None),
        ("١٢٠", None),  # digits, but not delta-seconds' ASCII ones
    ],
)
def test_retry_after_is_read_in_seconds(value: str | None, seconds: float | None) -> None:
    assert retry_after_seconds(value, NOW) == seconds


@pytest.mark.parametrize("status", [429, 503])
def test_a_receivers_retry_after_reaches_the_sender(status: int) -> None:
    poster = Poster(allow_private=True)
    try:
        with receiving() as receiver:
            receiver.answers = [status] * 3
            receiver.retry_after = "600"
            done = poster.post(receiver.url, b"{}", {})
            assert (done.status, done.retry_after) == (status, 600.0)
            an_hour = datetime.now(UTC) + timedelta(hours=1)
            receiver.retry_after = format_datetime(an_hour, usegmt=True)
            done = poster.post(receiver.url, b"{}", {})
            assert done.status == status
            assert done.retry_after is not None and 3000 < done.retry_after <= 3600
            receiver.retry_after = "whenever"
            assert poster.post(receiver.url, b"{}", {}).retry_after is None
            receiver.retry_after = None
            assert poster.post(receiver.url, b"{}", {}).retry_after is None  # a 204, none
    finally:
        poster.close()


def _next_attempt_after(status: int, retry_after: str | None) -> timedelta:
    """A webhook delivery attempted once, by the worker's dispatcher and the real sender,
    at a receiver answering ``status`` with ``retry_after``: how long until its next
    attempt, as recorded (the test's clock stands still)."""
    db, clock = Database(), FixedClock()
    deps = make_deps(db, clock, ScriptedDealer())
    sender = HttpSender(allow_private=True)
    source = WebhookDeliveries(sender, at_once=1, queued=0, lease=timedelta(seconds=60))
    try:
        with receiving() as receiver:
            receiver.answers = [status]
            receiver.retry_after = retry_after
            payload = {"type": "turn", "data": {"game_id": "g"}}
            delivery = WebhookDelivery(
                1, uuid4(), "msg_1", receiver.url, new_secret(), payload, clock.now(), 0
            )
            db.deliver(delivery, due=clock.now())
            assert source.run_due(deps) == 1
            wait_for(lambda: db.recorded and source.in_flight() == 0, "the attempt's record")
    finally:
        source.close()
        sender.close()
    ((_, attempt, done),) = db.recorded
    assert attempt.status == status and not done and attempt.next_attempt_at is not None
    return attempt.next_attempt_at - clock.now()


@pytest.mark.parametrize("status", [429, 503])
def test_a_webhook_is_retried_no_sooner_than_the_receiver_asked(status: int) -> None:
    assert _next_attempt_after(status, "1800") == timedelta(seconds=1800)


def test_a_retry_after_beyond_the_longest_backoff_waits_that_long_only() -> None:
    assert _next_attempt_after(503, "86400") == timedelta(seconds=MAX_RETRY)


def test_without_retry_after_the_backoff_stands() -> None:
    waited = _next_attempt_after(429, None)
    assert timedelta(seconds=FIRST_RETRY * 0.8) <= waited <= timedelta(seconds=FIRST_RETRY * 1.2)
