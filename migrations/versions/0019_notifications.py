"""Turn notifications (docs/api.md "Turn notifications"): each player's choices
(``notification_settings``: push, mail, the address and whether it is verified, the
digest, the reminder's minutes, the one-click unsubscribe token and when the last digest
went), their browsers' push subscriptions (``push_subscriptions``; the endpoint and keys
sealed under the player's key like names, found again by the endpoint's hash), the codes
sent to verify an address (``email_codes``), and who is looking at what
(``watchers``: an open game or player stream, refreshed while it stays open; a push waits
for nobody who is looking), and the turns a player was reminded of (``reminded``: once
per game and version).

Pushes and mail go through the outbox (kinds ``push`` and ``mail``): at most one push
per subscription, game and version, a reminder counted apart (``outbox_push_once``).

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "notification_settings",
        sa.Column("player_id", sa.Uuid(), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("push", sa.Boolean(), nullable=False, server_default=sa.true()),
        sa.Column("mail", sa.Boolean(), nullable=False, server_default=sa.true()),
        sa.Column("email", sa.Text(), nullable=True),  # sealed under the player's key
        sa.Column("email_verified", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("digest", sa.Text(), nullable=False, server_default="off"),
        sa.Column("reminder_minutes", sa.SmallInteger(), nullable=True),
        sa.Column("unsubscribe_token", sa.Text(), nullable=False, unique=True),
        sa.Column("digest_sent_at", TIME, nullable=True),
        sa.Column("lang", sa.Text(), nullable=False, server_default="en"),  # of the mail
        sa.CheckConstraint("digest IN ('off', 'hourly', 'daily')", name="notification_digest"),
        sa.CheckConstraint(
            "reminder_minutes BETWEEN 1 AND 1440", name="notification_reminder_minutes"
        ),
    )
    op.create_table(
        "push_subscriptions",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("player_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("endpoint_hash", sa.Text(), nullable=False),  # SHA-256 of the endpoint, hex
        sa.Column("endpoint", sa.Text(), nullable=False),  # sealed
        sa.Column("keys", sa.Text(), nullable=False),  # {"p256dh", "auth"} as JSON, sealed
        sa.Column("expires_at", TIME, nullable=True),
        sa.Column("created_at", TIME, nullable=False),
        sa.UniqueConstraint("player_id", "endpoint_hash", name="push_subscriptions_endpoint"),
    )
    op.create_table(
        "email_codes",
        sa.Column("player_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("sent_at", TIME, nullable=False),
        sa.Column("address", sa.Text(), nullable=False),  # sealed
        sa.Column("code_hash", sa.Text(), nullable=False),
        sa.Column("expires_at", TIME, nullable=False),
        sa.Column("tries", sa.SmallInteger(), nullable=False, server_default="0"),
        sa.PrimaryKeyConstraint("player_id", "sent_at", name="email_codes_pkey"),
    )
    op.create_table(
        "watchers",
        sa.Column("stream_id", sa.Uuid(), primary_key=True),
        sa.Column("player_id", sa.Uuid(), nullable=False),
        sa.Column("game_id", sa.Uuid(), nullable=True),  # null: the player stream
        sa.Column("seen_at", TIME, nullable=False),
    )
    op.create_index("watchers_by_player", "watchers", ["player_id"])
    op.create_table(
        "reminded",
        sa.Column("player_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("game_id", sa.Uuid(), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("player_id", "game_id", "version", name="reminded_pkey"),
    )
    op.execute(
        "CREATE UNIQUE INDEX outbox_push_once ON outbox "
        "((payload->>'subscription_id'), game_id, (payload->>'version'), "
        "((payload->>'type') = 'reminder')) WHERE kind = 'push'"
    )


def downgrade() -> None:
    op.execute("DELETE FROM outbox WHERE kind IN ('push', 'mail')")
    op.drop_index("outbox_push_once", table_name="outbox")
    op.drop_table("reminded")
    op.drop_index("watchers_by_player", table_name="watchers")
    op.drop_table("watchers")
    op.drop_table("email_codes")
    op.drop_table("push_subscriptions")
    op.drop_table("notification_settings")
