"""Sealing what was written before personal data was sealed (`yokai privacy reseal`,
docs/privacy.md "Events written before sealing").

Events of before migration 0014 hold names, client addresses and client request ids in
the clear, under hashes that cover them. Sealing them changes their bytes, so each such
event gets an attestation instead (service/application/integrity/chain.py ``attest``):
an HMAC under the chain key of its new content and its unchanged hash. The hash stays,
so the next event's link and every anchor of the head still hold; an event is attested
only if its game's chain verified just before, so nothing edited is ever vouched for.
The store rewrites those events in the clear's place, which the service's own role may
not do: the command runs as the tables' owner.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Protocol
from uuid import UUID

from service.application.integrity import chain
from service.application.integrity.chain import ChainKeys
from service.application.ports import ActorKind, StoredEvent
from service.application.privacy import sealing
from service.application.privacy.sealer import Sealer


class LegacyStore(Protocol):
    """The owner's access to what the service's role may not rewrite."""

    def players_in_clear(self) -> list[tuple[UUID, str]]: ...

    def rename(self, player_id: UUID, name: str) -> None: ...

    def games(self) -> Iterable[UUID]: ...

    def events(self, game_id: UUID) -> list[StoredEvent]: ...

    def seat_players(self, game_id: UUID) -> dict[int, UUID]: ...

    def rewrite(self, game_id: UUID, rows: list[StoredEvent], names: dict[int, str]) -> None:
        """Store the sealed events (with their attestations) in one transaction, drop the
        game's snapshots (they hold the names) and seal ``names`` (by seat) in its lobby
        row."""
        ...


@dataclass
class ResealReport:
    players: int = 0
    games: int = 0
    events: int = 0
    skipped: list[tuple[UUID, str]] = field(default_factory=list)  # broken chains


def reseal(store: LegacyStore, sealer: Sealer, keys: ChainKeys) -> ResealReport:
    report = ResealReport()
    for player_id, name in store.players_in_clear():
        store.rename(player_id, sealer.name(player_id, name))
        report.players += 1
    for game_id in store.games():
        rows = store.events(game_id)
        broken = chain.check(rows, keys).broken
        if broken is not None:
            report.skipped.append((game_id, f"seq {broken[0]}: {broken[1]}"))
            continue
        bound = store.seat_players(game_id)
        changed: list[StoredEvent] = []
        names: dict[int, str] = {}
        for row in rows:
            sealed = _sealed(row, bound, sealer)
            if sealed is not row:
                changed.append(replace(sealed, resealed=chain.attest(keys, sealed)))
                if sealed.data is not row.data:
                    names[int(sealed.data["seat"])] = str(sealed.data["name"])
        if changed:
            store.rewrite(game_id, changed, names)
            report.games += 1
            report.events += len(changed)
    return report


def _sender(row: StoredEvent, bound: dict[int, UUID]) -> UUID | None:
    actor = row.actor
    if actor.kind is ActorKind.PLAYER and actor.id:
        return UUID(actor.id)
    if actor.kind is ActorKind.SEAT and actor.id is None and actor.seat is not None:
        return bound.get(actor.seat)
    return None


def _clear(value: str | None) -> bool:
    return value is not None and not sealing.is_sealed(value)


def _sealed(row: StoredEvent, bound: dict[int, UUID], sealer: Sealer) -> StoredEvent:
    """The row with its personal data sealed as the write path seals it today (the same
    row when there is nothing to seal)."""
    out = row
    if row.type == "SeatJoined" and _clear(row.data.get("name")):
        raw = row.data.get("player")
        player = UUID(raw) if isinstance(raw, str) else bound.get(int(row.data["seat"]))
        if player is not None:
            out = replace(out, data={**row.data, "name": sealer.name(player, row.data["name"])})
    if _clear(row.client_address) or _clear(row.client_request_id):
        sender, at = _sender(row, bound), row.recorded_at
        address, client_id = row.client_address, row.client_request_id
        if _clear(address):
            address = sealer.request(address, at, sender)
        if _clear(client_id):
            client_id = sealer.request(client_id, at, sender)
        out = replace(out, client_address=address, client_request_id=client_id)
    return out
