"""What handlers and queries run on: the ports and per-process state, wired once by
service.bootstrap (tests wire in-memory fakes)."""

from __future__ import annotations

from dataclasses import dataclass, field

from service.application.cache import StateCache
from service.application.changes import Hub
from service.application.identity import Identity
from service.application.ports import Clock, Dealer, UnitOfWorkFactory
from service.application.recent import RecentCommits


@dataclass(frozen=True)
class Deps:
    uow: UnitOfWorkFactory
    clock: Clock
    dealer: Dealer
    cache: StateCache
    identity: Identity
    changes: Hub = field(default_factory=Hub)  # what streams and long-polls wait on
    recent: RecentCommits = field(default_factory=RecentCommits)  # shared by streams
