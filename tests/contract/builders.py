"""Rows for the contract checks: games, their events, players, inbox entries."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

from service.application.games.ports import GameSummary, InboxEntry
from service.application.identity.ports import PlayerRecord, PlayerToken
from service.application.integrity import chain
from service.application.ports import SYSTEM, Actor, StoredEvent
from tests.contract.stores import Store

KEYS = chain.ChainKeys(b"contract-tests-chain-key-32bytes")


def sha(text: str) -> str:
    """A token's or a key's SHA-256, as the stores keep them."""
    return hashlib.sha256(text.encode()).hexdigest()


def summary(
    game_id: UUID,
    at: datetime,
    *,
    version: int = 1,
    status: str = "waiting",
    updated_at: datetime | None = None,
) -> GameSummary:
    return GameSummary(game_id, at, updated_at or at, 4, "basic", "standard", status, version)


def events(
    game_id: UUID,
    at: datetime,
    *,
    after: int = 0,
    count: int = 1,
    prev_hash: str = chain.GENESIS,
    actor: Actor = SYSTEM,
    origin: chain.Origin | None = None,
    data: dict[str, Any] | None = None,
) -> list[StoredEvent]:
    """``count`` events of the game numbered from ``after + 1``, chained after
    ``prev_hash``."""
    unchained = [
        chain.Unchained(f"E{after + n + 1}", 1, data or {"n": after + n + 1}, actor)
        for n in range(count)
    ]
    return chain.link(game_id, after, prev_hash, unchained, at, origin or chain.Origin(), KEYS)


def new_game(
    store: Store,
    *,
    count: int = 1,
    status: str = "waiting",
    at: datetime | None = None,
    updated_at: datetime | None = None,
    game_id: UUID | None = None,
) -> UUID:
    """A committed game: its row, at version ``count``, and its first ``count`` events."""
    game_id = game_id or uuid4()
    at = at or store.clock.now()
    with store.uow() as uow:
        uow.games.add(summary(game_id, at, version=count, status=status, updated_at=updated_at))
        if count:
            uow.events.append(events(game_id, at, count=count))
        uow.commit()
    return game_id


def append(store: Store, game_id: UUID, count: int = 1) -> list[StoredEvent]:
    """``count`` more events of the game, committed with its row's new version."""
    with store.uow() as uow:
        stream = uow.events.load(game_id)
        last = stream[-1] if stream else None
        rows = events(
            game_id,
            store.clock.now(),
            after=last.seq if last else 0,
            count=count,
            prev_hash=last.hash if last else chain.GENESIS,
        )
        uow.events.append(rows)
        uow.games.update(
            game_id, status="playing", version=rows[-1].seq, updated_at=store.clock.now()
        )
        uow.commit()
    return rows


def new_player(store: Store, name: str = "Mio") -> PlayerRecord:
    """A committed player whose token is ``name``'s digest with the player's id."""
    player = PlayerRecord(uuid4(), name, store.clock.now())
    with store.uow() as uow:
        uow.players.add(player, made_token(player.id, player_token(player.id), player.created_at))
        uow.commit()
    return player


def player_token(player_id: UUID) -> str:
    return sha(f"player {player_id}")


def made_token(
    player_id: UUID, digest: str, at: datetime, via: str = "created", token_id: UUID | None = None
) -> PlayerToken:
    """A player's token with this digest (a new id unless given)."""
    return PlayerToken(token_id or uuid4(), player_id, via, at, digest)


def seat_player(store: Store, game_id: UUID, seat: int, player_id: UUID) -> None:
    with store.uow() as uow:
        uow.players.bind(game_id, seat, player_id)
        uow.commit()


def inbox_entry(
    player_id: UUID,
    game_id: UUID,
    at: datetime,
    *,
    seat: int = 0,
    status: str = "playing",
    version: int = 1,
    action: str | None = None,
    deadline: datetime | None = None,
    due_since: datetime | None = None,
    updated_at: datetime | None = None,
) -> InboxEntry:
    return InboxEntry(
        player_id=player_id,
        game_id=game_id,
        seat=seat,
        status=status,
        version=version,
        players=4,
        scoring="basic",
        variant="standard",
        scores=(0, 0),
        winner=None,
        my_turn=action is not None,
        action=action,
        due_since=due_since if action is not None else None,
        deadline=deadline,
        updated_at=updated_at or at,
    )


def minutes(n: float) -> timedelta:
    return timedelta(minutes=n)
