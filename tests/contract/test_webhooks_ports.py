"""The webhooks capability's store (service/application/webhooks/ports.py: Webhooks), on
the fakes and on PostgreSQL: endpoints, the deliveries a commit fans out to those that
want its events, claims under a lease (the oldest due first, a few an endpoint at most),
the log of attempts that ends a delivery or makes it due again and that disables an
endpoint failing too long, and forgetting what is old.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from uuid import UUID, uuid4

import pytest

from service.application.webhooks.ports import (
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)
from tests.contract.builders import minutes, new_game, new_player, seat_player
from tests.contract.stores import Store

LEASE = timedelta(seconds=60)
PER_ENDPOINT = 2  # deliveries to one endpoint under way at once, unless the claim raises it


def hook(
    store: Store,
    *,
    player_id: UUID | None = None,
    events: Sequence[str] = ("turn",),
    created: timedelta = timedelta(),
) -> WebhookEndpoint:
    at = store.clock.now() + created
    endpoint = WebhookEndpoint(
        uuid4(), player_id, f"https://{uuid4().hex}.test/", tuple(events), at
    )
    with store.uow() as uow:
        uow.webhooks.add(endpoint, secret_of(endpoint))
        uow.commit()
    return endpoint


def secret_of(endpoint: WebhookEndpoint) -> str:
    return f"whsec_{endpoint.id.hex}"


def tell(
    store: Store,
    game_id: UUID,
    *events: WebhookEvent,
    at: datetime | None = None,
    bound: Sequence[tuple[int, UUID]] = (),
    left: Sequence[int] = (),
) -> None:
    with store.uow() as uow:
        uow.webhooks.fan_out(game_id, events, bound, at or store.clock.now(), left)
        uow.commit()


def claim(
    store: Store,
    now: datetime | None = None,
    limit: int = 100,
    busy: Mapping[UUID, int] = {},
    limits: Mapping[UUID, int] | None = None,
) -> list[WebhookDelivery]:
    """A claim under a lease (done at once: the unit of work is not committed)."""
    now = now or store.clock.now()
    with store.uow() as uow:
        return uow.webhooks.claim(now, now + LEASE, limit, busy, limits)


def claim_all(store: Store, now: datetime | None = None) -> list[WebhookDelivery]:
    """Every due delivery, claim after claim (each claim takes a few an endpoint)."""
    out: list[WebhookDelivery] = []
    while got := claim(store, now):
        out += got
    return out


def sent(deliveries: Sequence[WebhookDelivery]) -> list[tuple[UUID, str, object]]:
    """Who was sent what (the endpoint, the event's type and data), sorted."""
    told = [(d.webhook_id, d.payload["type"], d.payload["data"]) for d in deliveries]
    return sorted(told, key=repr)


def event(kind: str, **data: object) -> WebhookEvent:
    seat = data.get("seat")
    return WebhookEvent(kind, data, seat if isinstance(seat, int) else None)


def record(
    store: Store,
    delivery: WebhookDelivery,
    at: datetime,
    status: int | None,
    *,
    done: bool,
    next_at: datetime | None = None,
    disable_failing_since: datetime | None = None,
) -> WebhookAttempt:
    attempt = WebhookAttempt(
        delivery.message_id,
        str(delivery.payload["type"]),
        at,
        status,
        None if status == 200 else f"HTTP {status}",
        next_at,
    )
    cutoff = disable_failing_since or at - timedelta(days=3)
    with store.uow() as uow:
        uow.webhooks.record([(delivery, attempt, done)], disable_failing_since=cutoff)
        uow.commit()
    return attempt


# --- endpoints -------------------------------------------------------------------------


def test_endpoints_are_read_back_as_added_a_players_oldest_first(store: Store) -> None:
    mio, bo = new_player(store), new_player(store, "Bo")
    second = hook(store, player_id=mio.id, created=minutes(2), events=("turn", "game_finished"))
    first = hook(store, player_id=mio.id, created=minutes(1))
    theirs = hook(store, player_id=bo.id)
    operators = hook(store, events=("game_started",))
    with store.uow() as uow:
        assert uow.webhooks.get(second.id) == second
        assert uow.webhooks.get(uuid4()) is None
        assert uow.webhooks.of(mio.id) == [first, second]
        assert uow.webhooks.of(bo.id) == [theirs]
        assert uow.webhooks.of(None) == [operators]
        assert uow.webhooks.of(uuid4()) == []
        assert uow.webhooks.attempts(first.id, 10) == []


def test_an_endpoint_needs_its_player(store: Store) -> None:
    endpoint = WebhookEndpoint(uuid4(), uuid4(), "https://x.test/", ("turn",), store.clock.now())
    with store.uow() as uow:
        uow.webhooks.add(endpoint, "whsec_x")
        with pytest.raises(store.integrity_error):
            uow.commit()
    with store.uow() as uow:
        assert uow.webhooks.get(endpoint.id) is None


# --- fan_out ---------------------------------------------------------------------------


def test_a_commit_tells_every_endpoint_that_wants_its_events(store: Store) -> None:
    """The operators' endpoints hear of every game; a player's, of the games where they
    hold a seat (committed, or bound in this commit), for a turn only the seat's; not a
    seat a bot holds now (its player left); never an endpoint not wanting the type."""
    at = store.clock.now()
    game_id, elsewhere = new_game(store), new_game(store)
    mio, bo, kai, ren = (new_player(store, name) for name in ("Mio", "Bo", "Kai", "Ren"))
    seat_player(store, game_id, 0, mio.id)
    seat_player(store, game_id, 2, kai.id)
    seat_player(store, elsewhere, 3, ren.id)
    wanted = ("turn", "game_finished")
    operators = hook(store, events=wanted)
    hook(store, events=("game_started",))
    mios, bos = hook(store, player_id=mio.id, events=wanted), hook(store, player_id=bo.id)
    hook(store, player_id=kai.id, events=wanted)
    hook(store, player_id=ren.id, events=wanted)
    turn_0, turn_1 = event("turn", seat=0, version=3), event("turn", seat=1, version=3)
    finished = event("game_finished", version=4, winner=[0])
    tell(store, game_id, turn_0, turn_1, finished, at=at, bound=[(1, bo.id)], left=[2])

    deliveries = claim_all(store, at)
    assert sent(deliveries) == sorted(
        [
            (operators.id, "turn", turn_0.data),
            (operators.id, "turn", turn_1.data),
            (operators.id, "game_finished", finished.data),
            (mios.id, "turn", turn_0.data),
            (mios.id, "game_finished", finished.data),
            (bos.id, "turn", turn_1.data),
        ],
        key=repr,
    )
    endpoints = {e.id: e for e in (operators, mios, bos)}
    for d in deliveries:
        endpoint = endpoints[d.webhook_id]
        assert (d.url, d.secret) == (endpoint.url, secret_of(endpoint))
        assert d.payload["timestamp"] == at.isoformat()
        assert (d.created_at, d.attempts) == (at, 0)
        assert d.message_id.startswith("msg_")
    assert len({d.message_id for d in deliveries}) == len(deliveries)
    assert len({d.id for d in deliveries}) == len(deliveries)


def test_what_is_told_in_a_unit_of_work_left_without_commit_is_sent_to_no_one(
    store: Store,
) -> None:
    game_id = new_game(store)
    hook(store)
    with store.uow() as uow:
        uow.webhooks.fan_out(game_id, [event("turn", seat=0)], [], store.clock.now())
    assert claim(store) == []


# --- claim -----------------------------------------------------------------------------


def due(store: Store, *endpoints: WebhookEndpoint) -> list[tuple[UUID, object]]:
    """A delivery to each of ``endpoints`` (an operators' endpoint wanting one type of
    its own), in turn a second apart, the first a minute ago; (endpoint, data) each."""
    game_id = new_game(store)
    start = store.clock.now() - minutes(1)
    out: list[tuple[UUID, object]] = []
    with store.uow() as uow:
        for n, endpoint in enumerate(endpoints):
            (kind,) = endpoint.events
            told = event(kind, n=n)
            uow.webhooks.fan_out(game_id, [told], [], start + timedelta(seconds=n))
            out.append((endpoint.id, told.data))
        uow.commit()
    return out


def own(store: Store, count: int) -> list[WebhookEndpoint]:
    return [hook(store, events=(f"kind-{uuid4().hex}",)) for _ in range(count)]


def picked(deliveries: Sequence[WebhookDelivery]) -> list[tuple[UUID, object]]:
    """Which deliveries a claim took, in the order they were told (a claim takes the
    oldest due first, but need not list them in that order)."""
    return sorted(((d.webhook_id, d.payload["data"]) for d in deliveries), key=_told_order)


def _told_order(item: tuple[UUID, object]) -> int:
    data = item[1]
    assert isinstance(data, dict)
    n: int = data["n"]
    return n


def to(endpoint: WebhookEndpoint, deliveries: Sequence[WebhookDelivery]) -> WebhookDelivery:
    """The first of the deliveries to this endpoint."""
    return min((d for d in deliveries if d.webhook_id == endpoint.id), key=lambda d: d.id)


def test_the_oldest_due_come_first_at_most_two_an_endpoint(store: Store) -> None:
    a, b, c = own(store, 3)
    told = due(store, a, a, a, a, b, c)
    assert picked(claim(store, limit=10)) == [told[0], told[1], told[4], told[5]]
    assert picked(claim(store, limit=1)) == [told[2]]


def test_what_an_endpoint_has_under_way_counts_against_its_limit(store: Store) -> None:
    one, none, full = own(store, 3)
    told = due(store, one, none, full, one, none, full, one, none)
    got = claim(store, limit=10, busy={one.id: 1, full.id: PER_ENDPOINT})
    assert picked(got) == [told[0], told[1], told[4]]


def test_an_endpoint_whose_limit_the_claimer_raised_gets_up_to_it(store: Store) -> None:
    """The dispatcher raises the limit of an endpoint that answers quickly: the claim
    takes up to that many for it, counting what it has under way, and keeps the others
    to PER_ENDPOINT."""
    fast, other, busy = own(store, 3)
    told = due(store, *[fast] * 7, *[other] * 5, *[busy] * 5)
    got = claim(store, limits={fast.id: 5, busy.id: 4}, busy={busy.id: 1})
    assert picked(got) == told[:5] + told[7:9] + told[12:15]
    # At its raised limit, an endpoint is passed over; the others still come, each to its
    # own limit (PER_ENDPOINT, unless raised).
    got = claim(store, limits={fast.id: 5}, busy={fast.id: 5})
    assert picked(got) == [told[9], told[10], told[15], told[16]]
    assert picked(claim(store, limits={fast.id: 5}, busy={fast.id: 4})) == [told[5], told[11]]


def test_a_claimed_delivery_is_left_alone_until_its_lease_ends(store: Store) -> None:
    (endpoint,) = own(store, 1)
    (told,) = due(store, endpoint)
    now = store.clock.now()
    (first,) = claim(store, now)
    assert claim(store, now + LEASE - timedelta(seconds=1)) == []
    with store.uow() as uow:
        assert uow.webhooks.next_due([]) == now + LEASE
    (again,) = claim(store, now + LEASE)  # its claimer stopped: another's turn
    assert picked([again]) == [told]
    assert (again.id, again.message_id, again.attempts) == (first.id, first.message_id, 0)


def test_claims_never_give_out_a_delivery_twice(store: Store) -> None:
    endpoints = own(store, 20)
    told = due(store, *endpoints, *endpoints)
    now = store.clock.now()
    with store.uow() as a, store.uow() as b:
        first = a.webhooks.claim(now, now + LEASE, 15, {})
        second = b.webhooks.claim(now, now + LEASE, 100, {})
    taken = picked(first) + picked(second)
    assert len(first) == 15
    assert sorted(taken, key=repr) == sorted(told, key=repr)


# --- record ----------------------------------------------------------------------------


def test_a_delivery_done_leaves_and_its_attempt_is_logged(store: Store) -> None:
    (endpoint,) = own(store, 1)
    due(store, endpoint)
    now = store.clock.now()
    (delivery,) = claim(store, now)
    attempt = record(store, delivery, now, 200, done=True)
    with store.uow() as uow:
        assert uow.webhooks.attempts(endpoint.id, 10) == [attempt]
        assert uow.webhooks.next_due([]) is None
    assert claim(store, now + LEASE) == []


def test_a_delivery_not_done_is_due_again_when_its_attempt_says(store: Store) -> None:
    (endpoint,) = own(store, 1)
    due(store, endpoint)
    now = store.clock.now()
    (delivery,) = claim(store, now)
    retry = now + minutes(5)  # later than the lease's end
    first = record(store, delivery, now, 503, done=False, next_at=retry)
    with store.uow() as uow:
        assert uow.webhooks.next_due([]) == retry
    assert claim(store, retry - timedelta(seconds=1)) == []
    (again,) = claim(store, retry)
    assert (again.id, again.attempts) == (delivery.id, 1)
    second = record(store, again, retry, None, done=False, next_at=retry + minutes(1))
    third = record(store, again, retry + minutes(1), 200, done=True)
    with store.uow() as uow:
        assert uow.webhooks.attempts(endpoint.id, 10) == [third, second, first]
        assert uow.webhooks.attempts(endpoint.id, 2) == [third, second]


def test_attempts_recorded_in_a_unit_of_work_left_without_commit_are_not(
    store: Store,
) -> None:
    (endpoint,) = own(store, 1)
    due(store, endpoint)
    now = store.clock.now()
    (delivery,) = claim(store, now)
    attempt = WebhookAttempt(delivery.message_id, "x", now, 200, None, None)
    with store.uow() as uow:
        uow.webhooks.record([(delivery, attempt, True)], disable_failing_since=now)
    with store.uow() as uow:
        assert uow.webhooks.attempts(endpoint.id, 10) == []
        assert uow.webhooks.next_due([]) == now + LEASE  # still claimed, not done


def test_a_failing_endpoint_is_disabled_once_it_has_failed_too_long(store: Store) -> None:
    """A failure starts the endpoint's failing streak, a success ends it; once the streak
    began before the cutoff the record is given, the endpoint is disabled: none of its
    deliveries is claimed, counted as due, or made any more."""
    (endpoint,) = own(store, 1)
    (kind,) = endpoint.events
    game_id = new_game(store)

    def attempt(at: datetime, status: int, cutoff: datetime) -> None:
        tell(store, game_id, event(kind), at=at)
        (delivery,) = claim(store, at)
        record(store, delivery, at, status, done=True, disable_failing_since=cutoff)

    def state() -> tuple[datetime | None, datetime | None]:
        with store.uow() as uow:
            found = uow.webhooks.get(endpoint.id)
        assert found is not None
        return found.failing_since, found.disabled_at

    t = [store.clock.now() + minutes(n) for n in range(6)]
    attempt(t[0], 503, cutoff=t[0] - minutes(60))
    assert state() == (t[0], None)
    attempt(t[1], 500, cutoff=t[0])  # failing since the cutoff, not before
    assert state() == (t[0], None)
    attempt(t[2], 200, cutoff=t[0])
    assert state() == (None, None)
    attempt(t[3], 503, cutoff=t[3])
    assert state() == (t[3], None)
    attempt(t[4], 503, cutoff=t[4])  # failing since before the cutoff: disabled
    assert state() == (t[3], t[4])
    with store.uow() as uow:
        disabled = uow.webhooks.get(endpoint.id)
    assert disabled is not None and disabled.disabled_reason
    assert disabled.disabled_reason.startswith("every delivery failed since")

    tell(store, game_id, event(kind), at=t[5])
    with store.uow() as uow:
        assert uow.webhooks.next_due([]) is None
    assert claim(store, t[5] + minutes(60)) == []


def test_a_disabled_endpoints_waiting_deliveries_are_not_claimed(store: Store) -> None:
    failing, other = own(store, 2)
    due(store, failing, failing, other)
    now = store.clock.now()
    claimed = claim(store, now)
    assert len(claimed) == 3
    first, elsewhere = to(failing, claimed), to(other, claimed)
    record(store, first, now, 503, done=False, next_at=now, disable_failing_since=now + minutes(1))
    assert picked(claim(store, now + LEASE)) == picked([elsewhere])
    with store.uow() as uow:
        assert uow.webhooks.next_due([]) == now + LEASE + LEASE


# --- next_due --------------------------------------------------------------------------


def test_the_next_due_is_the_soonest_of_the_endpoints_not_busy(store: Store) -> None:
    busy, free = own(store, 2)
    with store.uow() as uow:
        assert uow.webhooks.next_due([]) is None
    due(store, busy, free)
    start = store.clock.now() - minutes(1)
    with store.uow() as uow:
        assert uow.webhooks.next_due([]) == start
        assert uow.webhooks.next_due([busy.id]) == start + timedelta(seconds=1)
        assert uow.webhooks.next_due([busy.id, free.id]) is None


# --- delete ----------------------------------------------------------------------------


def test_a_deleted_endpoint_goes_with_its_deliveries_and_its_log(store: Store) -> None:
    gone, kept = own(store, 2)
    due(store, gone, gone, kept)
    now = store.clock.now()
    claimed = claim(store, now)
    first, other = to(gone, claimed), to(kept, claimed)
    record(store, first, now, 503, done=False, next_at=now)
    with store.uow() as uow:
        uow.webhooks.delete(gone.id)  # not committed: nothing
    with store.uow() as uow:
        assert uow.webhooks.get(gone.id) is not None
        assert len(uow.webhooks.attempts(gone.id, 10)) == 1
        uow.webhooks.delete(gone.id)
        uow.commit()
    with store.uow() as uow:
        assert uow.webhooks.get(gone.id) is None
        assert uow.webhooks.of(None) == [kept]
        assert uow.webhooks.attempts(gone.id, 10) == []
    assert picked(claim(store, now + LEASE)) == picked([other])


# --- forget ----------------------------------------------------------------------------


def test_forgetting_deletes_a_batch_of_the_attempts_logged_before_a_time(store: Store) -> None:
    """At once: the unit of work need not commit."""
    (endpoint,) = own(store, 1)
    due(store, endpoint)
    now = store.clock.now()
    (delivery,) = claim(store, now)
    logged = [
        record(store, delivery, now - timedelta(days=age), 503, done=False, next_at=now)
        for age in (10, 9, 8, 1)
    ]
    cutoff = now - timedelta(days=7)
    with store.uow() as uow:
        assert uow.webhooks.forget(cutoff, 2) == 2
    with store.uow() as uow:
        assert uow.webhooks.forget(cutoff, 2) == 1
        assert uow.webhooks.forget(cutoff, 2) == 0
    with store.uow() as uow:
        assert uow.webhooks.attempts(endpoint.id, 10) == [logged[-1]]
