"""Who invited a player and to the rematch of which game (issue 48): an invitation's
inbox entry keeps the inviting player's id (``invited_by``; null when no player invited:
an operator's game, a rematch asked by a seat token no player holds) and the finished
game a rematch plays again (``rematch_of``). The inbox answers the inviter's name by
joining ``players`` (sealed under their key like every name: erased, it reads as such).

Revision ID: 0025
Revises: 0024
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("inbox", sa.Column("invited_by", sa.Uuid(), nullable=True))
    op.add_column("inbox", sa.Column("rematch_of", sa.Uuid(), nullable=True))


def downgrade() -> None:
    op.drop_column("inbox", "rematch_of")
    op.drop_column("inbox", "invited_by")
