"""Players (one identity across games), the seats they hold, and their inbox.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("token_sha256", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    # Which player holds which seat: one seat per player per game.
    op.create_table(
        "seat_players",
        sa.Column("game_id", sa.Uuid(), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=False),
        sa.Column("player_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seat", name="seat_players_pkey"),
        sa.UniqueConstraint("game_id", "player_id", name="seat_players_one_seat"),
    )
    op.create_index("seat_players_by_player", "seat_players", ["player_id"])
    # The inbox: a projection, kept in the same statement as the events of each command.
    op.create_table(
        "inbox",
        sa.Column("player_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("game_id", sa.Uuid(), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=False),
        sa.Column("status", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("players", sa.SmallInteger(), nullable=False),
        sa.Column("scoring", sa.Text(), nullable=False),
        sa.Column("variant", sa.Text(), nullable=False),
        sa.Column("scores", postgresql.JSONB(), nullable=False),
        sa.Column("winner", postgresql.JSONB(), nullable=True),
        sa.Column("my_turn", sa.Boolean(), nullable=False),
        sa.Column("action", sa.Text(), nullable=True),
        sa.Column("due_since", sa.DateTime(timezone=True), nullable=True),
        sa.Column("deadline", sa.DateTime(timezone=True), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("player_id", "game_id", name="inbox_pkey"),
    )
    op.create_index("inbox_by_game", "inbox", ["game_id", "seat"])


def downgrade() -> None:
    op.drop_index("inbox_by_game", table_name="inbox")
    op.drop_table("inbox")
    op.drop_index("seat_players_by_player", table_name="seat_players")
    op.drop_table("seat_players")
    op.drop_table("players")
