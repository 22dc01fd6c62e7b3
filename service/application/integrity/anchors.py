"""Anchors: each game's chain head, signed with the chain key and kept outside the
database, so that a history rewritten since cannot pass for the one that was anchored.

The worker (:class:`service.application.jobs.sources.Anchoring`) writes, every period, one
signed line per game that changed since the last period: the game, its version, the
hash of its event at that version, and when. ``yokai verify --anchors PATH`` checks that
every anchored head is still in its chain, at its version: a history whose tail was
deleted (even with ``games.version`` edited to match), or whose chain was recomputed
(keyed or not) since it was anchored, no longer holds it.

What anchors do not protect: what happened since the last anchor (at most a period's
commands), and anchors that were deleted (keep them where the database's users cannot
write, and ship them off the host: the worker logs each period's digest too).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol
from uuid import UUID

from service.application.games.ports import Head
from service.application.integrity import chain
from service.application.integrity.chain import ChainKeys


@dataclass(frozen=True, slots=True)
class Anchor:
    """One game's chain head as it stood at ``at``, signed (``key``, ``sig``)."""

    game_id: UUID
    version: int
    head: str
    at: datetime
    key: str
    sig: str

    def message(self) -> dict[str, Any]:
        return _message(self.game_id, self.version, self.head, self.at)


class AnchorSink(Protocol):
    """Where anchors are kept, out of the database's reach."""

    def last_at(self) -> datetime | None:
        """When the newest anchor kept there was made, if any."""
        ...

    def write(self, lines: Sequence[Anchor], at: datetime) -> str:
        """Keep these anchors; where they went."""
        ...


def _message(game_id: UUID, version: int, head: str, at: datetime) -> dict[str, Any]:
    return {
        "anchor": 1,
        "game_id": str(game_id),
        "version": version,
        "head": head,
        "at": chain.timestamp(at),
    }


def anchor(keys: ChainKeys, head: Head, at: datetime) -> Anchor:
    kid, sig = chain.sign(keys, _message(head.game_id, head.version, head.hash, at))
    return Anchor(head.game_id, head.version, head.hash, at, kid, sig)


def to_json(a: Anchor) -> dict[str, Any]:
    return {**a.message(), "key": a.key, "sig": a.sig}


def from_json(fields: dict[str, Any]) -> Anchor:
    """An anchor as its line holds it (:class:`ValueError` if it is not one)."""
    try:
        if fields.get("anchor") != 1:
            raise ValueError("not an anchor line")
        at = datetime.fromisoformat(str(fields["at"]).replace("Z", "+00:00"))
        version = fields["version"]
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise ValueError("version is not a positive integer")
        return Anchor(
            UUID(str(fields["game_id"])),
            version,
            str(fields["head"]),
            at,
            str(fields["key"]),
            str(fields["sig"]),
        )
    except (KeyError, TypeError) as exc:
        raise ValueError(f"not an anchor line: {exc}") from None


def signature_problem(keys: ChainKeys, a: Anchor) -> str | None:
    """Why this anchor cannot be trusted (None: its signature holds)."""
    holds = chain.signature_holds(keys, a.message(), a.key, a.sig)
    if holds is None:
        return (
            f"signed under chain key {a.key}, which this service does not have "
            "(YOKAI_CHAIN_KEY, YOKAI_CHAIN_OLD_KEYS)"
        )
    if not holds:
        return "its signature does not hold: the line was altered or forged"
    return None
