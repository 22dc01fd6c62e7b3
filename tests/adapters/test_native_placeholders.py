"""The session sends each query with PostgreSQL's own placeholders (service/adapters/
postgres/session.py, `native`): converted once, psycopg's ``%s`` become $1, $2 …"""

from __future__ import annotations

import pytest

from service.adapters.postgres.session import native


def test_each_placeholder_is_numbered_in_order_and_a_doubled_percent_is_one() -> None:
    assert native("SELECT %s, %s FROM t WHERE a = %s") == "SELECT $1, $2 FROM t WHERE a = $3"
    assert native("SELECT '100%%', %s") == "SELECT '100%', $1"
    assert native("SELECT 1") == "SELECT 1"


@pytest.mark.parametrize("sql", ["SELECT %(name)s", "SELECT %b", "SELECT 5 % 2"])
def test_other_percent_signs_are_refused_not_sent_wrong(sql: str) -> None:
    with pytest.raises(ValueError, match="only %s placeholders"):
        native(sql)
