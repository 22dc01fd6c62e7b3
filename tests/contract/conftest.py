"""The contract suite's fixture: each check runs once on the in-memory fakes and once on
the PostgreSQL adapters (tests/contract/stores.py).

The PostgreSQL one is a database of the suite's own server (tests/support/postgres.py),
migrated once by alembic and used as the service uses it: through its least-privilege
role. It is emptied before each check, so that a check of what is global (the events'
global order, claims, expiry) sees only its own rows, as it does on a new fake: that is
why it is the contract suite's own database, not the suite's shared one, which the other
tests fill and rely on.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine

from service.adapters import migrate
from service.adapters.postgres import roles
from service.adapters.postgres.engine import make_engine, sqlalchemy_url
from tests.contract.stores import ContractDatabase, FakeStore, PostgresStore, Store
from tests.support.postgres import SUITE_APP_ROLE, new_database


@pytest.fixture(scope="session")
def contract_database(server_url: str) -> Iterator[ContractDatabase]:
    url = new_database(server_url, prefix="yokai_contract")
    migrate.upgrade(url)
    app_url = roles.grant_app_role(url, SUITE_APP_ROLE)
    owner = create_engine(sqlalchemy_url(url), isolation_level="AUTOCOMMIT")
    app = make_engine(app_url)
    yield ContractDatabase(url, owner, app)
    app.dispose()
    owner.dispose()


@pytest.fixture(params=["fake", "postgres"])
def store(request: pytest.FixtureRequest) -> Store:
    """Each check runs once on each implementation: on a new, empty store."""
    if request.param == "fake":
        return FakeStore()
    return PostgresStore(request.getfixturevalue("contract_database"))
