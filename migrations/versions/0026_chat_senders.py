"""The chat's rate limit kept per sender (docs/api.md "Table talk"): each sender's last
messages' times (``recent``, at most the limit's count), updated by the statement that
writes a message. An update of the sender's row waits for another's in flight and then
sees it (PostgreSQL re-reads an updated row under READ COMMITTED), so a sender's
concurrent messages count each other, where a count of their rows, in a statement's
snapshot taken before its lock was granted, did not.

Revision ID: 0026
Revises: 0025
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0026"
down_revision: str | None = "0025"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "chat_senders",
        sa.Column("sender", sa.Text(), primary_key=True),
        sa.Column("recent", postgresql.ARRAY(sa.DateTime(timezone=True)), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("chat_senders")
