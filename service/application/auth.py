"""Who is asking: a seat of one game, an operator, or anyone."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from uuid import UUID


@dataclass(frozen=True, slots=True)
class Anonymous:
    @property
    def scope(self) -> str:
        # Idempotency keys of anonymous callers are further scoped by the client's address.
        return "anonymous"


@dataclass(frozen=True, slots=True)
class Operator:
    @property
    def scope(self) -> str:
        return "operator"


@dataclass(frozen=True, slots=True)
class SeatHolder:
    game_id: UUID
    seat: int

    @property
    def scope(self) -> str:
        return f"seat:{self.game_id}:{self.seat}"


@dataclass(frozen=True, slots=True)
class BadToken:
    """A bearer token that matches nothing."""

    @property
    def scope(self) -> str:
        return "invalid"


Principal = Anonymous | Operator | SeatHolder | BadToken


def new_token() -> str:
    """A seat's secret: 256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    """What is stored of a seat's token: its SHA-256."""
    return hashlib.sha256(token.encode()).hexdigest()


def is_operator_token(token: str, operator_token: str | None) -> bool:
    return operator_token is not None and hmac.compare_digest(
        token.encode(), operator_token.encode()
    )
