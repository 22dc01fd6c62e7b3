"""Ratings (docs/api.md "Ratings, profiles and leaderboards"): each player's rating by
ladder (``ratings``), every update kept (``rating_history``: one row per player and game,
so a game updates a player once), and the finished rated games (``rated_games``): a row
written by the command that finished the game, rated once by a worker (``rated_at``,
``rated_seq``: the order the updates were made, which a rebuild follows); and each
player's finished games (``player_results``, written by the command that finished the
game: profiles' stats and recent games).

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "ratings",
        # No key to players: a bot level rates as a player of its own, without a row.
        sa.Column("player_id", sa.Uuid(), nullable=False),
        sa.Column("ladder", sa.Text(), nullable=False),
        sa.Column("mu", sa.Double(), nullable=False),
        sa.Column("sigma", sa.Double(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("player_id", "ladder", name="ratings_pkey"),
    )
    op.create_index("ratings_by_ladder", "ratings", ["ladder"])
    op.create_table(
        "rating_history",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=True), primary_key=True),
        sa.Column("game_id", sa.Uuid(), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("player_id", sa.Uuid(), nullable=False),
        sa.Column("ladder", sa.Text(), nullable=False),
        sa.Column("at", TIME, nullable=False),
        sa.Column("before_mu", sa.Double(), nullable=False),
        sa.Column("before_sigma", sa.Double(), nullable=False),
        sa.Column("after_mu", sa.Double(), nullable=False),
        sa.Column("after_sigma", sa.Double(), nullable=False),
        sa.UniqueConstraint("game_id", "player_id", name="rating_history_once"),
    )
    op.create_index("rating_history_by_player", "rating_history", ["player_id", "ladder", "id"])
    op.create_table(
        "rated_games",
        sa.Column("game_id", sa.Uuid(), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("finished_at", TIME, nullable=False),
        sa.Column("rated_at", TIME, nullable=True),
        sa.Column("rated_seq", sa.BigInteger(), nullable=True, unique=True),
    )
    op.create_index(
        "rated_games_due",
        "rated_games",
        ["finished_at", "game_id"],
        postgresql_where=sa.text("rated_at IS NULL"),
    )
    op.create_table(
        "player_results",
        sa.Column("player_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("game_id", sa.Uuid(), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=False),
        sa.Column("finished_at", TIME, nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=False),
        sa.Column("abandoned", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("player_id", "game_id", name="player_results_pkey"),
    )
    op.create_index(
        "player_results_recent", "player_results", ["player_id", "finished_at", "game_id"]
    )


def downgrade() -> None:
    op.drop_table("player_results")
    op.drop_table("rated_games")
    op.drop_table("rating_history")
    op.drop_table("ratings")
