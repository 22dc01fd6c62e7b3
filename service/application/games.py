"""The game service: one handler per command (load -> decide -> append -> commit) and the
queries that serve views, feeds and audits. Framework- and database-free."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any
from uuid import UUID, uuid4

from service.application import chain
from service.application.auth import (
    Anonymous,
    BadToken,
    Operator,
    Principal,
    SeatHolder,
    is_operator_token,
    new_token,
    token_digest,
)
from service.application.cache import Loaded, StateCache
from service.application.codec import decode, encode
from service.application.errors import (
    BusyError,
    ForbiddenError,
    GameNotFoundError,
    IdempotencyKeyReusedError,
    InvalidInputError,
    NotModifiedError,
    SeatNotFoundError,
    StaleVersionError,
    UnauthenticatedError,
)
from service.application.idempotency import digest, refusal_reply, seal, unseal
from service.application.model import (
    AuditTrail,
    DealInput,
    Feed,
    FeedEvent,
    GamePage,
    Joined,
    NewGame,
    Reply,
    RequestContext,
    VerifyReport,
    Versioned,
)
from service.application.paging import decode_cursor, encode_cursor
from service.application.ports import (
    SYSTEM,
    Actor,
    ActorKind,
    AppendConflictError,
    Clock,
    Dealer,
    DuplicateKeyError,
    GameSummary,
    StoredEvent,
    UnitOfWork,
    UnitOfWorkFactory,
)
from service.application.verify import verify_history
from service.rules import (
    INITIAL,
    OPERATOR,
    PUBLIC,
    Card,
    Command,
    CreateGame,
    DealRound,
    GameState,
    JoinSeat,
    OperatorView,
    PassCards,
    PlayCard,
    PresetDeal,
    PublicView,
    RuleViolationError,
    SeatView,
    SeatViewer,
    UnknownCardError,
    card,
    deal_due,
    decide,
    evolve,
    observe,
    preset_deal,
    public_status,
    redact,
    to_data,
)

Render = Callable[[Any], Reply]
# What a command's plan gives back: the events to store, the state after them, the result.
# A plan raises its refusals (rule violations, invalid input) before it writes anything.
Planned = tuple[list[chain.Unchained], GameState, Any]
Plan = Callable[[UnitOfWork, Loaded, datetime], Planned]

MAX_ATTEMPTS = 8
ANY_VERSION = -1  # an If-Match / If-None-Match of "*"
NO_GAME = Loaded(INITIAL, 0, chain.GENESIS)


class GameService:
    def __init__(
        self,
        uow: UnitOfWorkFactory,
        clock: Clock,
        dealer: Dealer,
        operator_token: str | None,
        cache: StateCache | None = None,
    ) -> None:
        self._uow = uow
        self._clock = clock
        self._dealer = dealer
        self._operator_token = operator_token
        self._cache = cache if cache is not None else StateCache()

    # -- identity ----------------------------------------------------------------------

    def identify(self, bearer: str | None) -> Principal:
        """The principal a bearer token stands for (no token: anyone)."""
        if bearer is None:
            return Anonymous()
        if is_operator_token(bearer, self._operator_token):
            return Operator()
        with self._uow(snapshot=True) as uow:
            found = uow.credentials.find(token_digest(bearer))
        if found is None:
            return BadToken()
        return SeatHolder(*found)

    # -- commands ----------------------------------------------------------------------

    def create_game(self, new: NewGame, ctx: RequestContext, render: Render) -> Reply:
        if isinstance(ctx.principal, BadToken):
            raise UnauthenticatedError("the bearer token is not valid")
        operator = isinstance(ctx.principal, Operator)
        if not operator and (new.seed is not None or new.deals is not None):
            raise ForbiddenError("only operators may give seed or deals")
        deals = None if new.deals is None else tuple(_preset(d) for d in new.deals)
        command = CreateGame(new.players, new.scoring, new.variant, new.seed, deals)
        actor = Actor(ActorKind.OPERATOR) if operator else SYSTEM
        game_id = uuid4()

        def plan(uow: UnitOfWork, _: Loaded, now: datetime) -> Planned:
            events, state = self._decide(INITIAL, command, actor)
            uow.games.add(
                GameSummary(
                    game_id,
                    now,
                    now,
                    new.players,
                    new.scoring,
                    new.variant,
                    public_status(state),
                    len(events),
                )
            )
            return events, state, Versioned(game_id, len(events), observe(state, PUBLIC))

        return self._write(game_id, ctx, render, plan, existing=False)

    def join_seat(
        self, game_id: UUID, seat: int, name: str, ctx: RequestContext, render: Render
    ) -> Reply:
        if isinstance(ctx.principal, BadToken):
            raise UnauthenticatedError("the bearer token is not valid")
        token = new_token()

        def plan(uow: UnitOfWork, loaded: Loaded, now: datetime) -> Planned:
            cfg = loaded.state.config
            assert cfg is not None
            if not 0 <= seat < cfg.players:
                raise SeatNotFoundError(f"this game has seats 0 to {cfg.players - 1}")
            actor = Actor(ActorKind.SEAT, seat)
            events, state = self._decide(loaded.state, JoinSeat(seat, name), actor)
            version = loaded.version + len(events)
            uow.credentials.add(game_id, seat, token_digest(token), now)
            return events, state, Joined(game_id, version, seat, token)

        return self._write(game_id, ctx, render, plan)

    def pass_cards(
        self, game_id: UUID, cards: Sequence[str], ctx: RequestContext, render: Render
    ) -> Reply:
        seat = _seat_of(game_id, ctx.principal)

        def plan(uow: UnitOfWork, loaded: Loaded, now: datetime) -> Planned:
            chosen = tuple(_card(loaded.state, c) for c in cards)
            return self._seat_command(loaded, PassCards(seat, chosen), seat, game_id)

        return self._write(game_id, ctx, render, plan)

    def play_card(self, game_id: UUID, card_id: str, ctx: RequestContext, render: Render) -> Reply:
        seat = _seat_of(game_id, ctx.principal)

        def plan(uow: UnitOfWork, loaded: Loaded, now: datetime) -> Planned:
            chosen = _card(loaded.state, card_id)
            return self._seat_command(loaded, PlayCard(seat, chosen), seat, game_id)

        return self._write(game_id, ctx, render, plan)

    # -- queries (each reads one consistent snapshot) ------------------------------------

    def public_view(
        self, game_id: UUID, if_none_match: frozenset[int] = frozenset()
    ) -> Versioned[PublicView]:
        with self._uow(snapshot=True) as uow:
            self._not_modified(uow, game_id, if_none_match)
            loaded = self._load(uow, game_id)
        return Versioned(game_id, loaded.version, observe(loaded.state, PUBLIC))

    def seat_view(
        self, game_id: UUID, principal: Principal, if_none_match: frozenset[int] = frozenset()
    ) -> Versioned[SeatView]:
        seat = _seat_of(game_id, principal)
        with self._uow(snapshot=True) as uow:
            self._not_modified(uow, game_id, if_none_match)
            loaded = self._load(uow, game_id)
        return Versioned(game_id, loaded.version, observe(loaded.state, SeatViewer(seat)))

    def feed(self, game_id: UUID, principal: Principal, after: int, limit: int) -> Feed:
        seat = None if isinstance(principal, Operator) else _seat_of(game_id, principal)
        version, rows, next_after = self._page(game_id, after, limit)
        events = []
        for row in rows:
            event = decode(row)
            if seat is not None:
                event = redact(event, SeatViewer(seat))
            events.append(FeedEvent(row.seq, row.type, to_data(event), row.recorded_at, row.actor))
        return Feed(game_id, version, events, next_after)

    def audit(self, game_id: UUID, principal: Principal, after: int, limit: int) -> AuditTrail:
        _require_operator(principal)
        version, rows, next_after = self._page(game_id, after, limit)
        return AuditTrail(game_id, version, rows, next_after)

    def state_at(
        self, game_id: UUID, principal: Principal, at: int | None
    ) -> Versioned[OperatorView]:
        _require_operator(principal)
        with self._uow(snapshot=True) as uow:
            if at is None:
                loaded = self._load(uow, game_id)
                return Versioned(game_id, loaded.version, observe(loaded.state, OPERATOR))
            version = self._summary(uow, game_id).version
            if not 1 <= at <= version:
                raise InvalidInputError(
                    f"at must be between 1 and {version}", code="at_out_of_range"
                )
            rows = uow.events.load(game_id, upto=at)
        state = INITIAL
        for row in rows:
            state = evolve(state, decode(row))
        return Versioned(game_id, at, observe(state, OPERATOR))

    def list_games(
        self, principal: Principal, status: str | None, cursor: str | None, limit: int
    ) -> GamePage:
        _require_operator(principal)
        before = decode_cursor(cursor) if cursor else None
        with self._uow(snapshot=True) as uow:
            rows = uow.games.page(status=status, before=before, limit=limit + 1)
        more = len(rows) > limit
        rows = rows[:limit]
        return GamePage(rows, encode_cursor(rows[-1]) if more and rows else None)

    def verify(self, game_id: UUID) -> VerifyReport:
        """Recompute the hash chain and replay every event under the rules; also check the
        history is as long as the games table recorded with the last command."""
        with self._uow(snapshot=True) as uow:
            summary = uow.games.get(game_id)
            rows = uow.events.load(game_id)
        if summary is None:
            raise GameNotFoundError(f"no game {game_id}")
        return verify_history(game_id, rows, summary.version)

    def game_ids(self) -> list[UUID]:
        with self._uow(snapshot=True) as uow:
            return uow.games.ids()

    # -- internals ---------------------------------------------------------------------

    def _write(
        self,
        game_id: UUID,
        ctx: RequestContext,
        render: Render,
        plan: Plan,
        *,
        existing: bool = True,
    ) -> Reply:
        """Run a command in one transaction: its events, the games row, the idempotency
        record. A writer that lost a race decides again against the new state."""
        key = ctx.idempotency_key
        scope = _scope(ctx)
        for _ in range(MAX_ATTEMPTS):
            try:
                with self._uow() as uow:
                    if key is not None:
                        # Twins wait here for each other, so the later one replays.
                        uow.idempotency.lock(scope, digest(key))
                        stored = uow.idempotency.get(scope, digest(key))
                        if stored is not None:
                            if stored.fingerprint != ctx.fingerprint:
                                raise IdempotencyKeyReusedError(
                                    "this Idempotency-Key was used for a different request"
                                )
                            return unseal(key, scope, stored)
                    loaded = self._load(uow, game_id) if existing else NO_GAME
                    if not _matches(ctx.if_match, loaded.version):
                        raise StaleVersionError(
                            f"the game is at version {loaded.version}", loaded.version
                        )
                    now = self._clock.now()
                    try:
                        events, after, result = plan(uow, loaded, now)
                    except (RuleViolationError, InvalidInputError, SeatNotFoundError) as exc:
                        if key is not None:  # the same request will be refused the same way
                            refused = seal(key, scope, ctx.fingerprint, refusal_reply(exc))
                            uow.idempotency.add(scope, digest(key), refused, now)
                            uow.commit()
                        raise
                    rows = chain.link(
                        game_id,
                        loaded.version,
                        loaded.last_hash,
                        events,
                        now,
                        ctx.request_id,
                        digest(key) if key is not None else None,
                    )
                    uow.events.append(rows)
                    if existing:
                        uow.games.update(
                            game_id,
                            status=public_status(after),
                            version=rows[-1].seq,
                            updated_at=now,
                        )
                    reply = render(result)
                    if key is not None:
                        uow.idempotency.add(
                            scope, digest(key), seal(key, scope, ctx.fingerprint, reply), now
                        )
                    uow.commit()
                self._cache.put(game_id, Loaded(after, rows[-1].seq, rows[-1].hash))
                return reply
            except AppendConflictError:
                if ctx.if_match is not None and ANY_VERSION not in ctx.if_match:
                    raise StaleVersionError(
                        "the game moved on while this command was decided",
                        self._current_version(game_id),
                    ) from None
                continue  # decide again against the new state
            except DuplicateKeyError:
                continue  # a twin stored its response first: replay it
        raise BusyError("too many concurrent commands on this game; retry")

    def _decide(
        self, state: GameState, command: Command, actor: Actor
    ) -> tuple[list[chain.Unchained], GameState]:
        """Decide a command, then deal every round that falls due (system actor)."""
        out: list[chain.Unchained] = []
        events = decide(state, command)
        while True:
            for e in events:
                state = evolve(state, e)
                out.append(encode(e, actor))
            number = deal_due(state)
            if number is None:
                return out, state
            assert state.config is not None
            preset = preset_deal(state, number)
            deal = (
                DealRound(preset.hands, preset.trump)
                if preset is not None
                else self._dealer.deal(state.config, state.seed, number)
            )
            events = decide(state, deal)
            actor = SYSTEM

    def _seat_command(self, loaded: Loaded, command: Command, seat: int, game_id: UUID) -> Planned:
        events, state = self._decide(loaded.state, command, Actor(ActorKind.SEAT, seat))
        version = loaded.version + len(events)
        return events, state, Versioned(game_id, version, observe(state, SeatViewer(seat)))

    def _load(self, uow: UnitOfWork, game_id: UUID) -> Loaded:
        """The game's current state: the cached one plus the events stored after it."""
        cached = self._cache.get(game_id)
        rows = uow.events.load(game_id, after=cached.version if cached else 0)
        if cached is None and not rows:
            raise GameNotFoundError(f"no game {game_id}")
        if not rows:
            assert cached is not None
            return cached
        state = cached.state if cached else INITIAL
        for row in rows:
            state = evolve(state, decode(row))
        loaded = Loaded(state, rows[-1].seq, rows[-1].hash)
        self._cache.put(game_id, loaded)
        return loaded

    def _page(
        self, game_id: UUID, after: int, limit: int
    ) -> tuple[int, list[StoredEvent], int | None]:
        """The game's version, its events after ``after`` (at most ``limit``), and the
        ``after`` of the next page (None at the end)."""
        with self._uow(snapshot=True) as uow:
            version = self._summary(uow, game_id).version
            rows = uow.events.load(game_id, after=after, upto=version, limit=limit)
        last = rows[-1].seq if rows else after
        return version, rows, last if last < version else None

    def _summary(self, uow: UnitOfWork, game_id: UUID) -> GameSummary:
        summary = uow.games.get(game_id)
        if summary is None:
            raise GameNotFoundError(f"no game {game_id}")
        return summary

    def _current_version(self, game_id: UUID) -> int:
        with self._uow(snapshot=True) as uow:
            return self._summary(uow, game_id).version

    def _not_modified(self, uow: UnitOfWork, game_id: UUID, tags: frozenset[int]) -> None:
        if tags:
            version = self._summary(uow, game_id).version
            if version in tags or ANY_VERSION in tags:
                raise NotModifiedError(version)


def _matches(if_match: frozenset[int] | None, version: int) -> bool:
    return if_match is None or ANY_VERSION in if_match or version in if_match


def _scope(ctx: RequestContext) -> str:
    """Whose idempotency keys a request's key is among: a seat's, the operators', or one
    anonymous client's (by address, so one client cannot replay another's join)."""
    if isinstance(ctx.principal, Anonymous):
        return f"anonymous:{ctx.client}"
    return ctx.principal.scope


def _card(state: GameState, card_id: str) -> Card:
    assert state.config is not None
    try:
        c = card(card_id)
    except UnknownCardError:
        c = None
    if c is None or c not in state.config.deck:
        raise InvalidInputError(f"{card_id!r} is not a card of this game", code="unknown_card")
    return c


def _preset(deal: DealInput) -> PresetDeal:
    try:
        hands = tuple(tuple(card(i) for i in h) for h in deal.hands)
        trump = card(deal.trump) if deal.trump is not None else None
    except UnknownCardError as exc:
        raise InvalidInputError(f"deals: {exc}", code="unknown_card") from None
    return PresetDeal(hands, trump)


def _seat_of(game_id: UUID, principal: Principal) -> int:
    match principal:
        case SeatHolder(gid, seat) if gid == game_id:
            return seat
        case SeatHolder():
            raise ForbiddenError("this token belongs to another game")
        case Operator():
            raise ForbiddenError("this action needs a seat token")
        case BadToken():
            raise UnauthenticatedError("the bearer token is not valid")
    raise UnauthenticatedError("a seat token is required", code="missing_token")


def _require_operator(principal: Principal) -> None:
    match principal:
        case Operator():
            return
        case Anonymous():
            raise UnauthenticatedError("an operator token is required", code="missing_token")
        case BadToken():
            raise UnauthenticatedError("the bearer token is not valid")
    raise ForbiddenError("operators only")
