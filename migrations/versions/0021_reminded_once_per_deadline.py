"""A reminder once per turn, whatever the game does meanwhile: ``reminded`` is keyed by
the turn's deadline, not by the game's version (while passing, every other seat's pass
makes a new version and kept the deadline: a reminder went again with each).

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    # The turns under way when this runs may be reminded once more: better than a
    # column made up for the rows kept.
    op.execute("DELETE FROM reminded")
    op.drop_constraint("reminded_pkey", "reminded", type_="primary")
    op.drop_column("reminded", "version")
    op.add_column("reminded", sa.Column("deadline", TIME, nullable=False))
    op.create_primary_key("reminded_pkey", "reminded", ["player_id", "game_id", "deadline"])


def downgrade() -> None:
    op.execute("DELETE FROM reminded")
    op.drop_constraint("reminded_pkey", "reminded", type_="primary")
    op.drop_column("reminded", "deadline")
    op.add_column("reminded", sa.Column("version", sa.Integer(), nullable=False))
    op.create_primary_key("reminded_pkey", "reminded", ["player_id", "game_id", "version"])
