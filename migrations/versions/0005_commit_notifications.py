"""Commit notifications for players: every change to a player's inbox entry is
announced on the channel ``yokai`` by ``pg_notify`` in the transaction that makes it, so
listeners hear of it when (and only if) it commits. Payload: ``p <player id>``;
PostgreSQL folds identical payloads of one transaction into one notification.

(Games are announced by the statement that appends their events, with the events
themselves: service/adapters/postgres/events.py.)

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
        CREATE FUNCTION yokai_notify_player() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('yokai', 'p ' || NEW.player_id::text);
            RETURN NULL;
        END
        $$
        """
    )
    op.execute(
        "CREATE TRIGGER inbox_notify AFTER INSERT OR UPDATE ON inbox "
        "FOR EACH ROW EXECUTE FUNCTION yokai_notify_player()"
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER inbox_notify ON inbox")
    op.execute("DROP FUNCTION yokai_notify_player()")
