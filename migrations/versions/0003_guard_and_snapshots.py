"""A guard function for commands sent in one statement, and snapshots of games.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A guard a command sends in the same round trip as its writes: it aborts the
    # transaction when what it checks (a credential the command was authorized by) no
    # longer holds.
    op.execute(
        """
        CREATE FUNCTION yokai_require(ok boolean, what text) RETURNS boolean
        LANGUAGE plpgsql AS $$
        BEGIN
            IF NOT ok THEN
                RAISE EXCEPTION '% no longer holds', what USING ERRCODE = 'YK001';
            END IF;
            RETURN true;
        END
        $$
        """
    )

    # Snapshots: a game's folded state every so many events, so that a process without
    # the game in its cache folds only the events after the last one. A cache: any row
    # may be deleted at any time.
    op.create_table(
        "snapshots",
        sa.Column("game_id", sa.Uuid(), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("last_hash", sa.String(64), nullable=False),
        sa.Column("schema_version", sa.SmallInteger(), nullable=False),
        sa.Column("data", postgresql.JSONB(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("snapshots")
    op.execute("DROP FUNCTION yokai_require(boolean, text)")
