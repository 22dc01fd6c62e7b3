"""The hash chain over a game's events: proof that a stored history was not edited.

Each event's hash is SHA-256 over the previous event's hash and the event's own
canonical bytes (sorted-key compact JSON of every stored field). The first event of a
game chains from :data:`GENESIS`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from service.application.ports import Actor, StoredEvent

GENESIS = "0" * 64


def timestamp(moment: datetime) -> str:
    """The canonical text of a recording time (UTC, microseconds): what the hash covers."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def canonical(fields: dict[str, Any]) -> bytes:
    return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


@dataclass(frozen=True, slots=True)
class Unchained:
    """An event ready to be stored, before its place in the chain is known."""

    type: str
    schema_version: int
    data: dict[str, Any]
    actor: Actor


def event_hash(
    prev_hash: str,
    game_id: UUID,
    seq: int,
    event: Unchained,
    recorded_at: datetime,
    request_id: str | None,
    idempotency_key: str | None,
) -> str:
    content = canonical(
        {
            "game_id": str(game_id),
            "seq": seq,
            "type": event.type,
            "schema_version": event.schema_version,
            "data": event.data,
            "recorded_at": timestamp(recorded_at),
            "actor": {"kind": event.actor.kind.value, "seat": event.actor.seat},
            "request_id": request_id,
            "idempotency_key": idempotency_key,
        }
    )
    return hashlib.sha256(prev_hash.encode() + b"\n" + content).hexdigest()


def link(
    game_id: UUID,
    version: int,
    prev_hash: str,
    events: list[Unchained],
    recorded_at: datetime,
    request_id: str | None,
    idempotency_key: str | None,
) -> list[StoredEvent]:
    """Number events from ``version + 1`` and chain them after ``prev_hash``."""
    out: list[StoredEvent] = []
    for offset, e in enumerate(events, start=1):
        seq = version + offset
        h = event_hash(prev_hash, game_id, seq, e, recorded_at, request_id, idempotency_key)
        out.append(
            StoredEvent(
                game_id=game_id,
                seq=seq,
                type=e.type,
                schema_version=e.schema_version,
                data=e.data,
                recorded_at=recorded_at,
                actor=e.actor,
                request_id=request_id,
                idempotency_key=idempotency_key,
                prev_hash=prev_hash,
                hash=h,
            )
        )
        prev_hash = h
    return out


def first_broken_link(events: list[StoredEvent]) -> tuple[int, str] | None:
    """The first ``seq`` whose numbering, link or hash does not hold, and why; else None."""
    prev = GENESIS
    for expected_seq, e in enumerate(events, start=1):
        if e.seq != expected_seq:
            return expected_seq, f"sequence gap: expected seq {expected_seq}, found {e.seq}"
        if e.prev_hash != prev:
            return e.seq, "prev_hash does not match the previous event's hash"
        recomputed = event_hash(
            prev,
            e.game_id,
            e.seq,
            Unchained(e.type, e.schema_version, e.data, e.actor),
            e.recorded_at,
            e.request_id,
            e.idempotency_key,
        )
        if recomputed != e.hash:
            return e.seq, "content does not match its hash"
        prev = e.hash
    return None
