"""The application's dependencies on the fakes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.application.deps import Deps
from service.application.games.cache import StateCache
from service.application.identity.bearer import Identity
from service.application.integrity.chain import ChainKeys
from service.application.live.hub import Hub
from service.application.projections import PROJECTIONS
from tests.application.fakes.clock import FixedClock
from tests.application.fakes.dealer import ScriptedDealer

if TYPE_CHECKING:
    from tests.application.fakes.database import Database


OPERATOR_TOKEN = "operator-token-for-the-application-tests"


CHAIN_KEYS = ChainKeys(b"application-tests-chain-key-32by")


def make_deps(
    db: Database,
    clock: FixedClock,
    dealer: ScriptedDealer,
    *,
    operator_token: str | None = OPERATOR_TOKEN,
    cache: StateCache | None = None,
) -> Deps:
    """The application's dependencies on the fakes (a fresh state cache unless given);
    the database's commits wake the deps' hub."""
    hub = db.hub = db.hub or Hub()
    return Deps(
        uow=db.unit_of_work,
        clock=clock,
        dealer=dealer,
        cache=cache if cache is not None else StateCache(),
        identity=Identity(db.unit_of_work, operator_token, clock=clock),
        chain=CHAIN_KEYS,
        webhook_urls=SchemeOnly(),
        projections=PROJECTIONS,
        changes=hub,
    )


class SchemeOnly:
    """The webhook URL policy of the fakes: http and https URLs (the tests' receivers
    listen on loopback). The service is wired only with the adapter's, which also refuses
    private and loopback addresses (SSRF)."""

    def problem(self, url: str) -> str | None:
        if not url.startswith(("http://", "https://")):
            return "only http and https URLs"
        return None
