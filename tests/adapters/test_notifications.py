"""A command's commit announcement: its events travel in the payload when they fit, and
come back out exactly as the store gives them."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from uuid import uuid4

from service.adapters.postgres.events import NOTIFY_LIMIT, from_notification, notification
from service.adapters.postgres.listener import Listener, commit_of, parse
from service.application.games.loading import NEW_GAME
from service.application.live.hub import Hub, game_key
from service.application.live.recent import RecentCommits
from service.application.ports import Actor, ActorKind, StoredEvent


def _event(seq: int, data: dict[str, object], game_id: object) -> StoredEvent:
    return StoredEvent(
        game_id=game_id,  # type: ignore[arg-type]
        seq=seq,
        type="CardPlayed",
        schema_version=1,
        data=data,
        recorded_at=datetime(2026, 11, 23, 22, 1, 2, 345678, tzinfo=UTC),
        actor=Actor(ActorKind.SEAT, 2),
        request_id="req-1",
        idempotency_key=None,
        prev_hash="a" * 64,
        hash="b" * 64,
    )


def test_a_small_commit_carries_its_events_exactly() -> None:
    game_id = uuid4()
    rows = [_event(7, {"card": "green-5", "seat": 2}, game_id), _event(8, {"x": [1]}, game_id)]
    payload = notification(rows)
    assert parse(payload) == (f"g {game_id}", 8)
    found = commit_of(payload)
    assert found == (game_id, rows)
    assert payload.split(" ")[3] == "6"  # the version before the commit


def test_a_large_commit_announces_only_its_version() -> None:
    game_id = uuid4()
    rows = [_event(s, {"pad": "x" * 500}, game_id) for s in range(1, 30)]
    payload = notification(rows)
    assert payload == f"g {game_id} 29 0"
    assert commit_of(payload) is None
    assert parse(payload) == (f"g {game_id}", 29)
    assert len(json.dumps([r.data for r in rows])) > NOTIFY_LIMIT


def test_a_row_from_a_notification_is_the_stored_row() -> None:
    game_id = uuid4()
    row = _event(3, {"a": None}, game_id)
    item = json.loads(notification([row]).split(" ", 4)[4])[0]
    assert from_notification(game_id, item) == row


def test_a_notification_this_process_cannot_fold_still_wakes_its_waiters() -> None:
    """An event this process cannot decode (a type of a newer release during a rolling
    deploy) is not held, but the listener lives on and wakes the game's waiters, which
    then read the store."""
    game_id = uuid4()
    hub, recent = Hub(), RecentCommits()
    listener = Listener("postgresql://u:p@localhost/db", hub, recent=recent)
    recent.watch(game_id, hub.epoch, NEW_GAME)
    row = replace(_event(1, {}, game_id), type="EventOfANewerRelease")
    with hub.subscribe(game_key(game_id)) as waiting:
        listener._heard(notification([row]))
        assert waiting.wait(0)
        assert hub.announced(game_key(game_id)) == 1


def test_an_unreadable_notification_is_dropped_without_harm() -> None:
    hub = Hub()
    listener = Listener("postgresql://u:p@localhost/db", hub, recent=RecentCommits())
    listener._heard("g not-a-uuid 3 2 []")
    listener._heard("")


def test_a_notification_row_is_the_written_columns_in_their_order_across_releases() -> None:
    """Processes of two releases hear each other during a rolling deploy: the row's
    order is fixed (columns are only ever added at the end)."""
    game_id = uuid4()
    row = replace(
        _event(4, {"seat": 2, "card": "green-5"}, game_id),
        actor=Actor(ActorKind.PLAYER, 2, "p-1"),
        idempotency_key="c" * 64,
        chain_key="k1",
        client_request_id="cr-1",
        client_address="192.0.2.7",
    )
    (item,) = json.loads(notification([row]).split(" ", 4)[4])
    micros = 1_795_471_262_345_678  # 2026-11-23 22:01:02.345678 UTC
    assert item == [
        *(4, "CardPlayed", 1, {"seat": 2, "card": "green-5"}, micros, "player", 2),
        *("req-1", "c" * 64, "a" * 64, "b" * 64, "k1", "p-1", "cr-1", "192.0.2.7"),
    ]


def test_a_row_of_a_process_from_before_migration_0009_is_read() -> None:
    game_id = uuid4()
    row = _event(3, {"a": 1}, game_id)
    (item,) = json.loads(notification([row]).split(" ", 4)[4])
    assert from_notification(game_id, item[:11]) == row  # stops at hash
