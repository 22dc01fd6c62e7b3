"""What handlers and queries run on: the ports and per-process state, wired once by
service.bootstrap (tests wire in-memory fakes)."""

from __future__ import annotations

from dataclasses import dataclass, field

from service.application.games.cache import StateCache
from service.application.identity.principals import Identity
from service.application.integrity.chain import ChainKeys
from service.application.live.hub import Hub
from service.application.live.recent import RecentCommits
from service.application.ports import Clock, UnitOfWorkFactory
from service.application.webhooks.ports import UrlPolicy
from service.application.write.ports import Dealer


class SchemeOnly:
    """The webhook URL policy of the fakes: http and https URLs. The service is wired
    with the adapter's, which also refuses private and loopback addresses (SSRF)."""

    def problem(self, url: str) -> str | None:
        if not url.startswith(("http://", "https://")):
            return "only http and https URLs"
        return None


@dataclass(frozen=True)
class Deps:
    uow: UnitOfWorkFactory
    clock: Clock
    dealer: Dealer
    cache: StateCache
    identity: Identity
    chain: ChainKeys  # the keys of the events' hash chain (HMAC), kept outside the database
    changes: Hub = field(default_factory=Hub)  # what streams and long-polls wait on
    recent: RecentCommits = field(default_factory=RecentCommits)  # shared by streams
    webhook_urls: UrlPolicy = field(default_factory=SchemeOnly)
