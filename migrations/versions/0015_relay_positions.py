"""The relay's position (service/application/live/relay.py): the last event it announced
on the message bus, in the global order ``(transaction_id, position)``, so that a relay
that takes over goes on from there. One row per relay name (``commits``).

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "relay_positions",
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("transaction_id", sa.BigInteger(), nullable=False),
        sa.Column("position", sa.BigInteger(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name="relay_positions_pkey"),
    )


def downgrade() -> None:
    op.drop_table("relay_positions")
