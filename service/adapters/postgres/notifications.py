"""Turn notifications (migration 0019): players' choices, push subscriptions, who is
looking at what, and the pushes of the outbox (kind ``push``).

A commit's pushes are queued in its one statement (:meth:`SqlNotifications.fan_out`),
like its webhooks: one row per subscription of each seat's player, found by index, so a
commit whose players have no subscription writes nothing and reads no more than two
index lookups. The unique index ``outbox_push_once`` keeps a second push for the same
subscription, game and version out (ON CONFLICT DO NOTHING).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from service.adapters.postgres.notification_sql import (
    CLAIM_MAIL,
    CLAIM_PUSHES,
    QUEUE_DIGESTS,
    REMIND,
    fan_out_sql,
)
from service.adapters.postgres.session import Session, Statement, json_text
from service.adapters.postgres.wakeups import CHANNEL as JOBS_CHANNEL
from service.application.jobs.source import OUTBOX_NOTE
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

_CHOICES = "push, mail, email, email_verified, digest, reminder_minutes"
_SUBSCRIPTION = "id, player_id, endpoint, keys, created_at, expires_at"
_COLUMNS = {"push", "mail", "email", "email_verified", "digest", "reminder_minutes"}


def _choices(row: Sequence[Any] | None) -> Choices:
    if row is None:
        return Choices()
    return Choices(*row)


def _subscription(row: Sequence[Any]) -> Subscription:
    return Subscription(row[0], row[1], row[2], row[3], row[4], row[5])


class SqlNotifications:
    def __init__(self, session: Session) -> None:
        self._session = session

    def choices(self, player_id: UUID) -> Choices:
        rows = self._session.fetch(
            f"SELECT {_CHOICES} FROM notification_settings WHERE player_id = %s",
            [player_id],
            one_row=True,
        )
        return _choices(rows[0] if rows else None)

    def choose(self, player_id: UUID, changes: dict[str, Any], token: str) -> None:
        columns = sorted(changes)
        if not columns or not set(columns) <= _COLUMNS:
            raise ValueError(f"no such choices: {columns}")
        names = ", ".join(columns)
        marks = ", ".join(["%s"] * len(columns))
        sets = ", ".join(f"{c} = excluded.{c}" for c in columns)
        self._session.write(
            Statement(
                f"INSERT INTO notification_settings (player_id, unsubscribe_token, {names}) "
                f"VALUES (%s, %s, {marks}) ON CONFLICT (player_id) DO UPDATE SET {sets}",
                (player_id, token, *(changes[c] for c in columns)),
            )
        )

    def subscriptions(self, player_id: UUID) -> list[Subscription]:
        rows = self._session.fetch(
            f"SELECT {_SUBSCRIPTION} FROM push_subscriptions WHERE player_id = %s "
            "ORDER BY created_at, id",
            [player_id],
            order="created_at",
        )
        return [_subscription(r) for r in rows]

    def subscription(self, player_id: UUID, endpoint_hash: str) -> Subscription | None:
        rows = self._session.fetch(
            f"SELECT {_SUBSCRIPTION} FROM push_subscriptions "
            "WHERE player_id = %s AND endpoint_hash = %s",
            [player_id, endpoint_hash],
            one_row=True,
        )
        return _subscription(rows[0]) if rows else None

    def subscribe(self, subscription: Subscription, endpoint_hash: str) -> None:
        s = subscription
        self._session.write(
            Statement(
                "INSERT INTO push_subscriptions (id, player_id, endpoint_hash, endpoint, keys, "
                "expires_at, created_at) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                (s.id, s.player_id, endpoint_hash, s.endpoint, s.keys, s.expires_at, s.created_at),
            )
        )

    def unsubscribe(self, player_id: UUID, subscription_id: UUID) -> bool:
        rows = self._session.fetch(
            "SELECT 1 FROM push_subscriptions WHERE id = %s AND player_id = %s",
            [subscription_id, player_id],
            one_row=True,
        )
        if not rows:
            return False
        self._delete([subscription_id])
        return True

    def _delete(self, ids: Sequence[UUID]) -> None:
        self._session.write(
            Statement(
                "DELETE FROM outbox WHERE kind = 'push' AND done_at IS NULL "
                "AND (payload->>'subscription_id')::uuid = ANY(%s::uuid[])",
                (list(ids),),
            )
        )
        self._session.write(
            Statement("DELETE FROM push_subscriptions WHERE id = ANY(%s::uuid[])", (list(ids),))
        )

    def fan_out(
        self,
        game_id: UUID,
        version: int,
        notices: Sequence[PushNotice],
        bound: Sequence[tuple[int, UUID]],
        now: datetime,
    ) -> None:
        if not notices:
            return
        params: list[Any] = [game_id, str(game_id), version, now, now]
        for n in notices:
            params += (n.type, n.seat, n.urgent)
        params.append(game_id)
        for seat, player_id in bound:
            params += (seat, player_id)
        self._session.write(Statement(fan_out_sql(len(notices), len(bound)), params))
        self._session.notify(JOBS_CHANNEL, OUTBOX_NOTE, if_wrote=True)

    def codes_since(self, player_id: UUID, since: datetime) -> int:
        rows = self._session.fetch(
            "SELECT count(*) FROM email_codes WHERE player_id = %s AND sent_at > %s",
            [player_id, since],
            one_row=True,
        )
        return int(rows[0][0])

    def latest_code(self, player_id: UUID) -> EmailCode | None:
        rows = self._session.fetch(
            "SELECT sent_at, address, code_hash, expires_at, tries FROM email_codes "
            "WHERE player_id = %s ORDER BY sent_at DESC LIMIT 1",
            [player_id],
            one_row=True,
        )
        return EmailCode(*rows[0]) if rows else None

    def set_email(
        self, player_id: UUID, code: EmailCode, mail: dict[str, Any], lang: str, token: str
    ) -> None:
        self._session.write(
            Statement(
                "INSERT INTO notification_settings (player_id, unsubscribe_token, email, "
                "email_verified, lang) VALUES (%s, %s, %s, false, %s) "
                "ON CONFLICT (player_id) DO UPDATE SET email = excluded.email, "
                "email_verified = false, lang = excluded.lang",
                (player_id, token, code.address, lang),
            )
        )
        self._session.write(
            Statement(
                "INSERT INTO email_codes (player_id, sent_at, address, code_hash, expires_at) "
                "VALUES (%s, %s, %s, %s, %s)",
                (player_id, code.sent_at, code.address, code.code_hash, code.expires_at),
            )
        )
        self._queue_mail(None, mail, code.sent_at)

    def _queue_mail(self, game_id: UUID | None, payload: dict[str, Any], now: datetime) -> None:
        self._session.write(
            Statement(
                "INSERT INTO outbox (kind, game_id, payload, created_at, available_at) "
                "VALUES ('mail', %s, %s::jsonb, %s, %s)",
                (game_id, json_text(payload), now, now),
            )
        )
        self._session.notify(JOBS_CHANNEL, OUTBOX_NOTE)

    def tried(self, player_id: UUID, sent_at: datetime) -> None:
        self._session.write(
            Statement(
                "UPDATE email_codes SET tries = tries + 1 WHERE player_id = %s AND sent_at = %s",
                (player_id, sent_at),
            )
        )

    def verified(self, player_id: UUID, address: str) -> bool:
        rows = self._session.fetch(
            "SELECT 1 FROM notification_settings WHERE player_id = %s AND email = %s",
            [player_id, address],
            one_row=True,
        )
        if not rows:
            return False
        self._session.write(
            Statement(
                "UPDATE notification_settings SET email_verified = true WHERE player_id = %s",
                (player_id,),
            )
        )
        # The codes stay (the day's count of codes sent holds: a player cannot reset it
        # by verifying), none usable any more.
        self._session.write(
            Statement("UPDATE email_codes SET tries = 100 WHERE player_id = %s", (player_id,))
        )
        return True

    def unsubscribe_mail(self, token: str) -> bool:
        rows = self._session.fetch(
            "SELECT player_id FROM notification_settings WHERE unsubscribe_token = %s",
            [token],
            one_row=True,
        )
        if not rows:
            return False
        self._session.write(
            Statement(
                "UPDATE notification_settings SET mail = false WHERE unsubscribe_token = %s",
                (token,),
            )
        )
        return True

    def remind(self, now: datetime, mail: bool) -> int:
        rows = self._session.fetch(REMIND, [mail, *[now] * 7])
        return int(rows[0][0]) if rows else 0

    def queue_digests(self, now: datetime) -> int:
        rows = self._session.fetch(QUEUE_DIGESTS, [now, now, now, now])
        return int(rows[0][0]) if rows else 0

    def claim_mail(self, now: datetime, lease_until: datetime, limit: int) -> list[Mail]:
        rows = self._session.fetch(CLAIM_MAIL, [now, limit, lease_until])
        return [Mail(*r) for r in sorted(rows, key=lambda r: r[0])]

    def record_mail(self, outcomes: Sequence[MailOutcome], now: datetime) -> None:
        self._settle(
            [o.mail.id for o in outcomes if o.done],
            [(o.mail.id, o.error, o.retry_at or now) for o in outcomes if not o.done],
        )

    def _settle(self, done: list[int], again: list[tuple[int, str | None, datetime]]) -> None:
        """Outbox rows done (deleted) and to be tried again (when, and why)."""
        if done:
            self._session.write(
                Statement("DELETE FROM outbox WHERE id = ANY(%s::bigint[])", (done,))
            )
        if again:
            self._session.write(
                Statement(
                    "UPDATE outbox AS o SET attempts = o.attempts + 1, last_error = v.error, "
                    "available_at = v.next_at FROM unnest(%s::bigint[], %s::text[], "
                    "%s::timestamptz[]) AS v(id, error, next_at) WHERE o.id = v.id",
                    ([a[0] for a in again], [a[1] for a in again], [a[2] for a in again]),
                )
            )

    def next_mail(self) -> datetime | None:
        rows = self._session.fetch(
            "SELECT min(available_at) FROM outbox WHERE kind = 'mail' AND done_at IS NULL",
            one_row=True,
        )
        return rows[0][0] if rows else None

    def waiting(self, player_id: UUID) -> list[Waiting]:
        rows = self._session.fetch(
            "SELECT game_id, due_since, deadline FROM inbox WHERE player_id = %s AND my_turn "
            "ORDER BY due_since NULLS LAST, game_id LIMIT 50",
            [player_id],
            order="due_since",
        )
        return [Waiting(*r) for r in rows]

    def claim_pushes(
        self, now: datetime, lease_until: datetime, watched_since: datetime, limit: int
    ) -> list[Push]:
        rows = self._session.fetch(CLAIM_PUSHES, [now, limit, lease_until, watched_since])
        return [
            Push(r[0], r[1], r[2], r[3], r[4], _record(r[5]), bool(r[6]), bool(r[7]))
            for r in sorted(rows, key=lambda r: r[0])
        ]

    def record_pushes(self, outcomes: Sequence[PushOutcome], now: datetime) -> None:
        if not outcomes:
            return
        self._session.commit_lazily()  # lost in a crash, the pushes are sent again
        gone = sorted({o.push.subscription.id for o in outcomes if o.gone and o.push.subscription})
        self._settle(
            [o.push.id for o in outcomes if o.done],
            [(o.push.id, o.error, o.retry_at or now) for o in outcomes if not o.done],
        )
        if gone:
            self._delete(gone)

    def next_push(self) -> datetime | None:
        rows = self._session.fetch(
            "SELECT min(available_at) FROM outbox WHERE kind = 'push' AND done_at IS NULL",
            one_row=True,
        )
        return rows[0][0] if rows else None

    def watch(self, stream_id: UUID, player_id: UUID, game_id: UUID | None, now: datetime) -> None:
        self._session.write(
            Statement(
                "INSERT INTO watchers (stream_id, player_id, game_id, seen_at) "
                "VALUES (%s, %s, %s, %s) ON CONFLICT (stream_id) DO UPDATE SET seen_at = %s",
                (stream_id, player_id, game_id, now, now),
            )
        )

    def seen(self, stream_ids: Sequence[UUID], now: datetime) -> None:
        if stream_ids:
            self._session.write(
                Statement(
                    "UPDATE watchers SET seen_at = %s WHERE stream_id = ANY(%s::uuid[])",
                    (now, list(stream_ids)),
                )
            )

    def unwatch(self, stream_id: UUID) -> None:
        self._session.write(Statement("DELETE FROM watchers WHERE stream_id = %s", (stream_id,)))

    # Housekeeping. Each table is small once kept pruned (open streams, a few codes a
    # player, a turn reminded per clocked game): a scan every ten minutes, no index.
    def forget_watchers(self, before: datetime, limit: int) -> int:
        # seen_at checked again on the row deleted: one refreshed meanwhile stays.
        return self._forget(
            "DELETE FROM watchers WHERE stream_id IN (SELECT stream_id FROM watchers "
            "WHERE seen_at < %s LIMIT %s) AND seen_at < %s",
            [before, limit, before],
        )

    def forget_codes(self, before: datetime, limit: int) -> int:
        return self._forget(
            "DELETE FROM email_codes WHERE (player_id, sent_at) IN (SELECT player_id, sent_at "
            "FROM email_codes WHERE sent_at < %s LIMIT %s)",
            [before, limit],
        )

    def forget_reminders(self, before: datetime, limit: int) -> int:
        return self._forget(
            "DELETE FROM reminded WHERE (player_id, game_id, deadline) IN (SELECT player_id, "
            "game_id, deadline FROM reminded WHERE deadline < %s LIMIT %s)",
            [before, limit],
        )

    def _forget(self, delete: str, params: list[Any]) -> int:
        """How many rows ``delete`` deleted."""
        rows = self._session.fetch(
            f"WITH d AS ({delete} RETURNING 1) SELECT count(*) FROM d", params, one_row=True
        )
        return int(rows[0][0])


def _record(row: dict[str, Any] | None) -> Subscription | None:
    """A subscription read as JSON (``to_jsonb``), or None once it was deleted."""
    if row is None:
        return None
    expires = row.get("expires_at")
    return Subscription(
        UUID(row["id"]),
        UUID(row["player_id"]),
        row["endpoint"],
        row["keys"],
        datetime.fromisoformat(row["created_at"]),
        datetime.fromisoformat(expires) if expires else None,
    )
