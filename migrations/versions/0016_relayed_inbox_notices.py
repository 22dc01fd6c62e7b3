"""Inbox notifications where a relay announces commits (issue 43): on a connection that
says ``yokai.relayed = on`` (the service's pool, when YOKAI_REDIS_URL is set), a player's
inbox entry that a game's commit inserts or moves to a new version is not announced by
``pg_notify``: the relay announces the player with the game's commit (it reads the seats'
players after the commit). An update that leaves its version (none does today) is
still announced here, as is everything on a connection that does not say so.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute(
        """
        CREATE OR REPLACE FUNCTION yokai_notify_player() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF current_setting('yokai.relayed', true) = 'on'
               AND (TG_OP = 'INSERT' OR NEW.version IS DISTINCT FROM OLD.version) THEN
                RETURN NULL;
            END IF;
            PERFORM pg_notify('yokai', 'p ' || NEW.player_id::text);
            RETURN NULL;
        END
        $$
        """
    )


def downgrade() -> None:
    op.execute(
        """
        CREATE OR REPLACE FUNCTION yokai_notify_player() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('yokai', 'p ' || NEW.player_id::text);
            RETURN NULL;
        END
        $$
        """
    )
