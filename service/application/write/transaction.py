"""A command's write transaction as its handler sees it: load a game, decide a command
against it, and append the events with the projection rows they change (each written by
a projector of Deps.projections: service/application/projections.py lists them).

Handlers never open or commit transactions: :func:`service.application.write.idempotency.run`
does, around the handler, with the idempotency record.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from service.application.commands import ANY_VERSION, Context
from service.application.deps import Deps
from service.application.errors import StaleVersionError
from service.application.games.cache import Loaded
from service.application.games.loading import NEW_GAME, load, turn_since
from service.application.identity.principals import PlayerHolder, Principal, SeatHolder
from service.application.integrity import chain
from service.application.ports import Actor, ActorKind, StoredEvent, UnitOfWork
from service.application.webhooks.ports import UrlPolicy, WebhookEvent
from service.application.write.dealing import decide_and_deal
from service.application.write.ports import Dealer
from service.application.write.projectors import Change, Known
from service.rules import BotLevel, Command, JoinSeat


class Transaction:
    """``fresh``: load games from the store. Otherwise a game this process has cached is
    taken as it is, without asking the store whether others appended since: a command
    decided on a state that is behind cannot be appended (its first event's seq is
    taken), and a refusal decided on a cached state is decided again fresh before it is
    given (:func:`service.application.write.idempotency.run`)."""

    def __init__(
        self,
        uow: UnitOfWork,
        deps: Deps,
        ctx: Context,
        now: datetime,
        key_digest: str | None,
        *,
        fresh: bool = True,
    ) -> None:
        self.uow = uow
        self.now = now
        self._deps = deps
        self._ctx = ctx
        self._key_digest = key_digest
        self._origin: chain.Origin | None = None  # sealed at the first event (origin())
        self._fresh = fresh
        self.optimistic = False
        """Whether a game was taken from the cache without asking the store."""
        self.written: dict[UUID, Loaded] = {}
        """The state of each game this transaction appended to, after its events."""
        self.appended: dict[UUID, list[StoredEvent]] = {}
        self._before: dict[UUID, Loaded] = {}  # each game as it was before _pending
        self._pending: dict[UUID, list[StoredEvent]] = {}  # decided, not yet written
        self.bound: dict[UUID, list[tuple[int, UUID]]] = {}
        """Seats that players take in this transaction (seat, player), by game."""
        self.rewake: set[UUID] = set()
        """Games whose wakeup is written whatever it was (the worker claimed them)."""
        self.dropped: dict[UUID, list[UUID]] = {}
        """Players whose inbox entry of a game goes in this transaction (by game)."""
        self._told: dict[UUID, list[WebhookEvent]] = {}  # webhook events besides the game's

    @property
    def keyed(self) -> bool:
        """Whether the command came with an Idempotency-Key (its outcome is stored in the
        same transaction as what it writes)."""
        return self._key_digest is not None

    @property
    def principal(self) -> Principal:
        return self._ctx.principal

    @property
    def request_id(self) -> str | None:
        """The request the command came in (the server's id), for records of it."""
        return self._ctx.request_id

    @property
    def dealer(self) -> Dealer:
        return self._deps.dealer

    @property
    def webhook_urls(self) -> UrlPolicy:
        return self._deps.webhook_urls

    @property
    def mail(self) -> bool:
        """Whether mail can be sent (YOKAI_SMTP_URL)."""
        return self._deps.mail

    def push_subscription_problem(self, endpoint: str, p256dh: str, auth: str) -> str | None:
        """Why a browser's push subscription cannot be pushed to, or None."""
        policy = self._deps.push_subscriptions
        return (
            "pushes are not configured here" if policy is None else policy(endpoint, p256dh, auth)
        )

    @property
    def bot_move_ms(self) -> float | None:
        """The expert bot's time per move (YOKAI_BOT_MOVE_MS; None: the level's own)."""
        return self._deps.bot_move_ms

    @property
    def review_seed(self) -> int:
        """The hand review's seed (YOKAI_REVIEW_SEED)."""
        return self._deps.review_seed

    @property
    def takeover(self) -> BotLevel:
        """The bot that plays on for a player who leaves (YOKAI_TAKEOVER_LEVEL)."""
        return self._deps.takeover

    @property
    def seek_ttl(self) -> timedelta:
        """How long a seek stays open (YOKAI_SEEK_HOURS)."""
        return self._deps.seek_ttl

    def tell(self, game_id: UUID, event: str, data: dict[str, Any], seat: int) -> None:
        """A webhook event about the game for the player who holds ``seat`` (with this
        transaction's joins: :attr:`bound`), delivered with the game's own events of this
        command (call before they are written: :meth:`flush`)."""
        self._told.setdefault(game_id, []).append(WebhookEvent(event, data, seat))

    def load(self, game_id: UUID, *, fresh: bool = False) -> Loaded:
        """The game as it stands in this transaction (:class:`GameNotFoundError` if there
        is none), at a version the caller expects (:class:`StaleVersionError` if not).
        ``fresh``: read the store even on the first attempt (for a handler that may
        decide to do nothing, which is not decided again)."""
        loaded = self.written.get(game_id)
        if loaded is None and not (self._fresh or fresh):
            loaded = self._deps.cache.get(game_id)
            self.optimistic = self.optimistic or loaded is not None
        if loaded is None:
            # Nothing of this game was written here yet: the store has only committed
            # events of it, which the cache may keep.
            loaded = load(self.uow, self._deps.cache, game_id)
        self._expect(loaded.version)
        return loaded

    def seal_name(self, player_id: UUID, name: str) -> str:
        """A name the player goes by, as it is stored: sealed under the player's key
        (service/application/privacy/sealing.py), so that erasing them erases it."""
        sealer = self._deps.sealer
        return name if sealer is None else sealer.name(player_id, name)

    def seal_personal(self, player_id: UUID, value: str) -> str:
        """Personal data of the player's (an address, a push subscription), as stored."""
        sealer = self._deps.sealer
        return value if sealer is None else sealer.personal(player_id, value)

    def seal_text(self, player_id: UUID, value: str) -> str:
        """A text the player wrote (a chat message), as stored: "[erased]" once they are
        erased."""
        sealer = self._deps.sealer
        return value if sealer is None else sealer.text(player_id, value)

    def destroy_keys(self, subjects: list[str]) -> None:
        """Destroy the keys of these subjects now, ahead of the commit
        (service/application/privacy/erasure.py says why)."""
        if self._deps.vault is not None:
            self._deps.vault.destroy(subjects)

    def origin(self) -> chain.Origin:
        """Where the command came from, as its events record it: the client's address and
        request id sealed under the day's key and, when a player sent it (by their token
        or their seat's), the player's key."""
        if self._origin is None:
            ctx, sealer = self._ctx, self._deps.sealer
            address, client_id = ctx.client or None, ctx.client_request_id
            if sealer is not None and (address is not None or client_id is not None):
                player = self._sender()
                address = sealer.request(address, self.now, player)
                client_id = sealer.request(client_id, self.now, player)
            self._origin = chain.Origin(ctx.request_id, self._key_digest, client_id, address)
        return self._origin

    def _sender(self) -> UUID | None:
        principal = self._ctx.principal
        if isinstance(principal, PlayerHolder):
            return principal.player_id
        if isinstance(principal, SeatHolder):
            return principal.player_id or principal.seat_player
        return None

    def new_game(self) -> Loaded:
        """A game before its first event."""
        self._expect(0)
        return NEW_GAME

    def apply(self, game_id: UUID, game: Loaded, command: Command, actor: Actor) -> Loaded:
        """Decide ``command`` (raising the rules' refusal before anything is written) and
        the deals that follow it, and queue the writes of its events (with any decided
        before on this game) and of the projection rows they change. Returns the game
        after them."""
        after = self.decide(game_id, game, command, actor)
        self._write(game_id)
        return after

    def decide(self, game_id: UUID, game: Loaded, command: Command, actor: Actor) -> Loaded:
        """As :meth:`apply`, but only keeps the events: a handler that makes several
        commands of one game decides the first ones, and applies the last, so that they
        are appended together (one commit, one notification, one projection update)."""
        if isinstance(command, JoinSeat) and actor.kind is ActorKind.PLAYER and actor.id:
            command = replace(command, name=self.seal_name(UUID(actor.id), command.name))
        events, state = decide_and_deal(game_id, game.state, command, actor, self._deps.dealer)
        origin = self.origin()
        rows = chain.link(
            game_id, game.version, game.last_hash, events, self.now, origin, self._deps.chain
        )
        self._before.setdefault(game_id, game)
        self._pending.setdefault(game_id, []).extend(rows)
        self.appended.setdefault(game_id, []).extend(rows)
        after = Loaded(state, rows[-1].seq, rows[-1].hash, turn_since(game.turn_since, rows))
        self.written[game_id] = after
        return after

    def flush(self) -> None:
        """Queue the writes of whatever was decided and not applied yet."""
        for game_id in list(self._pending):
            self._write(game_id)

    def _write(self, game_id: UUID) -> None:
        rows = self._pending.pop(game_id, None)
        if not rows:
            return
        change = Change(game_id, self._before.pop(game_id), self.written[game_id], rows)
        known = Known(
            self.now,
            self.bound.get(game_id, ()),
            self.dropped.get(game_id, ()),
            game_id in self.rewake,
            self._told.pop(game_id, ()),
        )
        projections = self._deps.projections
        for project in projections.referenced:
            project(self.uow, change, known)
        self.uow.events.append(rows)
        for project in projections.following:
            project(self.uow, change, known)
        if known.bound or change.before.version == 0:
            for project in projections.seating:
                project(self.uow, change, known)

    def _expect(self, version: int) -> None:
        expected = self._ctx.expected
        if expected is not None and ANY_VERSION not in expected and version not in expected:
            raise StaleVersionError(f"the game is at version {version}", version)
