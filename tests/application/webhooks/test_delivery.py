"""Signing, the retry schedule and how many at once of webhook deliveries (docs/api.md:
Webhooks), with a fixed clock: the signature verifies with the `standardwebhooks`
package's own verifier, failed attempts are retried with exponential backoff and jitter
for at least 24 h, and an endpoint that answers quickly gets more deliveries at once."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from uuid import UUID, uuid4

import pytest
from standardwebhooks import Webhook, WebhookVerificationError

from service.application.deps import Deps
from service.application.privacy import sealing
from service.application.privacy.sealer import Sealer
from service.application.webhooks.delivery import (
    FIRST_RETRY,
    MAX_RETRY,
    RETRY_FOR,
    Sent,
    attempted,
    retry_at,
    signed,
)
from service.application.webhooks.dispatcher import WebhookDeliveries
from service.application.webhooks.endpoints import new_secret
from service.application.webhooks.ports import WebhookDelivery
from service.rules import ERASED_NAME
from tests.application.fakes import Database, FixedClock
from tests.application.privacy.test_sealing import DictVault
from tests.support.waiting import wait_for

NOW = datetime.now(UTC)
# The verifier refuses timestamps over 5 minutes off its clock: what it verifies is signed
# at the test's own time (NOW is when the module was collected, maybe minutes earlier).


def delivery(secret: str, *, attempts: int = 0, age: timedelta = timedelta()) -> WebhookDelivery:
    payload = {"type": "turn", "timestamp": NOW.isoformat(), "data": {"game_id": "g", "seat": 1}}
    return WebhookDelivery(
        7,
        uuid4(),
        "msg_0123abcd",
        "https://example.test/hook",
        secret,
        payload,
        NOW - age,
        attempts,
    )


def test_a_delivery_is_signed_as_the_standard_webhooks_verifier_expects() -> None:
    secret = new_secret()
    assert secret.startswith("whsec_")
    at = datetime.now(UTC)
    body, headers = signed(delivery(secret), at)
    assert Webhook(secret).verify(body, headers) == json.loads(body)
    assert headers["webhook-id"] == "msg_0123abcd"
    assert headers["webhook-timestamp"] == str(int(at.timestamp()))


def test_personal_data_is_opened_as_each_attempt_is_signed() -> None:
    """docs/privacy.md: a payload stored with a sealed name is delivered with the name,
    and with "erased player" once the player's key is gone; the signature covers what
    is sent."""
    vault = DictVault()
    player = uuid4()
    sealed = Sealer(vault).name(player, "Aiko")
    secret = new_secret()
    stored = replace(delivery(secret), payload={"type": "turn", "data": {"name": sealed}})
    body, headers = signed(stored, datetime.now(UTC), vault)
    assert Webhook(secret).verify(body, headers)["data"]["name"] == "Aiko"
    vault.destroy([sealing.player_subject(player)])
    body, headers = signed(stored, datetime.now(UTC), vault)
    assert Webhook(secret).verify(body, headers)["data"]["name"] == ERASED_NAME


def test_a_signature_with_another_secret_or_body_does_not_verify() -> None:
    secret = new_secret()
    body, headers = signed(delivery(secret), datetime.now(UTC))
    with pytest.raises(WebhookVerificationError):
        Webhook(new_secret()).verify(body, headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(body.replace(b'"seat":1', b'"seat":2'), headers)


def test_every_attempt_of_a_delivery_has_its_message_id() -> None:
    secret = new_secret()
    first = signed(delivery(secret, attempts=0), NOW)[1]
    later = signed(delivery(secret, attempts=5), NOW + timedelta(hours=3))[1]
    assert first["webhook-id"] == later["webhook-id"]
    assert first["webhook-signature"] != later["webhook-signature"]  # a new timestamp


@pytest.mark.parametrize("attempts", range(12))
def test_retries_back_off_exponentially_with_jitter(attempts: int) -> None:
    chance = random.Random(attempts)
    due = retry_at(delivery(new_secret(), attempts=attempts), NOW, chance)
    assert due is not None
    base = min(FIRST_RETRY * 2**attempts, MAX_RETRY)
    assert base * 0.8 <= (due - NOW).total_seconds() <= base * 1.2


def test_a_delivery_is_retried_for_at_least_a_day_then_given_up() -> None:
    chance = random.Random(1)
    assert timedelta(hours=24) <= RETRY_FOR
    still = delivery(new_secret(), attempts=30, age=RETRY_FOR - timedelta(minutes=1))
    assert retry_at(still, NOW, chance) is not None
    old = delivery(new_secret(), attempts=30, age=RETRY_FOR)
    assert retry_at(old, NOW, chance) is None


@pytest.mark.parametrize("attempts", [0, 3, 12])
def test_a_retry_waits_at_least_what_the_receiver_asked_up_to_the_longest_backoff(
    attempts: int,
) -> None:
    """Retry-After: a longer wait than the backoff's is kept (capped at MAX_RETRY, so a
    receiver cannot park a delivery for days); a shorter one changes nothing."""
    told = delivery(new_secret(), attempts=attempts)
    backoff = retry_at(told, NOW, random.Random(attempts))
    assert backoff is not None
    shorter = retry_at(told, NOW, random.Random(attempts), retry_after=1.0)
    assert shorter == backoff
    longer = (backoff - NOW).total_seconds() + 100.0
    expected = NOW + timedelta(seconds=min(longer, MAX_RETRY))
    asked = retry_at(told, NOW, random.Random(attempts), retry_after=longer)
    assert asked == max(expected, backoff)
    capped = retry_at(told, NOW, random.Random(attempts), retry_after=10 * 86400)
    assert capped == max(NOW + timedelta(seconds=MAX_RETRY), backoff)


def test_an_attempt_answered_with_retry_after_is_due_no_sooner() -> None:
    told = delivery(new_secret())
    outcome = attempted(told, NOW, Sent(429, None, 900.0), random.Random(1), ended=NOW)
    assert not outcome.done and outcome.attempt.next_attempt_at == NOW + timedelta(seconds=900)
    outcome = attempted(told, NOW, Sent(200, None, 900.0), random.Random(1), ended=NOW)
    assert outcome.done and outcome.attempt.next_attempt_at is None


class _HeldSender:
    """Answers 200 to every POST at once; the first one only once ``release`` is set."""

    def __init__(self) -> None:
        self.urls: list[str] = []
        self.first_started = threading.Event()
        self.release = threading.Event()
        self._answering: threading.Thread | None = None

    def start(
        self, url: str, body: bytes, headers: dict[str, str], then: Callable[[Sent], None]
    ) -> None:
        self.urls.append(url)
        if len(self.urls) > 1:
            then(Sent(200, None))
            return

        def answer() -> None:
            assert self.release.wait(10)
            then(Sent(200, None))

        self._answering = threading.Thread(target=answer)
        self._answering.start()
        self.first_started.set()

    def join(self) -> None:
        if self._answering is not None:
            self._answering.join(10)


def _wait_until(check: Callable[[], bool]) -> None:
    wait_for(check, "the deliveries to settle", timeout=10, every=0.01)


def _second_waits_for_a_place(
    deps: Deps, db: Database, clock: FixedClock, waited: timedelta
) -> tuple[list[WebhookDelivery], _HeldSender]:
    """Two deliveries claimed by a source of one place to send and one queued place, with
    a 15 s lease; the second waits for the first's place while the first is held for
    ``waited``.
    The deliveries, and the sender (what it was asked to send), once all are over."""
    deliveries = [
        replace(delivery(new_secret()), id=n, webhook_id=uuid4(), url=f"https://h{n}.test/")
        for n in (1, 2)
    ]
    for d in deliveries:
        db.deliver(d, due=clock.now())
    sender = _HeldSender()
    source = WebhookDeliveries(sender, at_once=1, queued=1, lease=timedelta(seconds=15))
    try:
        assert source.run_due(deps) == 2  # one is sent, one waits for its place
        assert sender.first_started.wait(10)
        clock.advance(waited)
        sender.release.set()
        _wait_until(lambda: source.in_flight() == 0)
    finally:
        sender.release.set()
        source.close()
        sender.join()
    return deliveries, sender


def test_a_delivery_queued_until_its_lease_could_end_mid_attempt_is_not_sent(
    deps: Deps, db: Database, clock: FixedClock
) -> None:
    """A claimed delivery that waits for a place so long that its attempt could outlast
    the lease (when another worker may claim and send it) is left to that next claim:
    never two senders at once. One that starts in time is sent and recorded."""
    # 10 s of lease left: less than an attempt.
    claimed_at = clock.now()
    (first, _), sender = _second_waits_for_a_place(deps, db, clock, timedelta(seconds=5))
    assert sender.urls == [first.url]
    assert [(d.id, a.status, done) for d, a, done in db.recorded] == [(1, 200, True)]
    with deps.uow() as uow:  # the other stays claimed until its lease ends
        assert uow.webhooks.next_due([]) == claimed_at + timedelta(seconds=15)


def test_a_delivery_that_gets_a_place_in_time_is_sent(
    deps: Deps, db: Database, clock: FixedClock
) -> None:
    # 12 s left: room for a whole attempt.
    (first, second), sender = _second_waits_for_a_place(deps, db, clock, timedelta(seconds=3))
    assert sender.urls == [first.url, second.url]
    assert sorted(d.id for d, _, _ in db.recorded) == [1, 2]


class _Refusing:
    def __init__(self) -> None:
        self.ids: list[str] = []

    def start(
        self, url: str, body: bytes, headers: dict[str, str], then: Callable[[Sent], None]
    ) -> None:
        self.ids.append(headers["webhook-id"])
        then(Sent(503, None))


def test_a_failing_receiver_is_retried_on_the_schedule_until_given_up(
    deps: Deps, db: Database, clock: FixedClock
) -> None:
    """The delivery job with a fixed clock: every attempt at a receiver that answers 503
    is recorded with its next attempt (backoff with jitter, from the first retry), the
    same webhook-id each time, until the delivery has been retried for RETRY_FOR; then
    it is recorded as given up (done, no next attempt)."""
    start = clock.now()
    current = replace(delivery(new_secret()), created_at=start)
    db.deliver(current, due=start)
    sender = _Refusing()
    source = WebhookDeliveries(sender, at_once=1, queued=0, lease=timedelta(seconds=60))
    gaps: list[float] = []
    try:
        for attempt in range(60):  # each claimed when the last attempt's record says
            assert source.run_due(deps) == 1
            recorded_so_far = attempt + 1

            def settled(n: int = recorded_so_far) -> bool:
                return len(db.recorded) == n and source.in_flight() == 0

            _wait_until(settled)
            _, recorded, done = db.recorded[-1]
            assert recorded.status == 503
            if done:
                break
            assert recorded.next_attempt_at is not None
            gaps.append((recorded.next_attempt_at - clock.now()).total_seconds())
            clock.moment = recorded.next_attempt_at
    finally:
        source.close()
    assert done and recorded.next_attempt_at is None
    assert "given up" in (recorded.error or "")
    assert clock.now() - start >= RETRY_FOR >= timedelta(hours=24)
    assert set(sender.ids) == {current.message_id}  # one webhook-id for every attempt
    for n, gap in enumerate(gaps):
        base = min(FIRST_RETRY * 2**n, MAX_RETRY)
        assert base * 0.8 <= gap <= base * 1.2
    assert len(gaps) > 10  # it reached the hour-long retries


class _Answering:
    """Answers 200 within ``start`` itself, as a sender may."""

    def __init__(self) -> None:
        self.sent = 0

    def start(
        self, url: str, body: bytes, headers: dict[str, str], then: Callable[[Sent], None]
    ) -> None:
        self.sent += 1
        then(Sent(200, None))


def test_a_sender_that_answers_at_once_gets_every_waiting_delivery_in_turn(
    deps: Deps, db: Database, clock: FixedClock
) -> None:
    """One place to send and 600 deliveries waiting: each answer, given within start(),
    frees the place for the next without calling back ever deeper (that would overflow
    the stack long before 600), and every attempt is recorded."""
    for n in range(600):
        db.deliver(replace(delivery(new_secret()), id=n, webhook_id=uuid4()), due=clock.now())
    sender = _Answering()
    source = WebhookDeliveries(sender, at_once=1, queued=599, lease=timedelta(seconds=60))
    try:
        assert source.run_due(deps) == 600
        _wait_until(lambda: source.in_flight() == 0)
    finally:
        closing = threading.Thread(target=source.close, daemon=True)  # a failure may hang it
        closing.start()
        closing.join(10)
    assert not closing.is_alive(), "close() did not return"
    assert sender.sent == 600
    assert sorted(d.id for d, _, _ in db.recorded) == list(range(600))


class _Scripted:
    """Answers each POST within start(): ``answer(n)`` gives the n-th attempt's status
    and how long it took on the test's clock."""

    def __init__(self, clock: FixedClock, answer: Callable[[int], tuple[int, float]]) -> None:
        self.clock, self.answer, self.sent = clock, answer, 0
        self.urls: list[str] = []

    def start(
        self, url: str, body: bytes, headers: dict[str, str], then: Callable[[Sent], None]
    ) -> None:
        status, took = self.answer(self.sent)
        self.sent += 1
        self.urls.append(url)
        self.clock.advance(timedelta(seconds=took))
        then(Sent(status, None))


def _claims_to_one_endpoint(
    deps: Deps, db: Database, clock: FixedClock, count: int, sender: _Scripted
) -> list[int]:
    """``count`` deliveries due to one endpoint, claimed claim after claim until each was
    attempted once: how many each claim took."""
    endpoint = uuid4()
    for n in range(count):
        db.deliver(replace(delivery(new_secret()), id=n, webhook_id=endpoint), due=clock.now())
    source = WebhookDeliveries(sender, lease=timedelta(seconds=60))
    sizes: list[int] = []
    try:
        while sender.sent < count:
            before = sender.sent
            source.run_due(deps)
            _wait_until(lambda: source.in_flight() == 0)
            sizes.append(sender.sent - before)
            assert len(sizes) < count, sizes
    finally:
        source.close()
    return sizes


def test_an_endpoint_that_answers_quickly_gets_more_deliveries_at_once(
    deps: Deps, db: Database, clock: FixedClock
) -> None:
    """Two at once to an endpoint at first; each quick 2xx raises its limit by one, up to
    32: one endpoint that hears every game keeps up with them (docs/guide.md)."""
    sender = _Scripted(clock, lambda n: (204, 0.0))
    assert _claims_to_one_endpoint(deps, db, clock, 100, sender) == [2, 4, 8, 16, 32, 32, 6]
    assert len(db.recorded) == 100


def test_a_failure_puts_an_endpoints_limit_back_to_two(
    deps: Deps, db: Database, clock: FixedClock
) -> None:
    sender = _Scripted(clock, lambda n: (503 if n == 13 else 200, 0.0))  # a third claim's last
    assert _claims_to_one_endpoint(deps, db, clock, 40, sender) == [2, 4, 8, 2, 4, 8, 12]
    failed = [d.id for d, attempt, _ in db.recorded if attempt.status == 503]
    assert len(failed) == 1


def test_an_endpoint_that_answers_slowly_keeps_two_at_once(
    deps: Deps, db: Database, clock: FixedClock
) -> None:
    sender = _Scripted(clock, lambda n: (200, 2.0))  # over a second each: not quick
    assert _claims_to_one_endpoint(deps, db, clock, 9, sender) == [2, 2, 2, 2, 1]


def test_only_the_endpoints_raised_last_keep_their_limits(
    deps: Deps, db: Database, clock: FixedClock
) -> None:
    """Each claim hands the raised limits to the store: they are kept for ``remembered``
    endpoints, the one raised longest ago forgotten first."""
    a, b = uuid4(), uuid4()

    def due(ids: range, endpoint: UUID) -> None:
        for n in ids:
            told = replace(
                delivery(new_secret()), id=n, webhook_id=endpoint, url=f"https://{endpoint}.test/"
            )
            db.deliver(told, due=clock.now())

    due(range(0, 2), a)
    due(range(2, 4), b)  # sent after a's (the oldest first): b is raised last
    sender = _Scripted(clock, lambda n: (200, 0.0))
    source = WebhookDeliveries(sender, lease=timedelta(seconds=60), remembered=1)
    try:
        source.run_due(deps)
        _wait_until(lambda: source.in_flight() == 0)
        assert sender.sent == 4
        due(range(10, 20), a)
        due(range(20, 30), b)
        source.run_due(deps)
        _wait_until(lambda: source.in_flight() == 0)
    finally:
        source.close()
    later = sender.urls[4:]
    assert (later.count(f"https://{a}.test/"), later.count(f"https://{b}.test/")) == (2, 4)
