"""Reports and moderation (docs/api.md "Reports and moderation"): a player reports
another (``reports``), naming a game or one of their chat messages or neither, with a
reason sealed under the reporter's key; an operator closes the report with an action
(``none``, ``warn``, ``mute``, ``suspend``) and a note sealed under the reported player's
key. A mute is the closed report itself: ``until`` is when it ends, read by
``reports_mutes`` when the player posts to a chat. ``reports_by_reporter`` counts a
reporter's reports of the last day (the limit); the open queue is read oldest first by
``reports_open``.

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "reports",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("reporter_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("player_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("game_id", sa.Uuid(), sa.ForeignKey("games.id"), nullable=True),
        sa.Column("message_id", sa.BigInteger(), sa.ForeignKey("chat_messages.id"), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),  # sealed under the reporter's key
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("resolved_at", TIME, nullable=True),
        sa.Column("resolved_by", sa.Text(), nullable=True),
        sa.Column("action", sa.Text(), nullable=True),
        sa.Column("minutes", sa.Integer(), nullable=True),
        sa.Column("until", TIME, nullable=True),
        sa.Column("note", sa.Text(), nullable=True),  # sealed under the reported player's key
        sa.CheckConstraint("action IN ('none', 'warn', 'mute', 'suspend')", name="reports_action"),
        sa.CheckConstraint("(resolved_at IS NULL) = (action IS NULL)", name="reports_closed"),
    )
    op.create_index(
        "reports_open",
        "reports",
        ["created_at", "id"],
        postgresql_where=sa.text("resolved_at IS NULL"),
    )
    op.create_index(
        "reports_resolved",
        "reports",
        ["created_at", "id"],
        postgresql_where=sa.text("resolved_at IS NOT NULL"),
    )
    op.create_index("reports_by_reporter", "reports", ["reporter_id", "created_at"])
    op.create_index("reports_about", "reports", ["player_id"])
    op.create_index(
        "reports_mutes",
        "reports",
        ["player_id", "until"],
        postgresql_where=sa.text("action = 'mute'"),
    )


def downgrade() -> None:
    op.drop_table("reports")
