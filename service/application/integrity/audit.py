"""The policy of `yokai verify`: which anchors are trusted, which games are checked
against which anchors, each game's verdict and the exit status they add up to. The CLI
reads the anchor files (an adapter) and prints what this decides."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from uuid import UUID

from service.application.deps import Deps
from service.application.errors import GameNotFoundError
from service.application.games.queries.listing import game_ids
from service.application.integrity.anchors import Anchor, signature_problem
from service.application.integrity.chain import ChainKeys
from service.application.integrity.verify import verify
from service.application.results import VerifyReport


@dataclass
class AnchorBook:
    """Anchor lines read from outside the database: the trusted ones by game, and each
    untrusted one with where it was and why."""

    by_game: dict[UUID, list[Anchor]] = field(default_factory=dict)
    untrusted: list[tuple[str, str]] = field(default_factory=list)

    @property
    def count(self) -> int:
        return sum(map(len, self.by_game.values()))


def trusted(keys: ChainKeys, lines: Iterable[tuple[str, Anchor | str]]) -> AnchorBook:
    """Anchor lines (each an anchor, or why it could not be read) sorted by whether
    their signature holds under the chain keys."""
    book = AnchorBook()
    for where, found in lines:
        problem = found if isinstance(found, str) else signature_problem(keys, found)
        if problem is not None:
            book.untrusted.append((where, problem))
        elif isinstance(found, Anchor):
            book.by_game.setdefault(found.game_id, []).append(found)
    return book


class Outcome(StrEnum):
    INTACT = "intact"
    BROKEN = "broken"
    MISSING = "missing"  # not in the database, and never anchored


@dataclass(frozen=True, slots=True)
class Verdict:
    game_id: UUID
    outcome: Outcome
    report: VerifyReport | None  # None: the game is not in the database
    anchored_at: int | None  # the newest version anchored, if the game was


def games(deps: Deps, wanted: Sequence[UUID], every: bool, book: AnchorBook) -> list[UUID]:
    """The games to check: those wanted; or every game of the database and every game
    anchored (an anchored game gone from the database is a broken history too)."""
    if not every:
        return list(wanted)
    ids = game_ids(deps)
    known = set(ids)
    return ids + sorted(g for g in book.by_game if g not in known)


def verdicts(
    deps: Deps, ids: Iterable[UUID], book: AnchorBook, *, allow_unkeyed: bool = False
) -> Iterator[Verdict]:
    """Each game's history checked (chain, replay, recorded version) against its
    anchors, one at a time."""
    for game_id in ids:
        mine = book.by_game.get(game_id, [])
        top = max((a.version for a in mine), default=None)
        try:
            report = verify(deps, game_id, mine, allow_unkeyed=allow_unkeyed)
        except GameNotFoundError:
            yield Verdict(game_id, Outcome.BROKEN if mine else Outcome.MISSING, None, top)
            continue
        outcome = Outcome.INTACT if report.intact else Outcome.BROKEN
        yield Verdict(game_id, outcome, report, top)


def exit_status(verdicts: Sequence[Verdict], book: AnchorBook) -> int:
    """0 when every game is intact, 1 when one is broken (or an anchor line cannot be
    trusted), 2 when one is not found."""
    if book.untrusted or any(v.outcome is Outcome.BROKEN for v in verdicts):
        return 1
    return 2 if any(v.outcome is Outcome.MISSING for v in verdicts) else 0
