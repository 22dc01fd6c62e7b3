"""The keyed hash chain (v2: HMAC-SHA256 under the chain key), the plain one it follows
(v1, before migration 0009), and the anchors of chain heads the worker writes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import pytest

from service.application.deps import Deps
from service.application.games.ports import Head
from service.application.integrity import anchors, chain
from service.application.integrity.anchors import Anchor
from service.application.integrity.chain import GENESIS, ChainKeys, Origin, Unchained, check, link
from service.application.integrity.verify import verify_history
from service.application.jobs.anchoring import Anchoring
from service.application.ports import SYSTEM, Actor, ActorKind, StoredEvent
from tests.application.fakes import CHAIN_KEYS, FixedClock
from tests.application.table import Game, Table

NOW = datetime(2026, 1, 1, tzinfo=UTC)
OTHER = ChainKeys(b"another-key-of-thirty-two-bytes!")
ORIGIN = Origin("req-1", "ab" * 32, "client-7", "203.0.113.9")


def events(count: int, actor: Actor = SYSTEM) -> list[Unchained]:
    return [Unchained("SeatJoined", 1, {"seat": n, "name": f"p{n}"}, actor) for n in range(count)]


def chained(keys: ChainKeys | None, count: int = 3, origin: Origin = ORIGIN) -> list[StoredEvent]:
    return link(uuid4(), 0, GENESIS, events(count), NOW, origin, keys)


def test_a_keyed_chain_is_an_hmac_that_only_its_key_recomputes() -> None:
    rows = chained(CHAIN_KEYS)
    assert {e.chain_key for e in rows} == {CHAIN_KEYS.current}
    assert check(rows, CHAIN_KEYS).broken is None
    assert check(rows, CHAIN_KEYS).keyed == 3
    # Neither another key nor the plain SHA-256 gives these hashes.
    assert [e.hash for e in chained_like(rows, OTHER)] != [e.hash for e in rows]
    assert [e.hash for e in chained_like(rows, None)] != [e.hash for e in rows]
    bad = check(rows, OTHER).broken
    assert bad is not None and "which this service does not have" in bad[1]


def chained_like(rows: list[StoredEvent], keys: ChainKeys | None) -> list[StoredEvent]:
    unchained = [Unchained(e.type, e.schema_version, e.data, e.actor) for e in rows]
    return link(rows[0].game_id, 0, GENESIS, unchained, NOW, chain.origin_of(rows[0]), keys)


@pytest.mark.parametrize(
    "field",
    ["request_id", "client_request_id", "client_address", "idempotency_key", "actor", "data"],
)
def test_every_field_of_a_keyed_event_is_covered(field: str) -> None:
    rows = chained(CHAIN_KEYS)
    forged: dict[str, Any] = {
        "request_id": "other",
        "client_request_id": "other",
        "client_address": "198.51.100.1",
        "idempotency_key": "cd" * 32,
        "actor": Actor(ActorKind.OPERATOR, None, "mallory"),
        "data": {"seat": 1, "name": "Forged"},
    }
    rows[1] = replace(rows[1], **{field: forged[field]})
    assert check(rows, CHAIN_KEYS).broken == (2, "content does not match its hash")


def test_a_rotated_key_still_verifies_what_it_hashed() -> None:
    old = chained(OTHER, 2)
    rotated = ChainKeys(b"the-new-key-of-thirty-two-bytes!", [b"another-key-of-thirty-two-bytes!"])
    rows = old + link(old[0].game_id, 2, old[-1].hash, events(2), NOW, ORIGIN, rotated)
    assert [e.chain_key for e in rows] == [OTHER.current] * 2 + [rotated.current] * 2
    assert check(rows, rotated).broken is None
    assert check(rows, ChainKeys(b"the-new-key-of-thirty-two-bytes!")).broken is not None


def test_a_plain_chain_from_before_the_key_verifies_and_is_counted() -> None:
    legacy = chained(None, 3, Origin("req-1", None))
    assert {e.chain_key for e in legacy} == {None}
    result = check(legacy, CHAIN_KEYS)
    assert (result.broken, result.unkeyed, result.keyed) == (None, 3, 0)
    # Going on keyed: the first keyed event holds the last plain hash.
    rows = legacy + link(legacy[0].game_id, 3, legacy[-1].hash, events(1), NOW, ORIGIN, CHAIN_KEYS)
    assert check(rows, CHAIN_KEYS) == chain.ChainCheck(None, 3, 1)


def test_a_plain_hash_after_a_keyed_one_is_a_chain_recomputed_without_the_key() -> None:
    rows = chained(CHAIN_KEYS)
    tail = link(rows[0].game_id, 1, rows[0].hash, events(3)[1:], NOW, Origin("req-1"), None)
    forged = rows[:1] + tail
    assert [e.chain_key for e in forged] == [CHAIN_KEYS.current, None, None]
    bad = check(forged, CHAIN_KEYS).broken
    assert bad is not None and bad[0] == 2 and "after keyed events" in bad[1]


def test_a_plain_hash_proves_nothing_of_the_fields_that_came_with_the_key() -> None:
    legacy = chained(None, 2, Origin("req-1", None))
    for forged in (
        replace(legacy[1], client_address="198.51.100.1"),
        replace(legacy[1], actor=Actor(ActorKind.OPERATOR, None, "mallory")),
        replace(legacy[1], actor=Actor(ActorKind.ANONYMOUS)),
    ):
        bad = check([legacy[0], forged], CHAIN_KEYS).broken
        assert bad is not None and bad[0] == 2 and "only keyed events have" in bad[1]


def anchor_of(rows: list[StoredEvent], version: int, keys: ChainKeys = CHAIN_KEYS) -> Anchor:
    head = Head(rows[0].game_id, version, rows[version - 1].hash, NOW)
    return anchors.anchor(keys, head, NOW)


def test_an_anchor_is_signed_and_an_altered_one_is_not_trusted() -> None:
    rows = chained(CHAIN_KEYS)
    a = anchor_of(rows, 3)
    assert anchors.signature_problem(CHAIN_KEYS, a) is None
    assert anchors.from_json(anchors.to_json(a)) == a
    for forged in (
        replace(a, version=2),
        replace(a, head="0" * 64),
        replace(a, at=NOW + timedelta(1)),
    ):
        assert anchors.signature_problem(CHAIN_KEYS, forged) == (
            "its signature does not hold: the line was altered or forged"
        )
    problem = anchors.signature_problem(OTHER, a)
    assert problem is not None and "does not have" in problem
    with pytest.raises(ValueError, match="anchor"):
        anchors.from_json({"game_id": str(uuid4())})


def history(table: Table, keys: ChainKeys | None, joined: int = 2) -> list[StoredEvent]:
    """A waiting game's real events (created, ``joined`` seats), chained under ``keys``
    (None: as before the chain key)."""
    game_id = table.create(4)
    for seat in range(joined):
        table.join(game_id, seat)
    stream = table.stream(game_id)
    unchained = [
        Unchained(e.type, e.schema_version, e.data, e.actor if keys else as_v1(e.actor))
        for e in stream
    ]
    origin = Origin("req-1") if keys is None else ORIGIN
    return link(game_id, 0, GENESIS, unchained, NOW, origin, keys)


def as_v1(actor: Actor) -> Actor:
    """An actor as events recorded it before migration 0009."""
    return Actor(ActorKind.SYSTEM if actor.kind is ActorKind.ANONYMOUS else actor.kind, actor.seat)


def test_an_unkeyed_history_is_intact_only_when_vouched_for(table: Table) -> None:
    legacy = history(table, None)
    game_id = legacy[0].game_id
    report = verify_history(game_id, legacy, 3, CHAIN_KEYS)
    assert (report.intact, report.bad_seq) == (False, 1)
    assert "no anchor vouches for it" in (report.reason or "")
    assert verify_history(game_id, legacy, 3, CHAIN_KEYS, allow_unkeyed=True).intact
    vouched = verify_history(game_id, legacy, 3, CHAIN_KEYS, [anchor_of(legacy, 3)])
    assert vouched.intact and vouched.unkeyed == 3
    # An anchor of an older head vouches for that much only.
    assert not verify_history(game_id, legacy, 3, CHAIN_KEYS, [anchor_of(legacy, 2)]).intact


def test_anchors_find_a_deleted_tail_and_a_rewritten_head(table: Table) -> None:
    rows = history(table, CHAIN_KEYS, joined=3)
    game_id = rows[0].game_id
    kept = anchor_of(rows, 4)
    assert verify_history(game_id, rows, 4, CHAIN_KEYS, [kept]).intact
    # The newest event deleted, and the recorded version edited to match.
    cut = verify_history(game_id, rows[:3], 3, CHAIN_KEYS, [kept])
    assert (cut.intact, cut.bad_seq) == (False, 4)
    assert "its newest were deleted" in (cut.reason or "")
    # The same events chained again (by the key holder), at another time.
    unchained = [Unchained(e.type, e.schema_version, e.data, e.actor) for e in rows]
    again = link(game_id, 0, GENESIS, unchained, NOW + timedelta(1), ORIGIN, CHAIN_KEYS)
    assert check(again, CHAIN_KEYS).broken is None
    found = verify_history(game_id, again, 4, CHAIN_KEYS, [kept])
    assert (found.intact, found.bad_seq) == (False, 4)
    assert "rewritten since" in (found.reason or "")


# --- the worker's anchoring -------------------------------------------------------------


class Sink:
    def __init__(self, last: datetime | None = None, fail: bool = False) -> None:
        self.written: list[list[Anchor]] = []
        self.last = last
        self.fail = fail

    def last_at(self) -> datetime | None:
        return self.last

    def write(self, lines: Sequence[Anchor], at: datetime) -> str:
        if self.fail:
            raise OSError("disk full")
        self.written.append(list(lines))
        return "memory"


def anchored(sink: Sink) -> list[tuple[UUID, int]]:
    return [(a.game_id, a.version) for a in sink.written[-1]]


def test_the_worker_anchors_each_changed_game_once_a_period(
    table: Table, deps: Deps, clock: FixedClock
) -> None:
    first = table.create(3)
    second = table.create(3)
    clock.advance(timedelta(minutes=10))
    sink = Sink()
    job = Anchoring(sink, every=timedelta(minutes=5), overlap=timedelta(minutes=2))
    assert job.run_due(deps) == 1
    assert sorted(anchored(sink)) == sorted([(first, 1), (second, 1)])
    for a in sink.written[-1]:
        assert anchors.signature_problem(CHAIN_KEYS, a) is None
        assert a.at == clock.now()
    assert job.run_due(deps) == 0  # not due yet
    assert job.next_due(deps) == clock.now() + timedelta(minutes=5)

    clock.advance(timedelta(minutes=1))
    table.join(first, 0)
    clock.advance(timedelta(minutes=4))
    assert job.run_due(deps) == 1
    assert anchored(sink) == [(first, 2)]  # only what changed since the last period

    clock.advance(timedelta(minutes=5))
    job.run_due(deps)
    assert len(sink.written) == 2  # nothing changed: nothing written


def test_a_command_stamped_before_the_last_period_is_anchored_by_the_overlap(
    table: Table, deps: Deps, clock: FixedClock
) -> None:
    """A command stamps its game when it starts; one that started a minute before a
    period and committed after it is still anchored by the next."""
    game = table.create(3)
    clock.advance(timedelta(minutes=10))
    sink = Sink()
    job = Anchoring(sink, every=timedelta(minutes=5), overlap=timedelta(minutes=2))
    job.run_due(deps)
    clock.advance(timedelta(minutes=-1))  # the command's stamp, before that period
    table.join(game, 0)
    clock.advance(timedelta(minutes=6))
    job.run_due(deps)
    assert anchored(sink) == [(game, 2)]


def test_the_first_period_starts_from_the_newest_anchor_kept(
    table: Table, deps: Deps, clock: FixedClock
) -> None:
    table.create(3)
    clock.advance(timedelta(hours=1))
    recent = table.create(3)
    job = Anchoring(Sink(last=clock.now() - timedelta(minutes=1)))
    job.run_due(deps)
    sink = job.sink
    assert isinstance(sink, Sink)
    assert anchored(sink) == [(recent, 1)]


def test_a_period_that_cannot_write_is_anchored_by_the_next(
    table: Table, deps: Deps, clock: FixedClock
) -> None:
    game = table.create(3)
    sink = Sink(fail=True)
    job = Anchoring(sink, every=timedelta(minutes=5))
    assert job.run_due(deps) == 1  # logged, not raised: the worker goes on
    sink.fail = False
    clock.advance(timedelta(minutes=5))
    job.run_due(deps)
    assert anchored(sink) == [(game, 1)]


def test_a_game_played_through_the_handlers_is_keyed_to_its_end(table: Table, game: Game) -> None:
    stream = table.stream(game.id)
    assert check(stream, CHAIN_KEYS) == chain.ChainCheck(None, 0, len(stream))
