"""Games in the order they last changed: the export's cursor (GET /v1/export, yokai
export) reads them page by page by ``(updated_at, id)`` without sorting the table.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("games_by_change", "games", ["updated_at", "id"])


def downgrade() -> None:
    op.drop_index("games_by_change", table_name="games")
