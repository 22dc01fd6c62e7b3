"""Players' tokens, one row each (only the SHA-256 of a token is stored): listed and
revoked by their player. A revocation is announced on the service's channel as
``t <digest>``, so that every process ends the token's open streams at once. And what
makes tokens: OpenID Connect identities and link codes."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from service.adapters.postgres.events import CHANNEL
from service.adapters.postgres.session import Session, Statement
from service.application.identity.ports import LinkCode, PlayerAuditEntry, PlayerToken
from service.application.live.hub import token_key

_TOKEN = "id, player_id, via, created_at, token_sha256, last_used_at"

NOT_SUSPENDED = (
    "yokai_not_suspended(EXISTS (SELECT FROM player_tokens AS t JOIN players AS p "
    "ON p.id = t.player_id WHERE t.token_sha256 = %s AND p.suspended_at IS NOT NULL))"
)
"""The guard of a player's token against its player's suspension (403, not 401)."""


def add_token(session: Session, token: PlayerToken) -> None:
    session.write(
        Statement(
            "INSERT INTO player_tokens (id, player_id, token_sha256, via, created_at) "
            "VALUES (%s, %s, %s, %s, %s)",
            (token.id, token.player_id, token.token_sha256, token.via, token.created_at),
        )
    )


def _token(r: Sequence[Any]) -> PlayerToken:
    return PlayerToken(r[0], r[1], r[2], r[3], r[4], r[5])


class SqlPlayerTokens:
    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, token: PlayerToken) -> None:
        add_token(self._session, token)

    def get(self, token_id: UUID) -> PlayerToken | None:
        rows = self._session.fetch(
            f"SELECT {_TOKEN} FROM player_tokens WHERE id = %s AND revoked_at IS NULL",
            [token_id],
            one_row=True,
        )
        return _token(rows[0]) if rows else None

    def of(
        self, player_id: UUID, after: tuple[datetime, UUID] | None, limit: int
    ) -> list[PlayerToken]:
        before = "" if after is None else "AND (created_at, id) < (%s, %s) "
        rows = self._session.fetch(
            f"SELECT {_TOKEN} FROM player_tokens WHERE player_id = %s AND revoked_at IS NULL "
            f"{before}ORDER BY created_at DESC, id DESC LIMIT %s",
            [player_id, *(after or ()), limit],
        )
        return [_token(r) for r in rows]

    def revoke(self, token: PlayerToken, at: datetime) -> None:
        self._session.write(
            Statement(
                "UPDATE player_tokens SET revoked_at = %s WHERE id = %s AND revoked_at IS NULL",
                (at, token.id),
            )
        )
        self._session.notify(CHANNEL, token_key(token.token_sha256))

    def touch(self, token_sha256: str, at: datetime) -> None:
        self._session.fetch(
            "UPDATE player_tokens SET last_used_at = %s WHERE token_sha256 = %s "
            "AND revoked_at IS NULL AND (last_used_at IS NULL OR last_used_at < %s)",
            [at, token_sha256, at],
        )

    def require(self, token_sha256: str) -> None:
        self._session.require(
            Statement(
                "SELECT yokai_require(EXISTS (SELECT FROM player_tokens WHERE "
                "token_sha256 = %s AND revoked_at IS NULL), 'player token'), " + NOT_SUSPENDED,
                (token_sha256, token_sha256),
            )
        )


class SqlIdentities:
    def __init__(self, session: Session) -> None:
        self._session = session

    def find(self, issuer: str, subject: str) -> UUID | None:
        rows = self._session.fetch(
            "SELECT player_id FROM identities WHERE issuer = %s AND subject = %s",
            [issuer, subject],
            one_row=True,
        )
        return UUID(str(rows[0][0])) if rows else None

    def add(self, issuer: str, subject: str, player_id: UUID, at: datetime) -> None:
        self._session.write(
            Statement(
                "INSERT INTO identities (issuer, subject, player_id, created_at) "
                "VALUES (%s, %s, %s, %s)",
                (issuer, subject, player_id, at),
            )
        )


class SqlLinkCodes:
    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, code: LinkCode) -> None:
        self._session.write(
            Statement(
                "INSERT INTO link_codes (code_sha256, player_id, created_at, expires_at) "
                "VALUES (%s, %s, %s, %s)",
                (code.code_sha256, code.player_id, code.created_at, code.expires_at),
            )
        )

    def take(self, code_sha256: str, now: datetime) -> UUID | None:
        # Locked until the unit of work ends: a second redemption waits, then finds the
        # code used (READ COMMITTED reads the row again once the lock is free).
        self._session.begin()
        rows = self._session.fetch(
            "SELECT player_id FROM link_codes WHERE code_sha256 = %s AND used_at IS NULL "
            "AND expires_at > %s FOR UPDATE",
            [code_sha256, now],
            one_row=True,
        )
        if not rows:
            return None
        self._session.write(
            Statement(
                "UPDATE link_codes SET used_at = %s WHERE code_sha256 = %s", (now, code_sha256)
            )
        )
        return UUID(str(rows[0][0]))


_AUDIT = "id, player_id, at, action, actor_kind, actor_id, reason, request_id"


class SqlPlayerAudit:
    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, entry: PlayerAuditEntry) -> None:
        self._session.write(
            Statement(
                "INSERT INTO player_audit (player_id, at, action, actor_kind, actor_id, "
                "reason, request_id) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                (
                    entry.player_id,
                    entry.at,
                    entry.action,
                    entry.actor_kind,
                    entry.actor_id,
                    entry.reason,
                    entry.request_id,
                ),
            )
        )

    def page(self, player_id: UUID, after: int, limit: int) -> list[PlayerAuditEntry]:
        rows = self._session.fetch(
            f"SELECT {_AUDIT} FROM player_audit WHERE player_id = %s AND id > %s "
            "ORDER BY id LIMIT %s",
            [player_id, after, limit],
        )
        return [PlayerAuditEntry(r[1], r[2], r[3], r[4], r[5], r[6], r[7], int(r[0])) for r in rows]
