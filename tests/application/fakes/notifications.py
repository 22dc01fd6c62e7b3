"""Turn notifications: players' choices, subscriptions and the pushes a commit queues,
kept beside the tables (as FakeReputations keeps marks). The worker's side (claims,
watchers) is the adapter's alone, tested against PostgreSQL."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any
from uuid import UUID

from service.application.notify.ports import (
    Choices,
    EmailCode,
    Mail,
    MailOutcome,
    Push,
    PushNotice,
    PushOutcome,
    Subscription,
    Waiting,
)
from tests.application.fakes.tables import Commit

if TYPE_CHECKING:
    from tests.application.fakes.unit_of_work import FakeUnitOfWork


class FakeNotifications:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow
        self._db = uow.db

    def choices(self, player_id: UUID) -> Choices:
        self._uow.read()
        return self._db.notification_choices.get(player_id, Choices())

    def choose(self, player_id: UUID, changes: dict[str, Any], token: str) -> None:
        def write(c: Commit) -> None:
            had = c.db.notification_choices.get(player_id, Choices())
            c.db.notification_choices[player_id] = replace(had, **changes)

        self._uow.queue(write)

    def subscriptions(self, player_id: UUID) -> list[Subscription]:
        self._uow.read()
        return [s for s, _ in self._db.push_subscriptions.values() if s.player_id == player_id]

    def subscription(self, player_id: UUID, endpoint_hash: str) -> Subscription | None:
        self._uow.read()
        for s, digest in self._db.push_subscriptions.values():
            if s.player_id == player_id and digest == endpoint_hash:
                return s
        return None

    def subscribe(self, subscription: Subscription, endpoint_hash: str) -> None:
        def write(c: Commit) -> None:
            c.db.push_subscriptions[subscription.id] = (subscription, endpoint_hash)

        self._uow.queue(write)

    def unsubscribe(self, player_id: UUID, subscription_id: UUID) -> bool:
        found = self._db.push_subscriptions.get(subscription_id)
        if found is None or found[0].player_id != player_id:
            return False

        def write(c: Commit) -> None:
            c.db.push_subscriptions.pop(subscription_id, None)

        self._uow.queue(write)
        return True

    def fan_out(
        self,
        game_id: UUID,
        version: int,
        notices: Sequence[PushNotice],
        bound: Sequence[tuple[int, UUID]],
        now: datetime,
    ) -> None:
        def write(c: Commit) -> None:
            seats = {**{s: p for (g, s), p in c.before.seat_players.items() if g == game_id}}
            seats.update(dict(bound))
            for n in notices:
                player = seats.get(n.seat)
                if player is None or not c.db.notification_choices.get(player, Choices()).push:
                    continue
                for s, _ in list(c.db.push_subscriptions.values()):
                    key = (s.id, game_id, version)
                    if s.player_id == player and key not in c.db.pushes:
                        c.db.pushes[key] = n.type

        self._uow.queue(write)

    def codes_since(self, player_id: UUID, since: datetime) -> int:
        return sum(1 for c in self._db.email_codes.get(player_id, []) if c.sent_at > since)

    def latest_code(self, player_id: UUID) -> EmailCode | None:
        codes = self._db.email_codes.get(player_id, [])
        return codes[-1] if codes else None

    def set_email(
        self, player_id: UUID, code: EmailCode, mail: dict[str, Any], lang: str, token: str
    ) -> None:
        def write(c: Commit) -> None:
            had = c.db.notification_choices.get(player_id, Choices())
            c.db.notification_choices[player_id] = replace(
                had, email=code.address, email_verified=False
            )
            c.db.email_codes.setdefault(player_id, []).append(code)
            c.db.mails.append(mail)

        self._uow.queue(write)

    def tried(self, player_id: UUID, sent_at: datetime) -> None:
        def write(c: Commit) -> None:
            codes = c.db.email_codes.get(player_id, [])
            codes[:] = [replace(x, tries=x.tries + 1) if x.sent_at == sent_at else x for x in codes]

        self._uow.queue(write)

    def verified(self, player_id: UUID, address: str) -> bool:
        if self._db.notification_choices.get(player_id, Choices()).email != address:
            return False

        def write(c: Commit) -> None:
            had = c.db.notification_choices[player_id]
            c.db.notification_choices[player_id] = replace(had, email_verified=True)
            codes = c.db.email_codes.get(player_id, [])
            codes[:] = [replace(x, tries=100) for x in codes]

        self._uow.queue(write)
        return True

    def unsubscribe_mail(self, token: str) -> bool:
        raise NotImplementedError("tokens are the adapter's: tested against PostgreSQL")

    def remind(self, now: datetime, mail: bool) -> int:
        raise NotImplementedError("the worker's reminders are tested against PostgreSQL")

    def queue_digests(self, now: datetime) -> int:
        raise NotImplementedError("the worker's digests are tested against PostgreSQL")

    def claim_mail(self, now: datetime, lease_until: datetime, limit: int) -> list[Mail]:
        raise NotImplementedError("the worker's mail is tested against PostgreSQL")

    def record_mail(self, outcomes: Sequence[MailOutcome], now: datetime) -> None:
        raise NotImplementedError("the worker's mail is tested against PostgreSQL")

    def next_mail(self) -> datetime | None:
        return None

    def waiting(self, player_id: UUID) -> list[Waiting]:
        return []

    def claim_pushes(
        self, now: datetime, lease_until: datetime, watched_since: datetime, limit: int
    ) -> list[Push]:
        raise NotImplementedError("the worker's pushes are tested against PostgreSQL")

    def record_pushes(self, outcomes: Sequence[PushOutcome], now: datetime) -> None:
        raise NotImplementedError("the worker's pushes are tested against PostgreSQL")

    def next_push(self) -> datetime | None:
        return None

    def watch(self, stream_id: UUID, player_id: UUID, game_id: UUID | None, now: datetime) -> None:
        pass  # who looks is the adapter's: nothing here waits for it

    def seen(self, stream_ids: Sequence[UUID], now: datetime) -> None:
        pass

    def unwatch(self, stream_id: UUID) -> None:
        pass

    def forget_watchers(self, before: datetime, limit: int) -> int:
        return 0  # none kept here (watch above)

    def forget_codes(self, before: datetime, limit: int) -> int:
        # At once, as the adapter's (the codes are kept beside the tables: no commit).
        self._uow.read()
        old = [
            (player, c.sent_at)
            for player, codes in self._db.email_codes.items()
            for c in codes
            if c.sent_at < before
        ][:limit]
        for player, sent_at in old:
            codes = self._db.email_codes[player]
            codes[:] = [x for x in codes if x.sent_at != sent_at]
        return len(old)

    def forget_reminders(self, before: datetime, limit: int) -> int:
        return 0  # none kept here (remind is the adapter's)
