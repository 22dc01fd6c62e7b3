"""New webhook deliveries announced by the statement that writes them, not by a trigger
(issue 43): the fan-out says RETURNING and the commit's statement calls ``pg_notify`` once
if it wrote any (service/adapters/postgres/session.py ``notify``), or, with
YOKAI_REDIS_URL, the process publishes the note on Redis once the commit has returned.
The trigger of migration 0007 announced each row inside the transaction, which a
deployment with a relay must not do (a notifying commit takes PostgreSQL's global
notification lock).

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("DROP TRIGGER outbox_notify ON outbox")
    op.execute("DROP FUNCTION yokai_notify_outbox()")


def downgrade() -> None:
    op.execute(
        """
        CREATE FUNCTION yokai_notify_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('yokai_jobs', 'outbox');
            RETURN NULL;
        END
        $$
        """
    )
    op.execute(
        "CREATE TRIGGER outbox_notify AFTER INSERT ON outbox "
        "FOR EACH ROW EXECUTE FUNCTION yokai_notify_outbox()"
    )
