"""Commit notifications: every change to a game or to a player's inbox is announced on
the channel ``yokai`` by ``pg_notify`` in the transaction that makes it, so listeners
hear of it when (and only if) it commits.

Payloads: ``g <game id> <version>`` when a game's row is written (each command that
appends events writes it once), ``p <player id>`` when one of a player's inbox entries
is. PostgreSQL folds identical payloads of one transaction into one notification.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute(
        """
        CREATE FUNCTION yokai_notify_game() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('yokai', 'g ' || NEW.id::text || ' ' || NEW.version::text);
            RETURN NULL;
        END
        $$
        """
    )
    op.execute(
        """
        CREATE FUNCTION yokai_notify_player() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('yokai', 'p ' || NEW.player_id::text);
            RETURN NULL;
        END
        $$
        """
    )
    op.execute(
        "CREATE TRIGGER games_notify AFTER INSERT OR UPDATE ON games "
        "FOR EACH ROW EXECUTE FUNCTION yokai_notify_game()"
    )
    op.execute(
        "CREATE TRIGGER inbox_notify AFTER INSERT OR UPDATE ON inbox "
        "FOR EACH ROW EXECUTE FUNCTION yokai_notify_player()"
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER inbox_notify ON inbox")
    op.execute("DROP TRIGGER games_notify ON games")
    op.execute("DROP FUNCTION yokai_notify_player()")
    op.execute("DROP FUNCTION yokai_notify_game()")
