"""Webhooks: endpoints of players and operators, deliveries in the outbox (written in
the transaction of the events that cause them), and the log of every attempt.

An outbox row of kind ``webhook`` names its endpoint and its Standard Webhooks message
id (the same for every retry). A trigger announces new outbox rows on ``yokai_jobs``
(PostgreSQL folds a transaction's identical notifications into one), so the worker wakes
only when there is something to deliver.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "webhooks",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("player_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=True),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("events", postgresql.ARRAY(sa.Text()), nullable=False),
        sa.Column("secret", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("failing_since", sa.DateTime(timezone=True), nullable=True),
        sa.Column("disabled_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("disabled_reason", sa.Text(), nullable=True),
    )
    op.create_index("webhooks_by_player", "webhooks", ["player_id"])
    op.create_index(
        "webhooks_of_operators",
        "webhooks",
        ["created_at"],
        postgresql_where=sa.text("player_id IS NULL"),
    )
    op.add_column(
        "outbox",
        sa.Column(
            "webhook_id", sa.Uuid(), sa.ForeignKey("webhooks.id", ondelete="CASCADE"), nullable=True
        ),
    )
    op.add_column("outbox", sa.Column("message_id", sa.Text(), nullable=True))
    op.create_table(
        "webhook_attempts",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=True), primary_key=True),
        sa.Column(
            "webhook_id",
            sa.Uuid(),
            sa.ForeignKey("webhooks.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("message_id", sa.Text(), nullable=False),
        sa.Column("event_type", sa.Text(), nullable=False),
        sa.Column("attempted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.Integer(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("webhook_attempts_by_webhook", "webhook_attempts", ["webhook_id", "id"])
    op.execute(
        """
        CREATE FUNCTION yokai_notify_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('yokai_jobs', 'outbox');
            RETURN NULL;
        END
        $$
        """
    )
    op.execute(
        "CREATE TRIGGER outbox_notify AFTER INSERT ON outbox "
        "FOR EACH ROW EXECUTE FUNCTION yokai_notify_outbox()"
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER outbox_notify ON outbox")
    op.execute("DROP FUNCTION yokai_notify_outbox()")
    op.drop_index("webhook_attempts_by_webhook", table_name="webhook_attempts")
    op.drop_table("webhook_attempts")
    op.drop_column("outbox", "message_id")
    op.drop_column("outbox", "webhook_id")
    op.drop_index("webhooks_of_operators", table_name="webhooks")
    op.drop_index("webhooks_by_player", table_name="webhooks")
    op.drop_table("webhooks")
