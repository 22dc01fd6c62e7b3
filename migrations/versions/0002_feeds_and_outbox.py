"""A global position on events for feeds across games, actor kinds for bots and players,
idempotency records that hold outcomes, and the outbox.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OLD_ACTORS = "actor_kind IN ('seat', 'operator', 'system')"
NEW_ACTORS = "actor_kind IN ('seat', 'operator', 'system', 'bot', 'player')"


def upgrade() -> None:
    # The global position is (transaction_id, position): readers of "everything after P"
    # stop below the oldest transaction still running, so a transaction that took its id
    # early and commits late is never skipped (the transaction-id watermark).
    op.add_column("events", sa.Column("position", sa.BigInteger(), nullable=True))
    op.add_column("events", sa.Column("transaction_id", sa.BigInteger(), nullable=True))
    # Events stored so far get positions in the order they were recorded, all in one
    # long-finished "transaction" 0, and each game's in seq order even where the clocks of
    # the hosts that recorded them disagree (an event counts as recorded no earlier than
    # the game's events before it). Numbering them is the one write the append-only guard
    # must let through, here, with the table locked by this migration.
    op.execute("ALTER TABLE events DISABLE TRIGGER events_append_only")
    op.execute(
        """
        UPDATE events AS e SET position = o.n, transaction_id = 0
        FROM (
            SELECT game_id, seq,
                   row_number() OVER (ORDER BY settled, game_id, seq) AS n
            FROM (
                SELECT game_id, seq,
                       max(recorded_at) OVER (PARTITION BY game_id ORDER BY seq) AS settled
                FROM events
            ) AS s
        ) AS o
        WHERE e.game_id = o.game_id AND e.seq = o.seq
        """
    )
    op.execute("ALTER TABLE events ENABLE TRIGGER events_append_only")
    op.execute("ALTER TABLE events ALTER COLUMN position SET NOT NULL")
    op.execute("ALTER TABLE events ALTER COLUMN position ADD GENERATED ALWAYS AS IDENTITY")
    op.execute(
        "SELECT setval(pg_get_serial_sequence('events', 'position'), "
        "coalesce(max(position), 0) + 1, false) FROM events"
    )
    op.execute(
        "ALTER TABLE events ALTER COLUMN transaction_id "
        "SET DEFAULT pg_current_xact_id()::text::bigint"
    )
    op.execute("ALTER TABLE events ALTER COLUMN transaction_id SET NOT NULL")
    op.create_index("events_global_order", "events", ["transaction_id", "position"], unique=True)

    op.drop_constraint("events_actor_kind", "events", type_="check")
    op.create_check_constraint("events_actor_kind", "events", NEW_ACTORS)

    # New records hold a sealed outcome; `status` stays only on the old ones.
    op.alter_column("idempotency_keys", "status", nullable=True)

    op.create_table(
        "outbox",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=True), primary_key=True),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("game_id", sa.Uuid(), sa.ForeignKey("games.id"), nullable=True),
        sa.Column("payload", postgresql.JSONB(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("available_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default=sa.text("0")),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("done_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index(
        "outbox_due",
        "outbox",
        ["kind", "available_at"],
        postgresql_where=sa.text("done_at IS NULL"),
    )


def downgrade() -> None:
    op.drop_index("outbox_due", table_name="outbox")
    op.drop_table("outbox")
    # The older code cannot open records that hold outcomes: they go (they only serve
    # retries of recent commands).
    op.execute("DELETE FROM idempotency_keys WHERE status IS NULL")
    op.alter_column("idempotency_keys", "status", nullable=False)
    # Fails, as it should, if bots or players have acted: the older code cannot read that.
    op.drop_constraint("events_actor_kind", "events", type_="check")
    op.create_check_constraint("events_actor_kind", "events", OLD_ACTORS)
    op.drop_index("events_global_order", table_name="events")
    op.drop_column("events", "transaction_id")
    op.drop_column("events", "position")
