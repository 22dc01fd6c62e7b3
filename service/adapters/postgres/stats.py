"""What the store says of the service's work, read for /metrics (service/metrics.py)."""

from __future__ import annotations

from sqlalchemy import Engine, text

from service.adapters.postgres.engine import connections_of
from service.application.monitoring import StoreStats

_GAMES = "SELECT status, count(*) FROM games GROUP BY status"
_JOBS = (
    "SELECT count(*), coalesce(extract(epoch FROM now() - min(due_at)), 0) "
    "FROM wakeups WHERE due_at <= now()"
)
_DELIVERIES = (
    "SELECT count(*), coalesce(extract(epoch FROM now() - "
    "min(available_at) FILTER (WHERE available_at <= now())), 0) "
    "FROM outbox WHERE kind = 'webhook' AND done_at IS NULL"
)
_REVIEWS = "SELECT count(*) FROM reviews WHERE status IN ('queued', 'running')"

# The relay's position, and the oldest event past it in commit order (the next it
# announces): an index lookup. No row: no relay has run.
_RELAY = (
    "SELECT coalesce(extract(epoch FROM now() - e.recorded_at), 0) FROM relay_positions AS r "
    "LEFT JOIN LATERAL (SELECT recorded_at FROM events "
    "WHERE (transaction_id, position) > (r.transaction_id, r.position) "
    "ORDER BY transaction_id, position LIMIT 1) AS e ON true WHERE r.name = 'commits'"
)


class SqlStats:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def pool(self) -> tuple[int, int]:
        """This process's connections in use by units of work, and its pool's size
        (YOKAI_DB_POOL_SIZE: the pool may open twice as many, as SQLAlchemy's did with
        its overflow)."""
        pool = connections_of(self._engine)
        return pool.in_use(), pool.limit // 2

    def read(self) -> StoreStats:
        with self._engine.connect() as conn:
            games = {str(s): int(n) for s, n in conn.execute(text(_GAMES))}
            jobs, job_lag = conn.execute(text(_JOBS)).one()
            pending, delivery_lag = conn.execute(text(_DELIVERIES)).one()
            relay = conn.execute(text(_RELAY)).one_or_none()
            reviews = conn.execute(text(_REVIEWS)).scalar_one()
        return StoreStats(
            games_by_status=games,
            jobs_due=int(jobs),
            job_lag_seconds=max(0.0, float(job_lag)),
            deliveries_pending=int(pending),
            delivery_lag_seconds=max(0.0, float(delivery_lag)),
            relay_lag_seconds=None if relay is None else max(0.0, float(relay[0])),
            reviews_waiting=int(reviews),
        )
