"""Composition root: the one place where adapters are wired into the application."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine

from service.adapters.fairness import SeedVault
from service.adapters.keys import chain_keys
from service.adapters.migrate import DatabaseHealth
from service.adapters.postgres.engine import make_engine
from service.adapters.postgres.listener import Listener
from service.adapters.postgres.stats import SqlStats
from service.adapters.postgres.unit_of_work import SqlUnitOfWork
from service.adapters.system import ShufflingDealer, SystemClock
from service.adapters.webhook_delivery import AddressPolicy
from service.application.cache import StateCache
from service.application.chain import ChainKeys
from service.application.changes import Hub
from service.application.deps import Deps
from service.application.identity import Identity
from service.application.ports import Clock, Dealer, UnitOfWork
from service.application.recent import RecentCommits
from service.settings import OPERATOR_TOKEN_MIN, ConfigurationError, Settings


@dataclass(frozen=True)
class Container:
    deps: Deps
    health: DatabaseHealth
    engine: Engine
    listener: Listener
    stats: SqlStats

    def close(self) -> None:
        self.listener.stop()
        self.engine.dispose()


def check(settings: Settings) -> ChainKeys:
    """Refuse settings the service cannot start with (:class:`ConfigurationError`, its
    message says what to set); the chain keys they give (made in a file if need be)."""
    token = settings.operator_token
    if token is not None and len(token) < OPERATOR_TOKEN_MIN:
        raise ConfigurationError(
            f"YOKAI_OPERATOR_TOKEN has {len(token)} characters: an operator token needs at "
            f"least {OPERATOR_TOKEN_MIN} (e.g. openssl rand -hex 32)"
        )
    return chain_keys(settings.chain_key, settings.chain_old_keys, settings.chain_key_file)


def build(
    settings: Settings, *, clock: Clock | None = None, dealer: Dealer | None = None
) -> Container:
    keys = check(settings)
    if not settings.database_url:
        raise RuntimeError(
            "DATABASE_URL is not set: run `yokai serve` (it starts an embedded PostgreSQL) "
            "or set DATABASE_URL=postgresql://user:pass@host:port/db"
        )
    engine = make_engine(
        settings.database_url, settings.db_pool_size, prepared=settings.db_prepared_statements
    )

    def unit_of_work(*, snapshot: bool = False) -> UnitOfWork:
        return SqlUnitOfWork(engine, snapshot=snapshot)

    # The listener starts with the first stream or long-poll of the process (after the
    # fork, in the process that serves it); nothing else needs it.
    hub = Hub()
    recent = RecentCommits()
    listener = Listener(settings.listen_database_url or settings.database_url, hub, recent=recent)
    hub.on_first_subscription(listener.start)
    if dealer is None:
        vault = SeedVault.configured(
            settings.fairness_key, settings.fairness_old_keys, settings.data_dir
        )
        dealer = ShufflingDealer(vault)
    deps = Deps(
        uow=unit_of_work,
        clock=clock or SystemClock(),
        dealer=dealer,
        cache=StateCache(settings.state_cache_size),
        identity=Identity(unit_of_work, settings.operator_token),
        chain=keys,
        changes=hub,
        recent=recent,
        webhook_urls=AddressPolicy(allow_private=settings.webhook_allow_private),
    )
    health = DatabaseHealth(engine, settings.database_url)
    return Container(deps, health, engine, listener, SqlStats(engine))
