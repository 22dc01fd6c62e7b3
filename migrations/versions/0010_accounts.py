"""Accounts (docs/api.md "Accounts"): a player's tokens, one row each, that the player can
list and revoke; the OpenID Connect identities linked to players; link codes that move
a session to another device; suspensions, and the audit of what was done to a player.

Every token and link code is kept as its SHA-256 only. The token each player was made
with moves to ``player_tokens`` (``via = 'created'``); ``players.token_sha256`` is no
longer read or written and may be null from now on (a later migration drops it, once no
process of an earlier release runs).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "player_tokens",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("player_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("token_sha256", sa.String(64), nullable=False, unique=True),
        sa.Column("via", sa.Text(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("last_used_at", TIME, nullable=True),
        sa.Column("revoked_at", TIME, nullable=True),
        sa.CheckConstraint("via IN ('created', 'oidc', 'link')", name="player_tokens_via"),
    )
    op.create_index("player_tokens_by_player", "player_tokens", ["player_id", "created_at"])
    op.execute(
        "INSERT INTO player_tokens (id, player_id, token_sha256, via, created_at) "
        "SELECT gen_random_uuid(), id, token_sha256, 'created', created_at FROM players"
    )
    op.alter_column("players", "token_sha256", nullable=True)
    op.add_column("players", sa.Column("suspended_at", TIME, nullable=True))
    op.add_column("players", sa.Column("suspended_reason", sa.Text(), nullable=True))
    # An identity (issuer, subject) is one player's, once: a race of two first sign-ins
    # makes one player.
    op.create_table(
        "identities",
        sa.Column("issuer", sa.Text(), nullable=False),
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column("player_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("issuer", "subject", name="identities_pkey"),
    )
    op.create_index("identities_by_player", "identities", ["player_id"])
    op.create_table(
        "link_codes",
        sa.Column("code_sha256", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("expires_at", TIME, nullable=False),
        sa.Column("used_at", TIME, nullable=True),
    )
    op.create_index("link_codes_by_player", "link_codes", ["player_id", "created_at"])
    op.create_table(
        "player_audit",
        sa.Column("id", sa.BigInteger(), sa.Identity(), primary_key=True),
        sa.Column("player_id", sa.Uuid(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("at", TIME, nullable=False),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("actor_kind", sa.Text(), nullable=False),
        sa.Column("actor_id", sa.Text(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("request_id", sa.Text(), nullable=True),
    )
    op.create_index("player_audit_by_player", "player_audit", ["player_id", "id"])
    # The guard of a suspended player's token: like yokai_require (migration 0003), it
    # aborts what it is sent with, with its own code, so the answer is 403, not 401.
    op.execute(
        """
        CREATE FUNCTION yokai_not_suspended(suspended boolean) RETURNS boolean
        LANGUAGE plpgsql AS $$
        BEGIN
            IF suspended THEN
                RAISE EXCEPTION 'the player is suspended' USING ERRCODE = 'YK002';
            END IF;
            RETURN true;
        END
        $$
        """
    )


def downgrade() -> None:
    op.execute("DROP FUNCTION yokai_not_suspended(boolean)")
    op.drop_table("player_audit")
    op.drop_table("link_codes")
    op.drop_table("identities")
    op.drop_column("players", "suspended_reason")
    op.drop_column("players", "suspended_at")
    # Refused if a player has no token it was made with (one made by a sign-in).
    op.execute(
        "UPDATE players SET token_sha256 = t.token_sha256 FROM player_tokens AS t "
        "WHERE t.player_id = players.id AND t.via = 'created'"
    )
    op.alter_column("players", "token_sha256", nullable=False)
    op.drop_table("player_tokens")
