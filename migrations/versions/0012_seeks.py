"""Quick play (docs/api.md "Quick play"): a row per seek, a player's wish for a game of a
pool (players, scoring, variant, rated, clock: ``pool`` is their key), open until the
worker pairs it into a game (``game_id``, ``seat``), its player cancels it, or it
expires. A player has one open seek at most (a unique index on the open ones). The open
seeks are read by pool, by expiry and by when their bots fall due (``bots_at``); a
player's matched seeks by when they were matched (the player stream).

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-27
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIME = sa.DateTime(timezone=True)
OPEN = sa.text("status = 'open'")


def upgrade() -> None:
    op.create_table(
        "seeks",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("player_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("pool", sa.Text(), nullable=False),
        sa.Column("players", sa.SmallInteger(), nullable=False),
        sa.Column("scoring", sa.Text(), nullable=False),
        sa.Column("variant", sa.Text(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("clock", postgresql.JSONB(), nullable=True),
        sa.Column("rating_low", sa.Double(), nullable=True),
        sa.Column("rating_high", sa.Double(), nullable=True),
        sa.Column("bots_after", sa.SmallInteger(), nullable=True),
        sa.Column("bots_at", TIME, nullable=True),
        sa.Column("status", sa.Text(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("expires_at", TIME, nullable=False),
        sa.Column("ended_at", TIME, nullable=True),
        sa.Column("game_id", sa.Uuid(), sa.ForeignKey("games.id"), nullable=True),
        sa.Column("seat", sa.SmallInteger(), nullable=True),
        sa.CheckConstraint(
            "status IN ('open', 'matched', 'cancelled', 'expired')", name="seeks_status"
        ),
    )
    op.create_index("seeks_one_open", "seeks", ["player_id"], unique=True, postgresql_where=OPEN)
    op.create_index(
        "seeks_open_by_pool", "seeks", ["pool", "created_at", "id"], postgresql_where=OPEN
    )
    op.create_index("seeks_open_by_expiry", "seeks", ["expires_at"], postgresql_where=OPEN)
    op.create_index(
        "seeks_open_by_bots",
        "seeks",
        ["bots_at"],
        postgresql_where=sa.text("status = 'open' AND bots_at IS NOT NULL"),
    )
    op.create_index(
        "seeks_matched_by_player",
        "seeks",
        ["player_id", "ended_at"],
        postgresql_where=sa.text("status = 'matched'"),
    )


def downgrade() -> None:
    op.drop_table("seeks")
