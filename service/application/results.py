"""What the application gives back: plain data, no framework types. Commands return the
game and version they produced; queries return views, feeds and pages. Past 300
lines: every command's result beside the others, as commands.py declares the commands
(the idempotency records name them: write/sealed.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar
from uuid import UUID

from service.application.games.cache import Loaded
from service.application.games.ports import GameSummary, InboxEntry
from service.application.ports import ActorKind, StoredEvent

V = TypeVar("V")
R_co = TypeVar("R_co", bound="Result", covariant=True)


# --- command results ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Created:
    """A new game, at the version its creation left it."""

    game_id: UUID
    version: int


@dataclass(frozen=True, slots=True)
class Joined:
    """A seat taken; ``token`` is its secret, given only here."""

    game_id: UUID
    version: int
    seat: int
    token: str


@dataclass(frozen=True, slots=True)
class Acted:
    """A seat's command done: the game is at ``version``."""

    game_id: UUID
    version: int
    seat: int


@dataclass(frozen=True, slots=True)
class Advanced:
    """What the worker did to a game: ``acted`` (a bot moved, a clock ran out) or not."""

    game_id: UUID
    version: int
    acted: bool


@dataclass(frozen=True, slots=True)
class PlayerCreated:
    """A new player; ``token`` is their secret, given only here."""

    player_id: UUID
    name: str
    token: str


@dataclass(frozen=True, slots=True)
class WebhookCreated:
    """A new webhook endpoint, enabled; ``secret`` signs its deliveries, given only here."""

    webhook_id: UUID
    url: str
    events: tuple[str, ...]
    created_at: datetime
    secret: str


@dataclass(frozen=True, slots=True)
class WebhookDeleted:
    webhook_id: UUID


@dataclass(frozen=True, slots=True)
class PushSubscribed:
    subscription_id: UUID
    created_at: datetime
    new: bool  # False: the player had subscribed this endpoint already


@dataclass(frozen=True, slots=True)
class PushUnsubscribed:
    subscription_id: UUID


@dataclass(frozen=True, slots=True)
class Related:
    """A player's block or follow of ``other_id`` is now ``on`` (or off)."""

    other_id: UUID
    on: bool


@dataclass(frozen=True, slots=True)
class NotificationsChosen:
    player_id: UUID


@dataclass(frozen=True, slots=True)
class EmailSet:
    player_id: UUID


@dataclass(frozen=True, slots=True)
class EmailVerified:
    player_id: UUID
    refused: str | None  # None: verified; else why not (no_code, code_expired, wrong_code)


@dataclass(frozen=True, slots=True)
class MailUnsubscribed:
    pass


@dataclass(frozen=True, slots=True)
class PlayerRenamed:
    player_id: UUID
    name: str


@dataclass(frozen=True, slots=True)
class TokenRevoked:
    token_id: UUID


@dataclass(frozen=True, slots=True)
class SignedIn:
    """A new token of the player signed in (given only here); ``new_player``: the
    sign-in made the player."""

    player_id: UUID
    name: str
    token: str
    token_id: UUID
    new_player: bool


@dataclass(frozen=True, slots=True)
class LinkCodeCreated:
    code: str  # given only here
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class PlayerSuspended:
    player_id: UUID
    name: str
    suspended: bool


@dataclass(frozen=True, slots=True)
class ReviewRequested:
    game_id: UUID
    status: str  # the review's: "queued", "running" or "done"


@dataclass(frozen=True, slots=True)
class ChatPosted:
    """A chat message as written (its name and text sealed when a player wrote them)."""

    id: int
    game_id: UUID
    posted_at: datetime
    channel: str
    seat: int | None
    player_id: UUID | None
    name: str
    text: str | None
    preset: str | None


@dataclass(frozen=True, slots=True)
class BanLifted:
    player_id: UUID
    name: str
    lifted: bool  # a ban was running (else nothing was done)


@dataclass(frozen=True, slots=True)
class ReportFiled:
    report_id: UUID


@dataclass(frozen=True, slots=True)
class ReportResolved:
    report_id: UUID


@dataclass(frozen=True, slots=True)
class PlayerErased:
    player_id: UUID
    games: int  # the games that now record the erasure


@dataclass(frozen=True, slots=True)
class Rematched:
    """The game that plays a finished one again, at ``version``; ``created``: by this
    command (else it was there already). Made by a seat token: the ``seat`` it took
    for the asker, and its secret ``token``, given only here."""

    game_id: UUID
    version: int
    created: bool
    seat: int | None = None
    token: str | None = None


@dataclass(frozen=True, slots=True)
class SeekCreated:
    seek_id: UUID
    created_at: datetime
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class SeekCancelled:
    seek_id: UUID


@dataclass(frozen=True, slots=True)
class Paired:
    """What a pairing made of a pool: a game (``game_id``, at ``version``) of
    ``matched`` seeks; or none (``game_id`` None), and when time alone may let the pool
    make one (``retry_at``; None: only a new seek may)."""

    game_id: UUID | None
    version: int = 0
    matched: int = 0
    retry_at: datetime | None = None


GameResult = Created | Joined | Acted | Advanced | Rematched
"""The results of commands about a game: its id and the version they left it at."""

Result = (
    GameResult
    | PlayerCreated
    | PlayerRenamed
    | TokenRevoked
    | SignedIn
    | LinkCodeCreated
    | PlayerSuspended
    | BanLifted
    | ReviewRequested
    | ChatPosted
    | PlayerErased
    | WebhookCreated
    | WebhookDeleted
    | PushSubscribed
    | PushUnsubscribed
    | NotificationsChosen
    | EmailSet
    | EmailVerified
    | MailUnsubscribed
    | SeekCreated
    | SeekCancelled
    | Paired
    | ReportFiled
    | ReportResolved
    | Related
)


@dataclass(frozen=True, slots=True)
class Executed(Generic[R_co]):
    """A command's result, and the game's state right after it (None when the result was
    replayed from an idempotency record): what its response can show without reading the
    game again."""

    result: R_co
    state: Loaded | None


# --- query results --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Versioned(Generic[V]):
    """A view of a game at a version."""

    game_id: UUID
    version: int
    view: V


@dataclass(frozen=True, slots=True)
class Unchanged:
    """The game is still at a version the caller named: it already has the view."""

    game_id: UUID
    version: int


@dataclass(frozen=True, slots=True)
class FeedActor:
    """Who appended an event, as feeds show it: the kind and the seat (who exactly, an
    operator token's name or a player's id, only the audit tells)."""

    kind: ActorKind
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class FeedEvent:
    seq: int
    type: str
    data: dict[str, Any]
    recorded_at: datetime
    actor: FeedActor


@dataclass(frozen=True, slots=True)
class Feed:
    game_id: UUID
    version: int
    events: list[FeedEvent]
    next_after: int | None  # pass as ``after`` for the next page; None if no more


@dataclass(frozen=True, slots=True)
class AuditTrail:
    game_id: UUID
    version: int
    events: list[StoredEvent]
    next_after: int | None


@dataclass(frozen=True, slots=True)
class GamePage:
    games: list[GameSummary]
    next_cursor: str | None


@dataclass(frozen=True, slots=True)
class VerifyReport:
    game_id: UUID
    events: int
    intact: bool
    bad_seq: int | None = None
    reason: str | None = None
    unkeyed: int = 0  # events at the start hashed without a chain key (before it existed)


@dataclass(frozen=True, slots=True)
class InboxPage:
    """A page of a player's inbox, and the tag of the inbox it was read from."""

    games: list[InboxEntry]
    next_cursor: str | None
    etag: str


@dataclass(frozen=True, slots=True)
class InboxUnchanged:
    """The inbox still has the tag the caller named."""

    etag: str
