"""What callers ask the application to do: commands as plain data, and the context they
are sent in (who, which request, which key). The web layer builds them from HTTP
requests; the worker builds them from jobs. Nothing here knows HTTP.

Past 300 lines: each command declares the result it returns (``Returns[...]``)
beside its fields, so that the handler registry (service/application/write/registry.py)
types ``execute`` from this one declaration; splitting the commands by capability would
scatter what the registry reads as one table."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Generic
from uuid import UUID

from service.application.identity.principals import Principal
from service.application.results import (
    Acted,
    Advanced,
    BanLifted,
    ChatPosted,
    Created,
    EmailSet,
    EmailVerified,
    Joined,
    LinkCodeCreated,
    MailUnsubscribed,
    NotificationsChosen,
    Paired,
    PlayerCreated,
    PlayerErased,
    PlayerRenamed,
    PlayerSuspended,
    PushSubscribed,
    PushUnsubscribed,
    R_co,
    Related,
    Rematched,
    ReportFiled,
    ReportResolved,
    ReviewRequested,
    SeekCancelled,
    SeekCreated,
    SignedIn,
    TokenRevoked,
    WebhookCreated,
    WebhookDeleted,
)
from service.application.seeks.ports import Pool
from service.rules import BotLevel, Scoring, TurnClock, Variant, Visibility

ANY_VERSION = -1
"""In :attr:`Context.expected`: any version will do, as long as the game exists."""


class Returns(Generic[R_co]):
    """A command whose handler gives a result of type ``R``: what ``execute`` returns
    for it, and what the handler registered for it must return (application/write/
    registry.py)."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class DealInput:
    """An operator's deal for one round: card ids of each seat's hand, and the trump card."""

    hands: tuple[tuple[str, ...], ...]
    trump: str | None


@dataclass(frozen=True, slots=True)
class BotSeat:
    """A seat a bot takes when the game is created."""

    seat: int
    level: BotLevel


@dataclass(frozen=True, slots=True)
class Invitation:
    """A seat reserved for a player (``seat`` None: the next free seat from seat 1 up)."""

    player_id: UUID
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class CreateGame(Returns[Created]):
    players: int
    scoring: Scoring
    variant: Variant = Variant.STANDARD
    seed: int | None = None  # operators only
    deals: tuple[DealInput, ...] | None = None  # operators only
    clock: TurnClock | None = None
    bots: tuple[BotSeat, ...] = ()
    visibility: Visibility = Visibility.PRIVATE
    invite: tuple[Invitation, ...] = ()
    rated: bool = False  # players only (bots too), no seed or deals


@dataclass(frozen=True, slots=True)
class JoinSeat(Returns[Joined]):
    game_id: UUID
    seat: int
    name: str | None  # None: a player joins under their player name
    client_seed: str | None = None  # a fair game's; drawn when not given


@dataclass(frozen=True, slots=True)
class SeatBot(Returns[Acted]):
    """An operator seats a bot on a free seat."""

    game_id: UUID
    seat: int
    level: BotLevel


@dataclass(frozen=True, slots=True)
class Leave(Returns[Acted]):
    """A seat's player leaves the game; a basic bot plays the seat from now on."""

    game_id: UUID


@dataclass(frozen=True, slots=True)
class Resign(Returns[Acted]):
    """A seat gives the game up: its side loses."""

    game_id: UUID


@dataclass(frozen=True, slots=True)
class Advance(Returns[Advanced]):
    """The worker: make the game's due bot move, or act on its turn clock, if either is
    due now (else nothing)."""

    game_id: UUID


@dataclass(frozen=True, slots=True)
class CreatePlayer(Returns[PlayerCreated]):
    name: str


@dataclass(frozen=True, slots=True)
class PassCards(Returns[Acted]):
    game_id: UUID
    cards: tuple[str, ...]  # card ids, in target order for Seven Followers


@dataclass(frozen=True, slots=True)
class PlayCard(Returns[Acted]):
    game_id: UUID
    card: str  # a card id


@dataclass(frozen=True, slots=True)
class ExpireGame(Returns[Advanced]):
    """The worker's housekeeping: end a game that has waited for players, unchanged,
    since before ``idle_since``."""

    game_id: UUID
    idle_since: datetime


@dataclass(frozen=True, slots=True)
class ImportRecord(Returns[Created]):
    """An operator brings in a finished game's hand record (docs/record-format.md)."""

    text: str


@dataclass(frozen=True, slots=True)
class CreateWebhook(Returns[WebhookCreated]):
    """A player (for their games) or the operators (for every game) register an endpoint
    that hears of ``events``."""

    url: str
    events: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DeleteWebhook(Returns[WebhookDeleted]):
    """The owner of an endpoint removes it, with its pending deliveries and its log."""

    webhook_id: UUID


@dataclass(frozen=True, slots=True)
class SubscribePush(Returns[PushSubscribed]):
    """A player's browser asks for pushes (a ``PushSubscription``: RFC 8030's endpoint,
    RFC 8291's keys in base64url)."""

    endpoint: str
    p256dh: str
    auth: str
    # The browser's expirationTime, in milliseconds since the epoch (an int, as the
    # command's idempotency fingerprint takes it).
    expiration_ms: int | None = None


@dataclass(frozen=True, slots=True)
class DeletePushSubscription(Returns[PushUnsubscribed]):
    subscription_id: UUID


@dataclass(frozen=True, slots=True)
class ChooseNotifications(Returns[NotificationsChosen]):
    """A player changes some of their notification choices: (name, value) pairs of
    ``push``, ``mail``, ``digest`` and ``reminder_minutes``."""

    changes: tuple[tuple[str, object], ...]


@dataclass(frozen=True, slots=True)
class SetEmail(Returns[EmailSet]):
    """A player gives the address mail should go to: a code is sent to verify it."""

    address: str
    lang: str = "en"  # of the messages (the request's Accept-Language)


@dataclass(frozen=True, slots=True)
class VerifyEmail(Returns[EmailVerified]):
    code: str


@dataclass(frozen=True, slots=True)
class UnsubscribeMail(Returns[MailUnsubscribed]):
    """The one-click link of a message (RFC 8058): mail off, without signing in."""

    token: str


@dataclass(frozen=True, slots=True)
class RenamePlayer(Returns[PlayerRenamed]):
    """A player changes their name (games keep the names their seats were joined under)."""

    name: str


@dataclass(frozen=True, slots=True)
class RevokeToken(Returns[TokenRevoked]):
    """A player stops one of their tokens (any of them, the one sending this too)."""

    token_id: UUID


@dataclass(frozen=True, slots=True)
class SignIn(Returns[SignedIn]):
    """Sign in as the player of an identity an ID token proved (a new player named
    ``name`` if it is the identity's first sign-in); with a player token, link the
    identity to that player."""

    issuer: str
    subject: str
    name: str


@dataclass(frozen=True, slots=True)
class SignInWithCode(Returns[SignedIn]):
    """Sign in as the player a link code was made for (only the code's digest here)."""

    code_sha256: str


@dataclass(frozen=True, slots=True)
class CreateLinkCode(Returns[LinkCodeCreated]):
    """A player asks for a code that signs them in on another device."""


@dataclass(frozen=True, slots=True)
class ErasePlayer(Returns[PlayerErased]):
    """Erase a player's personal data for good (docs/privacy.md): the player themself
    (DELETE /v1/me: ``player_id`` None, the sender's) or an operator."""

    player_id: UUID | None = None


@dataclass(frozen=True, slots=True)
class SuspendPlayer(Returns[PlayerSuspended]):
    """An operator suspends a player (``reason`` is kept in the player's audit), or
    (``suspend`` false) lifts the suspension."""

    player_id: UUID
    suspend: bool
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class LiftBan(Returns[BanLifted]):
    """An operator lifts a player's running ban (docs/api.md "Playing fair")."""

    player_id: UUID


@dataclass(frozen=True, slots=True)
class FileReport(Returns[ReportFiled]):
    """A player reports another (docs/api.md "Reports and moderation"), naming a game or
    one of their chat messages, or neither."""

    player_id: UUID
    reason: str
    game_id: UUID | None = None
    message_id: int | None = None


@dataclass(frozen=True, slots=True)
class ResolveReport(Returns[ReportResolved]):
    """An operator closes a report with an action (``minutes``: a mute's)."""

    report_id: UUID
    action: str
    note: str
    minutes: int | None = None


@dataclass(frozen=True, slots=True)
class RequestReview(Returns[ReviewRequested]):
    """Anyone who may read a finished game asks for its hand review (docs/api.md "Hand
    review"): queued for the worker once; asked again after a failure, queued again."""

    game_id: UUID


@dataclass(frozen=True, slots=True)
class PostChat(Returns[ChatPosted]):
    """A seat (the table channel) or a player without a seat (the spectators channel)
    writes in a game's chat (docs/api.md "Table talk"): a text or a preset."""

    game_id: UUID
    text: str | None = None
    preset: str | None = None


@dataclass(frozen=True, slots=True)
class DeclineSeat(Returns[Acted]):
    """The player a seat was reserved for declines it."""

    game_id: UUID
    seat: int


@dataclass(frozen=True, slots=True)
class Rematch(Returns[Rematched]):
    """Play a finished game again: a new game, its players invited (once per game)."""

    game_id: UUID


@dataclass(frozen=True, slots=True)
class CreateSeek(Returns[SeekCreated]):
    """A player asks for a game of ``pool`` with whoever else asks for one (quick play):
    the worker pairs them. ``rating_range``: a rated seek's bounds on the others'
    ordinals; ``bots_after``: seconds after which bots may fill the seats left;
    ``min_reputation``: the least reputation of every person seated with it."""

    pool: Pool
    rating_range: tuple[float, float] | None = None
    bots_after: int | None = None
    min_reputation: int | None = None


@dataclass(frozen=True, slots=True)
class CancelSeek(Returns[SeekCancelled]):
    """A player withdraws their open seek."""

    seek_id: UUID


@dataclass(frozen=True, slots=True)
class PairSeeks(Returns[Paired]):
    """The worker: make the next game of ``pool``'s open seeks, if they make one now.
    ``order`` is the seats drawn for it (a permutation of the game's seats, drawn before
    the command): the seeks seated, oldest first, take ``order[0]``, ``order[1]`` …, and
    bots the seats after theirs, each joining in that order."""

    pool: Pool
    order: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SetBlock(Returns[Related]):
    """A player blocks another (``on``), or lifts their block."""

    player_id: UUID
    on: bool


@dataclass(frozen=True, slots=True)
class SetFollow(Returns[Related]):
    """A player follows another (``on``), or no longer does."""

    player_id: UUID
    on: bool


Command = (
    CreateGame
    | PostChat
    | JoinSeat
    | PassCards
    | PlayCard
    | CreatePlayer
    | SeatBot
    | Leave
    | Resign
    | Advance
    | ImportRecord
    | ExpireGame
    | CreateWebhook
    | DeleteWebhook
    | SubscribePush
    | DeletePushSubscription
    | ChooseNotifications
    | SetEmail
    | VerifyEmail
    | UnsubscribeMail
    | RenamePlayer
    | RevokeToken
    | SignIn
    | SignInWithCode
    | CreateLinkCode
    | SuspendPlayer
    | LiftBan
    | ErasePlayer
    | DeclineSeat
    | Rematch
    | CreateSeek
    | CancelSeek
    | PairSeeks
    | RequestReview
    | FileReport
    | ResolveReport
    | SetBlock
    | SetFollow
)


@dataclass(frozen=True, slots=True)
class Context:
    """Who sends a command, and what the record of it keeps.

    ``idempotency_key``: a command sent again with the same key (by the same principal)
    is done once; a retry gets the first outcome. ``expected``: the versions the caller
    expects the game to be at (None: any), else :class:`StaleVersionError`.
    """

    principal: Principal
    # The client's address (after trusted proxies): scopes the idempotency keys of
    # anonymous callers, and each event records it.
    client: str = ""
    request_id: str | None = None  # made by the server for each request
    client_request_id: str | None = None  # the client's own X-Request-ID, kept beside it
    idempotency_key: str | None = None  # the raw key; only its digest is stored
    expected: frozenset[int] | None = None
    # Idempotency records written before outcomes were stored (migration 0002) hold a
    # fingerprint of the request as the web layer saw it; a retry must match that one.
    request_fingerprint: str | None = None
