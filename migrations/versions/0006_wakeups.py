"""Wakeups: when the worker must next look at a game (a bot must act, a turn clock runs
out). One row per game that needs looking at, written with the events that make it so;
workers claim due rows with FOR UPDATE SKIP LOCKED (service/adapters/postgres/wakeups.py).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "wakeups",
        sa.Column("game_id", sa.Uuid(), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("claims", sa.Integer(), nullable=False, server_default=sa.text("0")),
    )
    op.create_index("wakeups_due", "wakeups", ["due_at"])


def downgrade() -> None:
    op.drop_index("wakeups_due", table_name="wakeups")
    op.drop_table("wakeups")
