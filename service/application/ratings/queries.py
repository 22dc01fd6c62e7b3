"""What anyone may read of ratings: a player's profile (ratings by ladder, stats), a
rating's history, a player's finished games, and the leaderboards. Read from the
projection the worker keeps; nothing here computes a rating."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from service.application.deps import Deps
from service.application.errors import InvalidInputError, NotFoundError
from service.application.identity.players import PlayerNotFoundError
from service.application.paging import decode_cursor, encode
from service.application.ratings.model import BOT_PLAYERS, LADDERS, Rating, bot_player_name
from service.application.ratings.ports import Change, FinishedGame, Ranked, Stats
from service.application.reputation.model import BAN_LOOKBACK, Ban, Standing, ban


class LadderNotFoundError(NotFoundError):
    code = "ladder_not_found"


@dataclass(frozen=True, slots=True)
class Profile:
    player_id: UUID
    name: str
    created_at: datetime | None  # None: a bot level's player
    bot: str | None
    ratings: dict[str, Rating]
    stats: Stats
    reputation: Standing | None = None  # None: a bot level's player
    ban: Ban | None = None


def _ladder(ladder: str) -> str:
    if ladder not in LADDERS:
        raise LadderNotFoundError(f"no ladder {ladder!r}: {', '.join(LADDERS)}")
    return ladder


def profile(deps: Deps, player_id: UUID) -> Profile:
    """A player's profile (a bot level's too: it rates as a player of its own), with a
    person's reputation and running ban."""
    now = deps.clock.now()
    with deps.uow(snapshot=True) as uow:
        found = uow.players.get(player_id)
        ratings, stats = uow.ratings.of(player_id), uow.ratings.stats(player_id)
        kept = uow.reputations.of(player_id, now - BAN_LOOKBACK) if found else None
    if found is not None and kept is not None:
        running = ban(kept.recent, kept.lifted, now)
        return Profile(
            player_id, found.name, found.created_at, None, ratings, stats, kept.standing, running
        )
    level = BOT_PLAYERS.get(player_id)
    if level is None:
        raise PlayerNotFoundError(f"no player {player_id}")
    return Profile(player_id, bot_player_name(level), None, level.value, ratings, stats)


@dataclass(frozen=True, slots=True)
class History:
    changes: list[Change]
    etag: str


def history(deps: Deps, player_id: UUID, ladder: str) -> History:
    """The player's updates in the ladder, oldest first (empty: not played yet), and its
    tag, which changes with any of them (a rated game, a rebuild)."""
    _ladder(ladder)
    with deps.uow(snapshot=True) as uow:
        if uow.players.get(player_id) is None and player_id not in BOT_PLAYERS:
            raise PlayerNotFoundError(f"no player {player_id}")
        changes = uow.ratings.history(player_id, ladder)
    return History(changes, _tag(player_id, ladder, changes))


def finished_games(
    deps: Deps, player_id: UUID, cursor: str | None, limit: int
) -> tuple[list[FinishedGame], str | None]:
    """The player's finished games, most recently finished first, and the cursor of the
    next page (None: the last)."""
    before = decode_cursor(cursor) if cursor else None
    with deps.uow(snapshot=True) as uow:
        if uow.players.get(player_id) is None:
            raise PlayerNotFoundError(f"no player {player_id}")
        games = uow.ratings.finished_games(player_id, before, limit + 1)
    page = games[:limit]
    more = len(games) > limit
    last = page[-1].result if page else None
    return page, encode(last.finished_at, last.game_id) if more and last else None


@dataclass(frozen=True, slots=True)
class Board:
    rows: list[tuple[int, Ranked]]  # (rank, row)
    next_cursor: str | None
    etag: str


def leaderboard(deps: Deps, ladder: str, cursor: str | None, limit: int, bots: bool) -> Board:
    """A page of the ladder's people that are not provisional (with ``bots``, the bot
    levels rated in it too), by ordinal (rank 1 the highest), the cursor of the next
    page, and the page's tag."""
    _ladder(ladder)
    after, rank = _decode(cursor) if cursor else (None, 0)
    with deps.uow(snapshot=True) as uow:
        rows = uow.ratings.leaderboard(ladder, after, limit + 1, bots)
    page = [(rank + i + 1, row) for i, row in enumerate(rows[:limit])]
    next_cursor = None
    if len(rows) > limit and page:
        last_rank, last = page[-1]
        next_cursor = _encode((last.rating.ordinal, last.rating.games, last.player_id), last_rank)
    return Board(page, next_cursor, _tag(ladder, bots, page, next_cursor))


def _tag(*shown: object) -> str:
    """An ETag of what a read shows: its values' repr (floats exactly)."""
    return hashlib.sha256(repr(shown).encode()).hexdigest()[:32]


def _encode(after: tuple[float, int, UUID], rank: int) -> str:
    raw = json.dumps([after[0], after[1], str(after[2]), rank]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode(cursor: str) -> tuple[tuple[float, int, UUID], int]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        ordinal, games, player, rank = json.loads(raw)
        return (float(ordinal), int(games), UUID(player)), int(rank)
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError):
        raise InvalidInputError("cursor is not one this server gave", "invalid_cursor") from None
