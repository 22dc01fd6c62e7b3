"""Connecting to PostgreSQL through SQLAlchemy with the psycopg 3 driver."""

from __future__ import annotations

import weakref

from psycopg.conninfo import conninfo_to_dict
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url

from service.adapters.postgres.pool import Bus, Connections
from service.adapters.postgres.session import check_connections_on_checkout


def sqlalchemy_url(database_url: str) -> URL:
    """A plain ``postgresql://`` URL (as hosting providers give it) for the psycopg driver.

    Several hosts (``postgresql://u:p@h1:5432,h2:5432/db?target_session_attrs=read-write``,
    libpq's form, as a Patroni cluster is reached: docs/operations.md) become SQLAlchemy's
    form, one ``host`` query parameter each: libpq then tries them in order and keeps the
    one that takes writes."""
    if _several_hosts(database_url):
        return _multi_host(database_url)
    url = make_url(database_url)
    if url.drivername in ("postgres", "postgresql", "postgresql+psycopg"):
        return url.set(drivername="postgresql+psycopg")
    raise ValueError(f"DATABASE_URL must be a postgresql:// URL, not {url.drivername}://")


def libpq_conninfo(database_url: str) -> str:
    """``DATABASE_URL`` as libpq takes it, for connections made without SQLAlchemy (the
    LISTEN connections): a multi-host URL as it is (libpq reads that form itself)."""
    if _several_hosts(database_url):
        _multi_host(database_url)  # the same checks
        return "postgresql://" + database_url.partition("://")[2]
    return (
        sqlalchemy_url(database_url)
        .set(drivername="postgresql")
        .render_as_string(hide_password=False)
    )


def _several_hosts(database_url: str) -> bool:
    _, sep, rest = database_url.partition("://")
    return bool(sep) and "," in rest.split("/", 1)[0].rpartition("@")[2]


def _multi_host(database_url: str) -> URL:
    scheme = database_url.partition("://")[0]
    if scheme not in ("postgres", "postgresql", "postgresql+psycopg"):
        raise ValueError(f"DATABASE_URL must be a postgresql:// URL, not {scheme}://")
    params = conninfo_to_dict(database_url.replace(scheme + "://", "postgresql://", 1))
    hosts = str(params.pop("host", "")).split(",")
    ports = str(params.pop("port", "")).split(",") if params.get("port") else [""]
    if len(ports) == 1:
        ports = ports * len(hosts)
    if len(ports) != len(hosts):
        raise ValueError("DATABASE_URL: give one port, or one port per host")
    user, password = params.pop("user", None), params.pop("password", None)
    database = params.pop("dbname", None)
    query: dict[str, str | list[str]] = {k: str(v) for k, v in params.items() if v is not None}
    query["host"] = [f"{h}:{p}" if p else h for h, p in zip(hosts, ports, strict=True)]
    return URL.create(
        "postgresql+psycopg",
        username=None if user is None else str(user),
        password=None if password is None else str(password),
        database=None if database is None else str(database),
        query=query,
    )


def make_engine(
    database_url: str,
    pool_size: int = 5,
    *,
    prepared: bool = True,
    bus: Bus | None = None,
) -> Engine:
    """The service's engine, and its units of work's pool (:func:`connections_of`): up
    to twice ``pool_size`` connections, as many as SQLAlchemy's pool with its overflow
    held before (docs/operations.md, "Connection budget"). SQLAlchemy's own pool serves
    the engine's other users (the health check, the store's gauges, the key vault): one
    connection kept, one more at a time of need. ``prepared=False`` keeps psycopg from
    preparing statements on the server, which PgBouncer in transaction mode (before
    1.21) cannot follow: the next transaction may run on another server connection.
    ``bus`` (YOKAI_REDIS_URL): a relay announces the commits, and the units of work
    publish their other announcements there (pool.py, session.py ``notify``)."""
    connect_args: dict[str, object] = {"connect_timeout": 5}
    if not prepared:
        connect_args["prepare_threshold"] = None
    engine = create_engine(
        sqlalchemy_url(database_url),
        pool_size=1,
        max_overflow=1,
        pool_recycle=1800,
        # An unreachable server must fail fast (readyz answers 503, not a worker timeout).
        connect_args=connect_args,
    )
    check_connections_on_checkout(engine)
    _attach(
        engine,
        Connections(
            libpq_conninfo(database_url),
            2 * pool_size,
            prepared=prepared,
            bus=bus,
        ),
    )
    return engine


_POOLS: weakref.WeakKeyDictionary[Engine, Connections] = weakref.WeakKeyDictionary()


def connections_of(engine: Engine) -> Connections:
    """The pool of ``engine``'s units of work: :func:`make_engine`'s, or, for an engine
    made otherwise (as tests make them, on a URL of one host), one made on first use
    with as many connections as its own pool may open."""
    pool = _POOLS.get(engine)
    if pool is None:
        conninfo = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
        limit = int(getattr(engine.pool, "size", lambda: 5)())
        pool = _attach(engine, Connections(conninfo, 2 * limit))
    return pool


def _attach(engine: Engine, pool: Connections) -> Connections:
    _POOLS[engine] = pool
    event.listen(engine, "engine_disposed", lambda _: pool.dispose())
    return pool
