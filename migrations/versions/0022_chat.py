"""Table talk (docs/api.md "Table talk"): each game's chat messages, one row each, on the
``table`` channel (its seated players) or the ``spectators`` channel (everyone else with a
player token). A message is a preset's id or a text: a player's text and name sealed
under the player's key like names (after erasure they read "[erased]" and "erased
player"); an anonymous seat's, which no erasure can reach, as written. ``sender`` is who
the rate limit counts (``p<player id>``, or ``s<game id>:<seat>`` for a seat no player
holds), read by ``chat_by_sender`` over its last seconds.

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "chat_messages",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=True), primary_key=True),
        sa.Column("game_id", sa.Uuid(), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("channel", sa.Text(), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=True),
        sa.Column("player_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=True),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=True),
        sa.Column("preset", sa.Text(), nullable=True),
        sa.Column("sender", sa.Text(), nullable=False),
        sa.Column("at", TIME, nullable=False),
        sa.CheckConstraint("channel IN ('table', 'spectators')", name="chat_messages_channel"),
        sa.CheckConstraint("(text IS NULL) <> (preset IS NULL)", name="chat_messages_one_of"),
    )
    op.create_index("chat_by_game", "chat_messages", ["game_id", "id"])
    op.create_index("chat_by_sender", "chat_messages", ["sender", "at"])
    op.create_index(
        "chat_by_player",
        "chat_messages",
        ["player_id"],
        postgresql_where=sa.text("player_id IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_table("chat_messages")
