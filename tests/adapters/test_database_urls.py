"""DATABASE_URL with several hosts (a Patroni cluster: docs/operations.md): SQLAlchemy's
engine and the LISTEN connections reach whichever host takes writes."""

from __future__ import annotations

import pytest

from service.adapters.postgres.engine import libpq_conninfo, sqlalchemy_url

CLUSTER = (
    "postgresql://app:s%40cret@10.0.0.1:5432,10.0.0.2:5433/yokai?target_session_attrs=read-write"
)


def test_several_hosts_become_one_host_parameter_each() -> None:
    url = sqlalchemy_url(CLUSTER)
    assert url.drivername == "postgresql+psycopg"
    assert (url.username, url.password, url.database) == ("app", "s@cret", "yokai")
    assert url.query["host"] == ("10.0.0.1:5432", "10.0.0.2:5433")
    assert url.query["target_session_attrs"] == "read-write"


def test_a_host_without_a_port_takes_the_default_as_libpq_does() -> None:
    url = sqlalchemy_url("postgres://app@h1,h2:6432/yokai")
    assert url.query["host"] == ("h1", "h2:6432")


def test_libpq_takes_the_multi_host_url_as_it_is() -> None:
    assert libpq_conninfo(CLUSTER) == CLUSTER
    assert libpq_conninfo("postgresql+psycopg://a@h1,h2/db") == "postgresql://a@h1,h2/db"


def test_a_single_host_url_is_as_before() -> None:
    assert libpq_conninfo("postgres://a:b@h:5/db") == "postgresql://a:b@h:5/db"
    assert sqlalchemy_url("postgres://a:b@h:5/db").render_as_string(hide_password=False) == (
        "postgresql+psycopg://a:b@h:5/db"
    )
    with pytest.raises(ValueError, match="postgresql://"):
        sqlalchemy_url("mysql://a@h1,h2/db")
