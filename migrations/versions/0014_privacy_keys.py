"""Privacy (docs/privacy.md): the keys personal data is sealed under (``privacy_keys``:
a player's, ``p<id hex>``; a day's, ``d<YYYYMMDD>``, for client addresses), a destroyed
key keeping its row without its bytes (what was sealed under it can never be sealed
readable again), and when a player was erased (``players.erased_at``).

Nothing stored is rewritten here: what was written before this revision stays as it
was until `yokai privacy reseal` seals it (docs/privacy.md), each resealed event then
carrying the chain key's attestation (``events.resealed``).

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "privacy_keys",
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column("key", sa.LargeBinary(), nullable=True),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("destroyed_at", TIME, nullable=True),
        sa.PrimaryKeyConstraint("subject", name="privacy_keys_pkey"),
        sa.CheckConstraint(
            "(key IS NULL) = (destroyed_at IS NOT NULL)", name="privacy_keys_destroyed"
        ),
    )
    op.add_column("players", sa.Column("erased_at", TIME, nullable=True))
    # An event of before this revision whose personal data `yokai privacy reseal` sealed
    # since: the chain key's attestation of its new content and its unchanged hash
    # (service/application/integrity/chain.py). A nullable column: no row is rewritten.
    op.add_column("events", sa.Column("resealed", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("events", "resealed")
    op.drop_column("players", "erased_at")
    op.drop_table("privacy_keys")
