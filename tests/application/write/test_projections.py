"""The write path runs the registered projectors (service/application/projections.py) on
each game a command changed: the referenced ones before its events are queued, the
others after (those of seating only for a new game or seats players take), each given
the game before and after, the new rows and what the transaction knows; every
projector a capability keeps is registered, once."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from collections.abc import Sequence
from importlib.util import find_spec
from uuid import uuid4

import pytest

from service import application, rules
from service.application.commands import Context, CreatePlayer, JoinSeat
from service.application.deps import Deps
from service.application.games.loading import NEW_GAME
from service.application.identity.bearer import token_digest
from service.application.identity.principals import Anonymous, PlayerHolder
from service.application.ports import SYSTEM, StoredEvent, UnitOfWork
from service.application.projections import PROJECTIONS
from service.application.results import PlayerCreated
from service.application.webhooks.ports import WebhookEvent
from service.application.write.projectors import Change, Known, Projections, Projector
from service.application.write.transaction import Transaction
from tests.application.fakes import FixedClock
from tests.application.fakes.events import FakeEventStore
from tests.application.table import Table, ordered_deal

Seen = list[tuple[str, Change | None, Known | None]]


def recorder(name: str, seen: Seen) -> Projector:
    def project(uow: UnitOfWork, change: Change, known: Known) -> None:
        seen.append((name, change, known))

    return project


def test_referenced_projectors_are_queued_before_the_events_and_the_others_after(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: Seen = []
    append = FakeEventStore.append

    def appended(store: FakeEventStore, rows: Sequence[StoredEvent]) -> None:
        seen.append(("events", None, None))
        append(store, rows)

    monkeypatch.setattr(FakeEventStore, "append", appended)
    registered = table.deps.projections
    projections = Projections(
        (*registered.referenced, recorder("referenced", seen)),
        (recorder("following", seen), *registered.following),
    )
    table = dataclasses.replace(
        table, deps=dataclasses.replace(table.deps, projections=projections)
    )

    game_id = table.create()
    table.join(game_id, 0)

    assert [name for name, _, _ in seen] == ["referenced", "events", "following"] * 2


def test_seating_projectors_run_only_for_a_new_game_or_seats_players_take(
    table: Table,
) -> None:
    seen: Seen = []
    registered = table.deps.projections
    projections = dataclasses.replace(registered, seating=(recorder("seating", seen),))
    table = dataclasses.replace(
        table, deps=dataclasses.replace(table.deps, projections=projections)
    )
    table.dealer.script.append(ordered_deal(3))
    game_id = table.create(3)  # a new game
    game = table.seat_in(game_id, 3)  # anonymous seats: no player takes one
    table.pass_all(game)
    table.play_turn(game)
    player = table.run(CreatePlayer("Mio"))
    assert isinstance(player, PlayerCreated)
    other = table.create(3)
    table.run(JoinSeat(other, 0, None), PlayerHolder(player.player_id, token_digest(player.token)))

    assert [(c.game_id, k.bound) for _, c, k in seen if c and k] == [
        (game_id, ()),
        (other, ()),
        (other, [(0, player.player_id)]),
    ]


def test_a_projector_is_given_the_change_and_what_the_transaction_knows(
    deps: Deps, clock: FixedClock
) -> None:
    seen: Seen = []
    deps = dataclasses.replace(deps, projections=Projections((), (recorder("projector", seen),)))
    game_id, player = uuid4(), uuid4()
    matched = WebhookEvent("matched", {"seat": 0}, 0)
    with deps.uow() as uow:
        tx = Transaction(uow, deps, Context(Anonymous()), clock.now(), None)
        tx.bound[game_id] = [(0, player)]
        tx.dropped[game_id] = [player]
        tx.rewake.add(game_id)
        tx.tell(game_id, matched.type, matched.data, 0)
        created = rules.CreateGame(3, rules.Scoring.BASIC)
        after = tx.apply(game_id, tx.new_game(), created, SYSTEM)

    [(_, change, known)] = seen
    assert change == Change(game_id, NEW_GAME, after, tx.appended[game_id])
    assert change.first
    assert known == Known(clock.now(), [(0, player)], [player], True, [matched])


def test_every_projector_a_capability_keeps_is_registered_once() -> None:
    """A capability's projectors are its ``projections`` module (or the modules of its
    ``projections`` package), which the write path may not import (pyproject.toml): a
    module there that the registry does not list would never run."""
    registered = [*PROJECTIONS.referenced, *PROJECTIONS.following, *PROJECTIONS.seating]
    assert len(set(registered)) == len(registered)
    kept: set[str] = set()
    for capability in pkgutil.iter_modules(application.__path__):
        name = f"{application.__name__}.{capability.name}.projections"
        if not capability.ispkg or find_spec(name) is None:
            continue
        module = importlib.import_module(name)
        if hasattr(module, "__path__"):
            kept |= {f"{name}.{m.name}" for m in pkgutil.iter_modules(module.__path__)}
        else:
            kept.add(name)
    assert {p.__module__ for p in registered} == kept
