"""The worker's notification jobs against PostgreSQL (docs/api.md "Turn notifications"):
digests at most once per player and period, nothing when no game waits; reminders once
per turn, by the ways each player chose; an erased player's notifications gone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from service.application.jobs.housekeeping import Housekeeping
from service.bootstrap import Container
from tests.e2e.test_notifications import browser_subscription
from tests.support.api import Api, bearer


def _player(api: Api, name: str) -> tuple[str, str]:
    body = api.post("/v1/players", {"name": name}).get_json()
    return body["token"], body["id"]


def _verified(sql: Any, player_id: str, address: str = "pd1.x.sealed") -> None:
    """The player's address verified (as POST /v1/me/email/verify leaves it)."""
    sql(
        "INSERT INTO notification_settings (player_id, unsubscribe_token, email, "
        "email_verified) VALUES (:p, :t, :e, true) ON CONFLICT (player_id) DO UPDATE "
        "SET email = excluded.email, email_verified = true",
        p=player_id,
        t=f"token-{player_id}",
        e=address,
    )


def _waiting_game(api: Api, token: str) -> str:
    """A game where it is the player's turn (the deal: everyone passes)."""
    game_id: str = api.create(3)["id"]
    api.post(f"/v1/games/{game_id}/seats/0", {}, **bearer(token))
    api.join(game_id, 1)
    api.join(game_id, 2)
    return game_id


def _mail(sql: Any, player_id: str, kind: str) -> list[Any]:
    return list(
        sql(
            "SELECT id, payload FROM outbox WHERE kind = 'mail' AND payload->>'type' = :k "
            "AND payload->>'player_id' = :p ORDER BY id",
            k=kind,
            p=player_id,
        )
    )


def _queue_digests(container: Container, now: datetime) -> None:
    with container.deps.uow() as uow:
        uow.notifications.queue_digests(now)
        uow.commit()


def test_a_digest_goes_at_most_once_per_period_and_only_when_a_game_waits(
    api: Api, sql: Any, container: Container
) -> None:
    token, player = _player(api, "Mio")
    _verified(sql, player)
    api.client.patch("/v1/me/notifications", json={"digest": "hourly"}, headers=bearer(token))
    # 03:00 UTC tomorrow, whatever the time now: the hours below stay in one UTC day (at
    # 20:xx, "now + 3 h" was 23:00, and the hours after it fell on the next day).
    tomorrow = datetime.now(UTC) + timedelta(days=1)
    hour = tomorrow.replace(hour=3, minute=0, second=0, microsecond=0)
    _queue_digests(container, hour + timedelta(minutes=5))
    assert _mail(sql, player, "digest") == []  # nothing waits on the player
    _waiting_game(api, token)
    _queue_digests(container, hour + timedelta(minutes=6))
    _queue_digests(container, hour + timedelta(minutes=59))  # the same hour: no second
    assert len(_mail(sql, player, "digest")) == 1
    _queue_digests(container, hour + timedelta(minutes=61))  # the next hour
    assert len(_mail(sql, player, "digest")) == 2
    # Daily: the next is the next UTC day's.
    api.client.patch("/v1/me/notifications", json={"digest": "daily"}, headers=bearer(token))
    _queue_digests(container, hour + timedelta(hours=2))  # the same UTC day: none
    assert len(_mail(sql, player, "digest")) == 2
    day = hour.replace(hour=0) + timedelta(days=1)
    _queue_digests(container, day + timedelta(hours=1))
    assert len(_mail(sql, player, "digest")) == 3
    # Mail off, or no digest: none.
    api.client.patch("/v1/me/notifications", json={"mail": False}, headers=bearer(token))
    _queue_digests(container, day + timedelta(days=1, hours=1))
    assert len(_mail(sql, player, "digest")) == 3


def test_an_unverified_address_gets_no_digest(api: Api, sql: Any, container: Container) -> None:
    token, player = _player(api, "Ren")
    sql(
        "INSERT INTO notification_settings (player_id, unsubscribe_token, email, digest) "
        "VALUES (:p, :t, 'pd1.x.sealed', 'hourly')",
        p=player,
        t=f"token-{player}",
    )
    _waiting_game(api, token)
    _queue_digests(container, datetime.now(UTC) + timedelta(hours=5))
    assert _mail(sql, player, "digest") == []


def _remind(container: Container, now: datetime) -> None:
    with container.deps.uow() as uow:
        uow.notifications.remind(now, True)
        uow.commit()


def test_a_reminder_goes_once_per_turn_by_the_ways_chosen(
    api: Api, sql: Any, container: Container
) -> None:
    """Once per turn: while the others pass, each pass is a new version of the game with
    the same deadline, and the turn is reminded of once."""
    token, player = _player(api, "Aiko")
    api.client.patch("/v1/me/notifications", json={"reminder_minutes": 5}, headers=bearer(token))
    _verified(sql, player)
    clock = {"turn_seconds": 3600, "on_timeout": "autoplay"}
    game_id: str = api.create(3, clock=clock)["id"]
    api.post(f"/v1/games/{game_id}/seats/0", {}, **bearer(token))
    other = api.join(game_id, 1)
    api.join(game_id, 2)  # the deal: everyone passes, with an hour on the clock

    def deadline() -> datetime:
        (row,) = sql("SELECT deadline FROM inbox WHERE game_id = :g", g=game_id)
        found: datetime = row[0]
        return found

    due = deadline()
    _remind(container, due - timedelta(minutes=6))  # six minutes left: not yet
    assert _mail(sql, player, "reminder") == []
    _remind(container, due - timedelta(minutes=4))
    hand = api.get(f"/v1/games/{game_id}/view", Authorization=f"Bearer {other}").get_json()
    r = api.post(
        f"/v1/games/{game_id}/pass", {"cards": hand["hand"][:3]}, Authorization=f"Bearer {other}"
    )
    assert r.status_code == 200, r.get_json()
    assert deadline() == due  # another seat's pass: a new version, the same turn
    _remind(container, due - timedelta(minutes=3))
    (mail,) = _mail(sql, player, "reminder")
    assert mail.payload["version"] < api.public(game_id)["version"]
    _remind(container, due + timedelta(seconds=1))  # the clock ran out: none
    assert len(_mail(sql, player, "reminder")) == 1
    # Without mail on this server, reminders are pushes only: no message is queued.
    sql("DELETE FROM reminded WHERE game_id = :g", g=game_id)
    with container.deps.uow() as uow:
        uow.notifications.remind(due - timedelta(minutes=2), False)
        uow.commit()
    assert len(_mail(sql, player, "reminder")) == 1


def test_erasure_removes_subscriptions_address_and_waiting_messages(api: Api, sql: Any) -> None:
    token, player = _player(api, "Kai")
    r = api.post("/v1/me/push-subscriptions", browser_subscription(), **bearer(token))
    assert r.status_code == 201, r.get_json()
    _verified(sql, player)
    api.client.patch("/v1/me/notifications", json={"digest": "daily"}, headers=bearer(token))
    sql(
        "INSERT INTO outbox (kind, payload, created_at, available_at) VALUES ('mail', "
        "jsonb_build_object('type', 'digest', 'player_id', CAST(:p AS text)), now(), "
        "now() + interval '1 day')",
        p=player,
    )
    assert api.client.delete("/v1/me", headers=bearer(token)).status_code == 204
    for table in ("notification_settings", "push_subscriptions", "email_codes"):
        assert sql(f"SELECT 1 FROM {table} WHERE player_id = :p", p=player) == []
    assert _mail(sql, player, "digest") == []


def test_housekeeping_forgets_stale_watchers_old_codes_and_past_reminders(
    api: Api, sql: Any, container: Container
) -> None:
    """The worker's housekeeping keeps these tables to what still counts: a stream not
    refreshed for an hour (its process died; a live one is refreshed every 30 s), a code
    sent a week ago (the day's count is of the last day), a turn reminded of whose
    deadline passed a day ago. What still counts stays, one row a batch or many."""
    token, player = _player(api, "Nao")
    game = _waiting_game(api, token)
    now = datetime.now(UTC)
    for age, stream in ((timedelta(hours=2), 1), (timedelta(hours=3), 2), (timedelta(0), 3)):
        sql(
            "INSERT INTO watchers (stream_id, player_id, game_id, seen_at) "
            "VALUES (CAST(:s AS uuid), :p, :g, :t)",
            s=f"00000000-0000-4000-8000-{stream:012d}",
            p=player,
            g=game,
            t=now - age,
        )
    for age in (timedelta(days=8), timedelta(days=9), timedelta(hours=12)):
        sql(
            "INSERT INTO email_codes (player_id, sent_at, address, code_hash, expires_at) "
            "VALUES (:p, :t, 'pd1.x.sealed', 'hash', :e)",
            p=player,
            t=now - age,
            e=now - age + timedelta(minutes=15),
        )
    for due in (now - timedelta(days=2), now - timedelta(hours=1), now + timedelta(hours=1)):
        sql(
            "INSERT INTO reminded (player_id, game_id, deadline, at) VALUES (:p, :g, :d, :d)",
            p=player,
            g=game,
            d=due,
        )

    def left(table: str, column: str) -> list[timedelta]:
        rows = sql(f"SELECT {column} FROM {table} WHERE player_id = :p", p=player)
        return sorted(round((now - r[0]) / timedelta(hours=1)) * timedelta(hours=1) for r in rows)

    assert Housekeeping(batch=1).run_due(container.deps) == 1
    assert left("watchers", "seen_at") == [timedelta(0)]
    assert left("email_codes", "sent_at") == [timedelta(hours=12)]
    # None is due once its deadline passed; a deadline an hour ago is kept a day all the
    # same (a clock a little behind the database's does no harm).
    assert left("reminded", "deadline") == [timedelta(hours=-1), timedelta(hours=1)]
