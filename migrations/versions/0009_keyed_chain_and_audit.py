"""A keyed hash chain, honest audit records and named operator tokens (docs/security.md).

Events get the id of the chain key their hash is an HMAC under (``chain_key``; null on
the events stored so far, whose hashes stay plain SHA-256 and still verify), who exactly
acted (``actor_id``: an operator token's name, a player's id; and the actor kind
``anonymous``), and where the command came from (``client_request_id``, the client's
own X-Request-ID beside the server's ``request_id``; ``client_address``). Only columns
are added: no stored event is touched, so the append-only guard stays on throughout.

Operator tokens made by `yokai operator create NAME` are kept as their SHA-256, by name,
until `yokai operator revoke NAME` (the service's role may only read them).

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OLD_ACTORS = "actor_kind IN ('seat', 'operator', 'system', 'bot', 'player')"
NEW_ACTORS = "actor_kind IN ('seat', 'operator', 'system', 'bot', 'player', 'anonymous')"
COLUMNS = ("chain_key", "actor_id", "client_request_id", "client_address")


def upgrade() -> None:
    for name in COLUMNS:
        op.add_column("events", sa.Column(name, sa.Text(), nullable=True))
    op.drop_constraint("events_actor_kind", "events", type_="check")
    op.create_check_constraint("events_actor_kind", "events", NEW_ACTORS)
    op.create_table(
        "operators",
        sa.Column("name", sa.Text(), primary_key=True),
        sa.Column("token_sha256", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("operators")
    op.drop_constraint("events_actor_kind", "events", type_="check")
    # Refused while an event records an anonymous actor: the history is never rewritten.
    op.create_check_constraint("events_actor_kind", "events", OLD_ACTORS)
    for name in reversed(COLUMNS):
        op.drop_column("events", name)
