"""What the application's handlers take and give: plain data, no framework types."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar
from uuid import UUID

from service.application.auth import Principal
from service.application.ports import Actor, GameSummary, StoredEvent
from service.rules import Scoring, Variant

V = TypeVar("V")


@dataclass(frozen=True, slots=True)
class RequestContext:
    """Who sends a command, and the request's metadata."""

    principal: Principal
    client: str = ""  # the client's address: scopes the idempotency keys of anonymous callers
    request_id: str | None = None
    idempotency_key: str | None = None  # the raw header; only its digest is stored
    fingerprint: str = ""  # of method, path and body: a reused key must match it
    if_match: frozenset[int] | None = None  # versions named by If-Match (ANY_VERSION: "*")


@dataclass(frozen=True, slots=True)
class Reply:
    """A command's response as the client receives it: what idempotent retries replay."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class DealInput:
    hands: list[list[str]]
    trump: str | None


@dataclass(frozen=True, slots=True)
class NewGame:
    players: int
    scoring: Scoring
    variant: Variant = Variant.STANDARD
    seed: int | None = None
    deals: list[DealInput] | None = None


@dataclass(frozen=True, slots=True)
class Versioned(Generic[V]):
    game_id: UUID
    version: int
    view: V


@dataclass(frozen=True, slots=True)
class Joined:
    game_id: UUID
    version: int
    seat: int
    token: str


@dataclass(frozen=True, slots=True)
class FeedEvent:
    seq: int
    type: str
    data: dict[str, Any]
    recorded_at: datetime
    actor: Actor


@dataclass(frozen=True, slots=True)
class Feed:
    game_id: UUID
    version: int
    events: list[FeedEvent]
    next_after: int | None  # pass as ``after`` for the next page; None if no more


@dataclass(frozen=True, slots=True)
class AuditTrail:
    game_id: UUID
    version: int
    events: list[StoredEvent]
    next_after: int | None


@dataclass(frozen=True, slots=True)
class GamePage:
    games: list[GameSummary]
    next_cursor: str | None


@dataclass(frozen=True, slots=True)
class VerifyReport:
    game_id: UUID
    events: int
    intact: bool
    bad_seq: int | None = None
    reason: str | None = None
