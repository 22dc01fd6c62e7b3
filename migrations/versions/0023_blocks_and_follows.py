"""Blocks and follows (docs/api.md "Blocks and follows"): who blocked whom and who follows
whom, one row each (the player's own choice, kept until they undo it or either player is
erased); and which games are public, one row each, written when such a game is created
(what a follower's list shows as ``playing``: the public games their friend sits in that
are not over). The public games created before this migration are found from their
first event.

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    for table in ("blocks", "follows"):
        op.create_table(
            table,
            sa.Column("player_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=False),
            sa.Column("other_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=False),
            sa.Column("created_at", TIME, nullable=False),
            sa.PrimaryKeyConstraint("player_id", "other_id", name=f"{table}_pkey"),
            sa.CheckConstraint("player_id <> other_id", name=f"{table}_not_oneself"),
        )
        op.create_index(f"{table}_by_other", table, ["other_id"])
    op.create_table(
        "public_games",
        sa.Column("game_id", sa.Uuid(), sa.ForeignKey("games.id"), primary_key=True),
    )
    op.execute(
        "INSERT INTO public_games (game_id) SELECT game_id FROM events "
        "WHERE seq = 1 AND type = 'GameCreated' "
        "AND data->>'visibility' = 'public'"
    )


def downgrade() -> None:
    op.drop_table("public_games")
    op.drop_table("follows")
    op.drop_table("blocks")
