"""What handlers and queries run on: the ports and per-process state, wired once by
service.bootstrap (tests wire in-memory fakes)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta

from service.application.games.cache import StateCache
from service.application.identity.bearer import Identity
from service.application.identity.ports import IdTokens
from service.application.integrity.chain import ChainKeys
from service.application.live.hub import Hub
from service.application.live.recent import RecentCommits
from service.application.live.recent_chat import RecentChat
from service.application.notify.watching import Watching
from service.application.ports import Clock, UnitOfWorkFactory
from service.application.privacy.ports import KeyVault
from service.application.privacy.sealer import Sealer
from service.application.webhooks.ports import UrlPolicy
from service.application.write.ports import Dealer
from service.application.write.projectors import Projections
from service.rules import BotLevel


@dataclass(frozen=True)
class Deps:
    uow: UnitOfWorkFactory
    clock: Clock
    dealer: Dealer
    cache: StateCache
    identity: Identity
    chain: ChainKeys  # the keys of the events' hash chain (HMAC), kept outside the database
    webhook_urls: UrlPolicy  # where webhooks may be sent (the adapter refuses private hosts)
    # Every effect of a command, run in its transaction: service/application/projections.py
    projections: Projections
    id_tokens: IdTokens | None = None  # a verifier of OpenID Connect ID tokens, if configured
    changes: Hub = field(default_factory=Hub)  # what streams and long-polls wait on
    recent: RecentCommits = field(default_factory=RecentCommits)  # shared by streams
    recent_chat: RecentChat = field(default_factory=RecentChat)  # shared by game streams
    seek_ttl: timedelta = timedelta(hours=24)  # a seek expires after this (YOKAI_SEEK_HOURS)
    bot_move_ms: float | None = None  # the expert bot's time per move (YOKAI_BOT_MOVE_MS)
    takeover: BotLevel = BotLevel.BASIC  # the bot for a seat whose player leaves
    review_seed: int = 46  # the hand review's seed (YOKAI_REVIEW_SEED)
    vault: KeyVault | None = None  # the keys personal data is sealed under (docs/privacy.md)
    sealer: Sealer | None = None  # seals under the vault's keys (None: kept in the clear)
    # Why a push subscription (endpoint, p256dh, auth) is refused, or None (the
    # adapter's: https, or loopback http: with YOKAI_PUSH_ALLOW_HTTP, and keys a browser
    # makes); None: pushes are not configured.
    push_subscriptions: Callable[[str, str, str], str | None] | None = None
    push_key: str | None = None  # the VAPID public key, base64url (YOKAI_VAPID_PRIVATE_KEY)
    watching: Watching | None = None  # who looks at what: no push then (notify/watching.py)
    mail: bool = False  # whether mail can be sent (YOKAI_SMTP_URL)
