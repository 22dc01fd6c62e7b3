"""One unit of work on one pooled connection, with every store on it."""

from __future__ import annotations

from functools import cached_property
from types import TracebackType
from typing import Self

from sqlalchemy import Engine

from service.adapters.postgres.chat import SqlChat
from service.adapters.postgres.engine import connections_of
from service.adapters.postgres.events import SqlEventStore
from service.adapters.postgres.games import SqlCredentials, SqlGameIndex
from service.adapters.postgres.idempotency import SqlIdempotencyStore
from service.adapters.postgres.lobby import SqlLobby
from service.adapters.postgres.notifications import SqlNotifications
from service.adapters.postgres.operators import SqlOperators
from service.adapters.postgres.players import SqlInbox, SqlPlayers
from service.adapters.postgres.privacy import SqlErasures
from service.adapters.postgres.ratings import SqlRatings
from service.adapters.postgres.reports import SqlReports
from service.adapters.postgres.reputations import SqlReputations
from service.adapters.postgres.reviews import SqlReviews
from service.adapters.postgres.seeks import SqlSeeks
from service.adapters.postgres.session import Session
from service.adapters.postgres.snapshots import SqlSnapshotStore
from service.adapters.postgres.social import SqlBlocks, SqlFollows
from service.adapters.postgres.tokens import (
    SqlIdentities,
    SqlLinkCodes,
    SqlPlayerAudit,
    SqlPlayerTokens,
)
from service.adapters.postgres.wakeups import SqlWakeups
from service.adapters.postgres.webhooks import SqlWebhooks
from service.metrics import EVENTS


class SqlUnitOfWork:
    """Reads run at once (each on its own, at READ COMMITTED, unless the unit of work
    holds a lock); writes are queued and sent at :meth:`commit`, with COMMIT, in one round
    trip; leaving without commit sends nothing (or rolls back what a lock began).

    The (game_id, seq) key settles races between writers. Queries that need several
    statements to agree (``snapshot``) run read-only at REPEATABLE READ.
    """

    events: SqlEventStore
    games: SqlGameIndex
    credentials: SqlCredentials
    idempotency: SqlIdempotencyStore
    snapshots: SqlSnapshotStore
    players: SqlPlayers
    player_tokens: SqlPlayerTokens
    identities: SqlIdentities
    link_codes: SqlLinkCodes
    player_audit: SqlPlayerAudit
    lobby: SqlLobby
    inbox: SqlInbox
    seeks: SqlSeeks
    ratings: SqlRatings
    reputations: SqlReputations
    reviews: SqlReviews
    chat: SqlChat
    wakeups: SqlWakeups
    webhooks: SqlWebhooks
    notifications: SqlNotifications
    reports: SqlReports

    def __init__(self, engine: Engine, *, snapshot: bool = False) -> None:
        self._session = Session(connections_of(engine), snapshot=snapshot)
        self.events = SqlEventStore(self._session)
        self.games = SqlGameIndex(self._session)
        self.credentials = SqlCredentials(self._session)
        self.idempotency = SqlIdempotencyStore(self._session)
        self.snapshots = SqlSnapshotStore(self._session)
        self.players = SqlPlayers(self._session)
        self.player_tokens = SqlPlayerTokens(self._session)
        self.identities = SqlIdentities(self._session)
        self.link_codes = SqlLinkCodes(self._session)
        self.player_audit = SqlPlayerAudit(self._session)
        self.lobby = SqlLobby(self._session)
        self.inbox = SqlInbox(self._session)
        self.seeks = SqlSeeks(self._session)
        self.ratings = SqlRatings(self._session)
        self.reputations = SqlReputations(self._session)
        self.reviews = SqlReviews(self._session)
        self.chat = SqlChat(self._session)
        self.wakeups = SqlWakeups(self._session)
        self.webhooks = SqlWebhooks(self._session)
        self.notifications = SqlNotifications(self._session)
        self.reports = SqlReports(self._session)
        self.operators = SqlOperators(self._session)
        self.erasures = SqlErasures(self._session)

    # Made when first used: most units of work (a play, a view) never touch them, and
    # what every request pays is counted (tests/integration/test_hot_path_budget.py).
    @cached_property
    def blocks(self) -> SqlBlocks:
        return SqlBlocks(self._session)

    @cached_property
    def follows(self) -> SqlFollows:
        return SqlFollows(self._session)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._session.close()

    def commit(self) -> None:
        self._session.commit()
        if self.events.appended:
            EVENTS.inc(self.events.appended)
            self.events.appended = 0
