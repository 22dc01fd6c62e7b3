"""The lobby (docs/api.md "Finding a game"): public games waiting for players, a row per
game kept in each command's own statement like the inbox, never a scan of games. A game
that leaves the lobby (full, started, expired) keeps its row with ``open_seats = 0`` a
while, so that streams and long-polls can tell it left; the worker forgets such rows.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "lobby",
        sa.Column("game_id", sa.Uuid(), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("players", sa.SmallInteger(), nullable=False),
        sa.Column("scoring", sa.Text(), nullable=False),
        sa.Column("variant", sa.Text(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("clock", postgresql.JSONB(), nullable=True),
        sa.Column("seats", postgresql.JSONB(), nullable=False),
        sa.Column("open_seats", sa.SmallInteger(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("updated_at", TIME, nullable=False),
    )
    op.create_index(
        "lobby_open",
        "lobby",
        ["created_at", "game_id"],
        postgresql_where=sa.text("open_seats > 0"),
    )
    op.create_index("lobby_by_change", "lobby", ["updated_at"])


def downgrade() -> None:
    op.drop_table("lobby")
