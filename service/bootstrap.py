"""Composition root: the one place where adapters are wired into the application, for
the API's processes (:func:`build`) and the worker's (:func:`worker`), on the database
of the settings or an embedded one (:func:`database`). A little past 400 lines: every
adapter's wiring stays in this one place, which is its purpose."""

from __future__ import annotations

import logging
import os
import re
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path
from uuid import UUID

from sqlalchemy import Engine

from service.adapters import migrate
from service.adapters.bus import BusSeal, Notices, RedisAnnouncer
from service.adapters.bus_listening import BusListener, JobNotes
from service.adapters.dealing.dealer import ShufflingDealer, SystemClock
from service.adapters.dealing.seed_vault import SeedVault
from service.adapters.embedded import EmbeddedPostgres
from service.adapters.identity.oidc import OidcVerifier
from service.adapters.integrity.anchor_files import AnchorDirectory
from service.adapters.integrity.chain_keys import KEY_FILE, chain_keys
from service.adapters.mail.smtp import SmtpMailer, parse_smtp_url
from service.adapters.migrate import DatabaseHealth
from service.adapters.postgres import roles
from service.adapters.postgres.engine import libpq_conninfo, make_engine
from service.adapters.postgres.keycache import KeyCache
from service.adapters.postgres.legacy import SqlLegacyStore
from service.adapters.postgres.listener import Listener
from service.adapters.postgres.privacy import SqlKeyVault
from service.adapters.postgres.relay import SqlCommitLog
from service.adapters.postgres.stats import SqlStats
from service.adapters.postgres.unit_of_work import SqlUnitOfWork
from service.adapters.privacy.erasure_list import FILE as ERASURES
from service.adapters.privacy.erasure_list import ErasureList
from service.adapters.push.sending import PushSender, VapidMessages, subscription_policy
from service.adapters.push.vapid import KEY_FILE as VAPID_KEY_FILE
from service.adapters.push.vapid import VapidKey, vapid_key
from service.adapters.webhooks.delivery import HttpSender
from service.adapters.webhooks.url_policy import AddressPolicy
from service.application.deps import Deps
from service.application.games.cache import StateCache
from service.application.identity.bearer import Identity
from service.application.identity.principals import CLI_OPERATOR, DEFAULT_OPERATOR
from service.application.integrity.chain import ChainKeys
from service.application.jobs.anchoring import Anchoring
from service.application.live.hub import Hub
from service.application.live.recent import RecentCommits
from service.application.live.relay import Relay
from service.application.notify.watching import Watching
from service.application.ports import Clock, UnitOfWork
from service.application.privacy import erasure, legacy
from service.application.privacy.sealer import Sealer
from service.application.projections import PROJECTIONS
from service.application.write.ports import Dealer
from service.rules import BotLevel
from service.settings import OPERATOR_TOKEN_MIN, ConfigurationError, Settings
from service.worker import Worker

log = logging.getLogger("yokai")


@dataclass(frozen=True)
class Container:
    deps: Deps
    health: DatabaseHealth
    engine: Engine
    listener: Listener
    stats: SqlStats
    erased: ErasureList | None = None
    keys: KeyCache | None = None
    bus: BusListener | None = None  # with YOKAI_REDIS_URL
    notices: Notices | None = None  # with YOKAI_REDIS_URL: where the commits announce

    def close(self) -> None:
        self.listener.stop()
        if self.bus is not None:
            self.bus.stop()
        if self.notices is not None:
            self.notices.close()
        if self.keys is not None:
            self.keys.stop()
        self.engine.dispose()


def check(settings: Settings) -> ChainKeys:
    """Refuse settings the service cannot start with (:class:`ConfigurationError`, its
    message says what to set); the chain keys they give (made in a file if need be).

    docs/api.md's "Running it" promises that `yokai serve` runs with DATABASE_URL and
    YOKAI_OPERATOR_TOKEN alone, so by default a missing chain key falls back to a key
    file in the data folder, and a short operator token is taken, each with a warning
    at every start; YOKAI_STRICT_SECRETS=1 (the deployment files set it) refuses both."""
    tokens = operator_tokens(settings)
    for name, token in tokens.items():
        if len(token) < OPERATOR_TOKEN_MIN:
            log.warning(
                "the token of operator %r has %d characters: operator tokens open every hand "
                "and the audit, use %d or more (openssl rand -hex 32); "
                "YOKAI_STRICT_SECRETS=1 refuses to start with a short one",
                name,
                len(token),
                OPERATOR_TOKEN_MIN,
            )
    key_file = _chain_key_file(settings)
    if key_file != settings.chain_key_file:  # the data folder's, for want of a key
        log.warning(
            "YOKAI_CHAIN_KEY is not set: the events' hash chain uses the key in %s (made "
            "if missing). Every process that shares this database needs the same key: set "
            "YOKAI_CHAIN_KEY (openssl rand -hex 32) for all of them and back it up; "
            "YOKAI_STRICT_SECRETS=1 refuses to start without it (docs/security.md)",
            key_file,
        )
    return settings_chain_keys(settings)


def settings_chain_keys(settings: Settings) -> ChainKeys:
    """The chain keys of the settings (made in a file if need be), without a word."""
    return chain_keys(settings.chain_key, settings.chain_old_keys, _chain_key_file(settings))


def _chain_key_file(settings: Settings) -> Path | None:
    """The file of the chain key: YOKAI_CHAIN_KEY_FILE, else, with no key set and secrets
    not strict, the data folder's."""
    if not settings.chain_key and settings.chain_key_file is None and not settings.strict_secrets:
        return settings.data_dir.resolve() / KEY_FILE
    return settings.chain_key_file


_OPERATOR_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,62}$")
OPERATOR_NAMES = "of lowercase letters, digits, '.', '_' and '-' (not 'cli')"


def valid_operator_name(name: str) -> bool:
    """Whether an operator token may have this name (the audit records it)."""
    return bool(_OPERATOR_NAME.match(name)) and name != CLI_OPERATOR


def operator_tokens(settings: Settings) -> dict[str, str]:
    """The operator tokens of the settings by name: YOKAI_OPERATOR_TOKEN's is named
    ``operator``; YOKAI_OPERATOR_TOKENS gives ``name:token`` pairs, comma-separated.
    Each token needs OPERATOR_TOKEN_MIN characters; names and tokens are each used once."""
    named: dict[str, str] = {}
    if settings.operator_token is not None:
        named[DEFAULT_OPERATOR] = settings.operator_token
    for item in (settings.operator_tokens or "").split(","):
        if not item.strip():
            continue
        name, sep, token = item.strip().partition(":")
        if not sep or not valid_operator_name(name):
            raise ConfigurationError(
                "YOKAI_OPERATOR_TOKENS is a comma-separated list of name:token, each name "
                f"{OPERATOR_NAMES}"
            )
        if name in named:
            raise ConfigurationError(f"operator {name!r} is given twice")
        named[name] = token
    for name, token in named.items():
        variable = "YOKAI_OPERATOR_TOKEN" if name == DEFAULT_OPERATOR else "YOKAI_OPERATOR_TOKENS"
        if not token.strip():
            raise ConfigurationError(f"{variable}: the token of operator {name!r} is empty")
        if len(token) < OPERATOR_TOKEN_MIN and settings.strict_secrets:
            raise ConfigurationError(
                f"{variable}: the token of operator {name!r} has {len(token)} characters: an "
                f"operator token needs at least {OPERATOR_TOKEN_MIN} (e.g. openssl rand -hex 32)"
                " with YOKAI_STRICT_SECRETS=1"
            )
    if len(set(named.values())) < len(named):
        raise ConfigurationError("two operators have the same token: each needs its own")
    return named


def build(
    settings: Settings, *, clock: Clock | None = None, dealer: Dealer | None = None
) -> Container:
    keys = check(settings)
    if not settings.database_url:
        raise RuntimeError(
            "DATABASE_URL is not set: run `yokai serve` (it starts an embedded PostgreSQL) "
            "or set DATABASE_URL=postgresql://user:pass@host:port/db"
        )
    # With YOKAI_REDIS_URL a relay announces the commits, and the units of work publish
    # their other announcements on Redis once committed: no write sends NOTIFY.
    notices = Notices(settings.redis_url) if settings.redis_url else None
    engine = make_engine(
        settings.database_url,
        settings.db_pool_size,
        prepared=settings.db_prepared_statements,
        bus=notices,
    )

    def unit_of_work(*, snapshot: bool = False) -> UnitOfWork:
        return SqlUnitOfWork(engine, snapshot=snapshot)

    # The listener starts with the first stream or long-poll of the process (after the
    # fork, in the process that serves it); nothing else needs it.
    hub = Hub()
    recent = RecentCommits()
    listener = Listener(settings.listen_database_url or settings.database_url, hub, recent=recent)
    # Where a relay announces the commits (YOKAI_REDIS_URL), everything is heard on the
    # bus (the lobby and revoked tokens too: ``notices``), and PostgreSQL's listener is
    # not started: no listening backend for the commits to wake.
    bus = (
        BusListener(settings.redis_url, hub, recent=recent, seal=BusSeal(keys))
        if settings.redis_url
        else None
    )

    def start_listening() -> None:
        if bus is not None:
            bus.start()
        else:
            listener.start()

    hub.on_first_subscription(start_listening)
    if dealer is None:
        vault = SeedVault.configured(
            settings.fairness_key, settings.fairness_old_keys, settings.data_dir
        )
        dealer = ShufflingDealer(vault)
    deps_clock = clock or SystemClock()
    erased = ErasureList(settings.erasure_list or settings.data_dir.resolve() / ERASURES)
    # Keys read to open sealed names are kept while the process hears every key destroyed
    # (service/adapters/postgres/keycache.py): its own listening connection, opened with
    # the first answer that has names to open.
    key_cache = KeyCache(settings.listen_database_url or settings.database_url)
    privacy_keys = SqlKeyVault(engine, erased, key_cache)
    deps = Deps(
        uow=unit_of_work,
        clock=deps_clock,
        dealer=dealer,
        cache=StateCache(settings.state_cache_size),
        identity=Identity(unit_of_work, operator_tokens(settings), clock=deps_clock),
        chain=keys,
        webhook_urls=AddressPolicy(allow_private=settings.webhook_allow_private),
        projections=PROJECTIONS,
        id_tokens=OidcVerifier(settings.oidc_issuers, settings.oidc_audiences)
        if settings.oidc_issuers
        else None,
        changes=hub,
        recent=recent,
        seek_ttl=timedelta(hours=settings.seek_hours),
        bot_move_ms=settings.bot_move_ms,
        review_seed=settings.review_seed,
        takeover=BotLevel(settings.takeover_level),
        vault=privacy_keys,
        sealer=Sealer(privacy_keys),
        push_subscriptions=subscription_policy(settings.push_allow_http),
        push_key=push_key(settings).public_key,
        watching=Watching(unit_of_work, deps_clock),
        mail=settings.smtp_url is not None,
    )
    health = DatabaseHealth(engine, settings.database_url)
    return Container(
        deps, health, engine, listener, SqlStats(engine), erased, key_cache, bus, notices
    )


def reseal(settings: Settings, container: Container) -> legacy.ResealReport:
    """`yokai privacy reseal`: seal the personal data of what was written before it was
    sealed, as the tables' owner (service/application/privacy/legacy.py)."""
    sealer = container.deps.sealer
    assert sealer is not None  # built with every container
    owner = make_engine(settings.migration_database_url or database_url(settings), 1)
    try:
        return legacy.reseal(SqlLegacyStore(owner), sealer, container.deps.chain)
    finally:
        owner.dispose()


def reapply_erasures(container: Container) -> None:
    """Erase again whoever the erasure list outside the database names (docs/privacy.md:
    a restored backup must not bring them back). A store that cannot be reached now is
    left to the next start, said in the log."""
    if container.erased is None:
        return
    players = [UUID(s[1:]) for s in container.erased.subjects() if s.startswith("p")]
    if not players:
        return
    try:
        done = erasure.reapply(container.deps, players)
    except Exception:
        log.exception("the erasure list could not be applied: it is tried at the next start")
        return
    if done:
        log.warning("erased %d players again from the erasure list (a restored backup?)", done)


EMBEDDED_APP_ROLE = "yokai_app"

ANCHORS = "anchors"
"""The embedded default's folder of anchors, in the data folder."""


def database(settings: Settings) -> tuple[Settings, EmbeddedPostgres | None]:
    """The settings with the service's DATABASE_URL; or, when it is unset, with an
    embedded server started in the data folder, migrated, with the service's own role
    (least privilege) set up, and the chain key and anchors kept in the data folder."""
    if settings.database_url:
        return settings, None
    embedded = EmbeddedPostgres(settings.data_dir.resolve())
    log.info("DATABASE_URL unset: embedded PostgreSQL in %s", embedded.data_dir)
    owner = embedded.start()
    try:
        migrate.upgrade(owner)
        # Local socket, trust authentication: the role needs no password.
        url = roles.grant_app_role(owner, EMBEDDED_APP_ROLE)
    except BaseException:
        embedded.stop()
        raise
    return (
        replace(
            settings,
            database_url=url,
            migration_database_url=settings.migration_database_url or owner,
            chain_key_file=settings.chain_key_file or settings.data_dir.resolve() / KEY_FILE,
            anchor_dir=settings.anchor_dir or settings.data_dir.resolve() / ANCHORS,
        ),
        embedded,
    )


def database_url(settings: Settings) -> str:
    """The service's DATABASE_URL, once :func:`database` has set it."""
    assert settings.database_url is not None
    return settings.database_url


def migrated(settings: Settings, *, grant: bool) -> None:
    """Migrate as the tables' owner; with ``grant`` (`yokai migrate`), then grant the
    service's role (YOKAI_APP_ROLE) what it needs of any new table. (`serve` run as the
    service's role finds the schema at its head and changes nothing.)"""
    owner = settings.migration_database_url or database_url(settings)
    migrate.upgrade(owner)
    if grant and settings.app_role:  # made if need be, its password set when given
        password = os.environ.get("YOKAI_APP_ROLE_PASSWORD") or None
        roles.grant_app_role(owner, settings.app_role, password)


@contextmanager
def built(settings: Settings) -> Iterator[tuple[Settings, Container]]:
    """The settings on ``DATABASE_URL`` (or the embedded server, started here) and the
    service's container on them; closed, and the embedded server stopped, at the end."""
    settings, embedded = database(settings)
    try:
        container = build(settings)
        try:
            yield settings, container
        finally:
            container.close()
    finally:
        if embedded is not None:
            embedded.stop()


def anchoring(settings: Settings) -> Anchoring | None:
    """The worker's anchoring of chain heads, when YOKAI_ANCHOR_DIR says where."""
    if settings.anchor_dir is None:
        log.warning(
            "YOKAI_ANCHOR_DIR is not set: chain heads are not anchored, so a deleted tail "
            "or a chain rewritten with the key goes unseen (docs/security.md)"
        )
        return None
    return Anchoring(
        AnchorDirectory(settings.anchor_dir, f"{socket.gethostname()}-{os.getpid()}"),
        every=timedelta(seconds=settings.anchor_seconds),
    )


def relay(settings: Settings) -> tuple[Relay, RedisAnnouncer]:
    """The relay of these settings (DATABASE_URL set, or :func:`database` run), and its
    announcer (to close once the relay has stopped)."""
    if not settings.redis_url:
        raise ConfigurationError("YOKAI_REDIS_URL must be set: the relay announces there")
    conninfo = libpq_conninfo(settings.listen_database_url or database_url(settings))
    announcer = RedisAnnouncer(settings.redis_url)
    keys = settings_chain_keys(settings)
    runner = Relay(
        SqlCommitLog(conninfo),
        announcer,
        BusSeal(keys).describe,  # the events sealed: the nodes need not read them
        poll_seconds=settings.relay_poll_ms / 1000,
    )
    return runner, announcer


def push_key(settings: Settings) -> VapidKey:
    """The key pushes are signed with: YOKAI_VAPID_PRIVATE_KEY, else the one kept in
    YOKAI_VAPID_KEY_FILE (the data folder's ``vapid.key`` by default, made when
    missing)."""
    kept = settings.vapid_key_file or settings.data_dir.resolve() / VAPID_KEY_FILE
    return vapid_key(settings.vapid_private_key, kept)


def worker(settings: Settings, container: Container) -> tuple[Worker, HttpSender]:
    """The worker of these settings on ``container``, and its webhook sender (to close
    once the worker has stopped: its attempts have ended and been recorded)."""
    reapply_erasures(container)
    sender = HttpSender(allow_private=settings.webhook_allow_private)
    runner = Worker(
        container.deps,
        settings.listen_database_url or database_url(settings),  # LISTEN: a direct connection
        lease=timedelta(seconds=settings.worker_lease_seconds),
        sender=sender,
        webhook_lease=timedelta(seconds=settings.webhook_lease_seconds),
        first_retry=settings.webhook_first_retry_seconds,
        keep_keys=timedelta(hours=settings.idempotency_keep_hours),
        waiting=timedelta(hours=settings.waiting_game_hours),
        webhook_keep=timedelta(days=settings.webhook_keep_days),
        address_days=timedelta(days=settings.audit_address_days),
        heartbeat=settings.worker_heartbeat,
        anchoring=anchoring(settings),
        notes=JobNotes(settings.redis_url) if settings.redis_url else None,
        pushes=(
            PushSender(allow_loopback=settings.push_allow_http),
            VapidMessages(push_key(settings), settings.vapid_subject),
            settings.public_url,
        ),
        mail=(
            (SmtpMailer(parse_smtp_url(settings.smtp_url)), settings.mail_from, settings.public_url)
            if settings.smtp_url
            else None
        ),
    )
    return runner, sender
