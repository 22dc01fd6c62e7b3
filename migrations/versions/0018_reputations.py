"""Reputation and bans (docs/api.md "Playing fair"): each player's standing
(``reputations``: the score and its counts, and when an operator last lifted their ban),
the marks it was made of (``reputation_marks``: one per player and event, written by the
command that recorded the event; ``banning``: an abandonment of a rated or quick-play
game, which bans), seeks' ``min_reputation``, and seeks found by their game (whether a
game is quick play's).

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "reputations",
        sa.Column("player_id", sa.Uuid(), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("score", sa.SmallInteger(), nullable=False),
        sa.Column("finished", sa.Integer(), nullable=False),
        sa.Column("abandoned", sa.Integer(), nullable=False),
        sa.Column("timeouts", sa.Integer(), nullable=False),
        sa.Column("lifted_at", TIME, nullable=True),
        sa.CheckConstraint("score BETWEEN 0 AND 100", name="reputations_score"),
    )
    op.create_table(
        "reputation_marks",
        sa.Column("player_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("game_id", sa.Uuid(), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("at", TIME, nullable=False),
        sa.Column("how", sa.Text(), nullable=False),
        sa.Column("banning", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("player_id", "game_id", "seq", name="reputation_marks_pkey"),
        sa.CheckConstraint(
            "how IN ('finished', 'left', 'resigned', 'forfeited', 'timeout')",
            name="reputation_marks_how",
        ),
    )
    op.create_index(
        "reputation_marks_banning",
        "reputation_marks",
        ["player_id", "at"],
        postgresql_where=sa.text("banning"),
    )
    op.add_column("seeks", sa.Column("min_reputation", sa.SmallInteger(), nullable=True))
    op.create_index(
        "seeks_by_game", "seeks", ["game_id"], postgresql_where=sa.text("game_id IS NOT NULL")
    )


def downgrade() -> None:
    op.drop_index("seeks_by_game", table_name="seeks")
    op.drop_column("seeks", "min_reputation")
    op.drop_table("reputation_marks")
    op.drop_table("reputations")
