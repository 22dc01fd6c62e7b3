"""What the games capability needs from the store: the games projection and its heads,
snapshots, the players' inbox, and the wakeups of turn clocks and bots."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol
from uuid import UUID


@dataclass(frozen=True, slots=True)
class GameSummary:
    """A row of the games projection, for listings and cheap version checks."""

    id: UUID
    created_at: datetime
    updated_at: datetime
    players: int
    scoring: str
    variant: str
    status: str
    version: int


@dataclass(frozen=True, slots=True)
class Head:
    """The newest event of a game's chain: what an anchor records."""

    game_id: UUID
    version: int
    hash: str
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class InboxEntry:
    """One of a player's games as the inbox shows it (a row of the inbox projection)."""

    player_id: UUID
    game_id: UUID
    seat: int
    status: str
    version: int
    players: int
    scoring: str
    variant: str
    scores: tuple[int, ...]
    winner: tuple[int, ...] | None
    my_turn: bool
    action: str | None
    due_since: datetime | None  # since when it has been the seat's turn
    deadline: datetime | None  # by when the seat must act (turn clocks)
    updated_at: datetime
    invited_by: UUID | None = None  # the player who invited this one (kept once joined)
    invited_by_name: str | None = None  # their name as it reads now (read, not written)
    rematch_of: UUID | None = None  # the finished game this one plays again


@dataclass(frozen=True, slots=True)
class SeatTurn:
    """Whether a seat must act now, how, and by when (turn clocks)."""

    seat: int
    action: str | None
    deadline: datetime | None = None


@dataclass(frozen=True, slots=True)
class InboxCursor:
    """Where a page of an inbox ended: the sort key of its last entry."""

    my_turn: bool
    deadline: datetime | None
    due_since: datetime | None
    updated_at: datetime
    game_id: UUID


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A game's state folded up to ``version`` (whose event's hash is ``last_hash``), as
    the rules' snapshot data of ``schema_version``: a cache of the events, disposable."""

    game_id: UUID
    version: int
    last_hash: str
    schema_version: int
    data: dict[str, Any]


class GameIndex(Protocol):
    def add(self, summary: GameSummary) -> None: ...

    def update(self, game_id: UUID, *, status: str, version: int, updated_at: datetime) -> None: ...

    def get(self, game_id: UUID) -> GameSummary | None: ...

    def ids(self) -> list[UUID]:
        """Every game, oldest first (created at the same moment: by id)."""
        ...

    def page(
        self, *, status: str | None, before: tuple[datetime, UUID] | None, limit: int
    ) -> list[GameSummary]:
        """Games newest first, strictly older than ``before`` (created_at, id)."""
        ...

    def idle(self, *, status: str, before: datetime, limit: int) -> list[UUID]:
        """Games of ``status`` that have not changed since ``before``, oldest first."""
        ...

    def changed(
        self,
        *,
        status: str | None,
        since: datetime | None,
        after: tuple[datetime, UUID] | None,
        limit: int,
    ) -> list[GameSummary]:
        """Games by when they last changed, oldest first: at or after ``since`` (an
        aware time at any offset, any year), and strictly after ``after`` (updated_at,
        id)."""
        ...

    def heads(
        self, *, since: datetime | None, after: tuple[datetime, UUID] | None, limit: int
    ) -> list[Head]:
        """The head of each game's chain (its event at the recorded version), by when the
        game last changed, oldest first, as :meth:`changed` pages them. A game whose stream
        has no event at its recorded version has no head."""
        ...


class Inbox(Protocol):
    def add(self, entry: InboxEntry) -> None:
        """A game joins a player's inbox (queued)."""
        ...

    def update_game(
        self,
        game_id: UUID,
        *,
        status: str,
        version: int,
        scores: tuple[int, ...],
        winner: tuple[int, ...] | None,
        turns: Sequence[SeatTurn],
        updated_at: datetime,
        gone: Sequence[UUID] = (),
    ) -> None:
        """Every inbox entry of this game as it now stands (queued). An entry whose seat
        must act keeps its ``due_since`` while it still must act the same way. The
        entries of the players in ``gone`` go (an invitation declined)."""
        ...

    def page(
        self,
        player_id: UUID,
        statuses: Sequence[str],
        after: InboxCursor | None,
        limit: int,
    ) -> list[InboxEntry]:
        """Entries of these statuses in inbox order (the seat's turn first, soonest
        deadline, longest waiting; then the others, most recently updated first)."""
        ...

    def stamp(self, player_id: UUID, statuses: Sequence[str]) -> tuple[int, datetime | None, int]:
        """How many entries of these statuses, when the latest changed, and the sum of
        their games' versions (which grows with every command in any of them)."""
        ...

    def stamped_page(
        self,
        player_id: UUID,
        statuses: Sequence[str],
        after: InboxCursor | None,
        limit: int,
    ) -> tuple[tuple[int, datetime | None, int], list[InboxEntry]]:
        """:meth:`stamp` and :meth:`page` in one read, of the same moment."""
        ...

    def watched(self, player_id: UUID, since: datetime) -> list[InboxEntry]:
        """The entries that may still change or changed lately: those of games not
        finished, and those updated at or after ``since``."""
        ...

    def of_game(self, player_id: UUID, game_id: UUID) -> InboxEntry | None:
        """The player's entry of this game, if they have one (a seat held, or one kept for
        them)."""
        ...


class SnapshotStore(Protocol):
    def get(self, game_id: UUID, schema_version: int) -> Snapshot | None:
        """The game's snapshot, if there is one of this schema version."""
        ...

    def put(self, snapshot: Snapshot) -> None:
        """Keep this snapshot (queued with the unit of work's writes), unless the game has
        one of this schema version and of a later (or the same) version already. One of
        another schema version is replaced, whatever its version: the rules read only
        snapshots of their own."""
        ...


class Wakeups(Protocol):
    """When the worker must next look at each game (a bot's turn, a turn clock)."""

    def set(self, game_id: UUID, due_at: datetime | None, version: int) -> None:
        """(Queued.) Look at the game at ``due_at`` (None: never), as its ``version``
        says; what an earlier version said never overrides a later one's word."""
        ...

    def claim(self, now: datetime, lease_until: datetime, limit: int) -> list[UUID]:
        """Games due by ``now`` that no other worker is claiming, at most ``limit``, oldest
        due first. Each is due again at ``lease_until``, so that a worker that stops before
        it acts leaves the game to another. Done at once, outside any transaction."""
        ...

    def release(self, game_ids: Sequence[UUID], lease_until: datetime, now: datetime) -> None:
        """Hand back games claimed until ``lease_until`` and not acted on: due at ``now``
        for any worker, unless a command has set their time since. Done at once."""
        ...

    def next_due(self) -> datetime | None:
        """When the soonest game is due, if any is."""
        ...
