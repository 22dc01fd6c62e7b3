"""Command handlers, one module per family of commands, and :func:`execute`, which checks
who may send a command, then runs its handler through the one idempotency and retry
wrapper."""

from __future__ import annotations

from typing import overload

from service.application.commands import (
    Advance,
    CancelSeek,
    Command,
    Context,
    CreateGame,
    CreateLinkCode,
    CreatePlayer,
    CreateSeek,
    CreateWebhook,
    DeclineSeat,
    DeleteWebhook,
    ErasePlayer,
    ExpireGame,
    ImportRecord,
    JoinSeat,
    Leave,
    PairSeeks,
    PassCards,
    PlayCard,
    Rematch,
    RenamePlayer,
    Resign,
    RevokeToken,
    SeatBot,
    SignIn,
    SignInWithCode,
    SuspendPlayer,
)
from service.application.deps import Deps
from service.application.games import invitations
from service.application.games import rematch as rematching
from service.application.games.handlers import advance, create, play, seats
from service.application.handrecords import importing
from service.application.identity import players, sessions
from service.application.privacy import erasure
from service.application.results import (
    Acted,
    Advanced,
    Created,
    Executed,
    Joined,
    LinkCodeCreated,
    Paired,
    PlayerCreated,
    PlayerErased,
    PlayerRenamed,
    PlayerSuspended,
    Rematched,
    Result,
    SeekCancelled,
    SeekCreated,
    SignedIn,
    TokenRevoked,
    WebhookCreated,
    WebhookDeleted,
)
from service.application.seeks import handlers as seeks
from service.application.webhooks import endpoints
from service.application.write import idempotency

HANDLERS: dict[type[Command], idempotency.Registered] = {
    CreateGame: idempotency.Registered(create.authorize_create, create.create_game),
    JoinSeat: idempotency.Registered(create.authorize_join, create.join_seat),
    PassCards: idempotency.Registered(play.authorize_move, play.pass_cards),
    PlayCard: idempotency.Registered(play.authorize_move, play.play_card),
    CreatePlayer: idempotency.Registered(players.authorize_create_player, players.create_player),
    SeatBot: idempotency.Registered(seats.authorize_seat_bot, seats.seat_bot),
    Leave: idempotency.Registered(seats.authorize_seat_command, seats.leave),
    Resign: idempotency.Registered(seats.authorize_seat_command, seats.resign),
    Advance: idempotency.Registered(advance.authorize_advance, advance.advance),
    ImportRecord: idempotency.Registered(importing.authorize_import, importing.import_record),
    ExpireGame: idempotency.Registered(advance.authorize_expire, advance.expire),
    CreateWebhook: idempotency.Registered(endpoints.authorize, endpoints.create),
    DeleteWebhook: idempotency.Registered(endpoints.authorize, endpoints.delete),
    RenamePlayer: idempotency.Registered(players.authorize_own, players.rename),
    RevokeToken: idempotency.Registered(players.authorize_own, players.revoke_token),
    SignIn: idempotency.Registered(sessions.authorize_sign_in, sessions.sign_in),
    SignInWithCode: idempotency.Registered(sessions.authorize_sign_in, sessions.sign_in_with_code),
    CreateLinkCode: idempotency.Registered(sessions.authorize_link_code, sessions.create_link_code),
    SuspendPlayer: idempotency.Registered(players.authorize_suspension, players.suspend),
    DeclineSeat: idempotency.Registered(invitations.authorize_decline, invitations.decline),
    Rematch: idempotency.Registered(rematching.authorize_rematch, rematching.rematch),
    CreateSeek: idempotency.Registered(seeks.authorize_player, seeks.create),
    CancelSeek: idempotency.Registered(seeks.authorize_player, seeks.cancel),
    PairSeeks: idempotency.Registered(seeks.authorize_pair, seeks.pair),
    ErasePlayer: erasure.HANDLER,
}


@overload
def execute(deps: Deps, command: CreateGame | ImportRecord, ctx: Context) -> Executed[Created]: ...
@overload
def execute(deps: Deps, command: JoinSeat, ctx: Context) -> Executed[Joined]: ...
@overload
def execute(
    deps: Deps, command: PassCards | PlayCard | SeatBot | Leave | Resign | DeclineSeat, ctx: Context
) -> Executed[Acted]: ...
@overload
def execute(deps: Deps, command: Rematch, ctx: Context) -> Executed[Rematched]: ...
@overload
def execute(deps: Deps, command: CreatePlayer, ctx: Context) -> Executed[PlayerCreated]: ...
@overload
def execute(deps: Deps, command: Advance | ExpireGame, ctx: Context) -> Executed[Advanced]: ...
@overload
def execute(deps: Deps, command: CreateWebhook, ctx: Context) -> Executed[WebhookCreated]: ...
@overload
def execute(deps: Deps, command: DeleteWebhook, ctx: Context) -> Executed[WebhookDeleted]: ...
@overload
def execute(deps: Deps, command: RenamePlayer, ctx: Context) -> Executed[PlayerRenamed]: ...
@overload
def execute(deps: Deps, command: RevokeToken, ctx: Context) -> Executed[TokenRevoked]: ...
@overload
def execute(deps: Deps, command: SignIn | SignInWithCode, ctx: Context) -> Executed[SignedIn]: ...
@overload
def execute(deps: Deps, command: CreateLinkCode, ctx: Context) -> Executed[LinkCodeCreated]: ...
@overload
def execute(deps: Deps, command: SuspendPlayer, ctx: Context) -> Executed[PlayerSuspended]: ...
@overload
def execute(deps: Deps, command: CreateSeek, ctx: Context) -> Executed[SeekCreated]: ...
@overload
def execute(deps: Deps, command: CancelSeek, ctx: Context) -> Executed[SeekCancelled]: ...
@overload
def execute(deps: Deps, command: PairSeeks, ctx: Context) -> Executed[Paired]: ...
@overload
def execute(deps: Deps, command: ErasePlayer, ctx: Context) -> Executed[PlayerErased]: ...
def execute(deps: Deps, command: Command, ctx: Context) -> Executed[Result]:
    """Do ``command`` for ``ctx.principal``: its events and projections in one
    transaction, once per idempotency key. Raises the refusal (an ApplicationError or
    a rule violation) when the command is not done."""
    return idempotency.run(deps, HANDLERS[type(command)], command, ctx)
