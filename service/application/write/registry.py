"""Command handlers, one module per family of commands, registered in one table by the
command's type, and :func:`execute`, which checks who may send a command, then runs its
handler through the one idempotency and retry wrapper."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.application.chat import posting as chat
from service.application.commands import (
    Advance,
    CancelSeek,
    ChooseNotifications,
    Context,
    CreateGame,
    CreateLinkCode,
    CreatePlayer,
    CreateSeek,
    CreateWebhook,
    DeclineSeat,
    DeletePushSubscription,
    DeleteWebhook,
    ErasePlayer,
    ExpireGame,
    FileReport,
    ImportRecord,
    JoinSeat,
    Leave,
    LiftBan,
    PairSeeks,
    PassCards,
    PlayCard,
    PostChat,
    Rematch,
    RenamePlayer,
    RequestReview,
    Resign,
    ResolveReport,
    Returns,
    RevokeToken,
    SeatBot,
    SetBlock,
    SetEmail,
    SetFollow,
    SignIn,
    SignInWithCode,
    SubscribePush,
    SuspendPlayer,
    UnsubscribeMail,
    VerifyEmail,
)
from service.application.deps import Deps
from service.application.games import invitations
from service.application.games import rematch as rematching
from service.application.games.handlers import advance, create, play, seats
from service.application.handrecords import importing
from service.application.identity import players, sessions
from service.application.identity.principals import Principal
from service.application.moderation import reports
from service.application.notify import choices as notify
from service.application.notify import email
from service.application.ports import Actor
from service.application.privacy import erasure
from service.application.reputation import bans
from service.application.results import Executed
from service.application.review import handlers as reviews
from service.application.seeks import handlers as seeks
from service.application.social import handlers as social
from service.application.webhooks import endpoints
from service.application.write import idempotency
from service.application.write.idempotency import C, R, Registered
from service.application.write.transaction import Transaction

Entry = tuple[type[Returns[Any]], Registered[Any, Any]]


def _handles(command: type[Returns[R]], registered: Registered[C, R]) -> Entry:
    """One entry of :data:`HANDLERS`. mypy checks that the handler gives the result the
    command declares (so :func:`execute` returns it); tests/application/write/
    test_registry.py, that it takes that command."""
    return command, registered


def _entry(
    command: type[Returns[R]],
    authorize: Callable[[C, Principal], Actor],
    handle: Callable[[C, Actor, Transaction], R],
) -> Entry:
    return _handles(command, Registered(authorize, handle))


HANDLERS: dict[type[Returns[Any]], Registered[Any, Any]] = dict(
    [
        _entry(CreateGame, create.authorize_create, create.create_game),
        _entry(JoinSeat, create.authorize_join, create.join_seat),
        _entry(PassCards, play.authorize_move, play.pass_cards),
        _entry(PlayCard, play.authorize_move, play.play_card),
        _entry(CreatePlayer, players.authorize_create_player, players.create_player),
        _entry(SeatBot, seats.authorize_seat_bot, seats.seat_bot),
        _entry(Leave, seats.authorize_seat_command, seats.leave),
        _entry(Resign, seats.authorize_seat_command, seats.resign),
        _entry(Advance, advance.authorize_advance, advance.advance),
        _entry(ImportRecord, importing.authorize_import, importing.import_record),
        _entry(ExpireGame, advance.authorize_expire, advance.expire),
        _entry(CreateWebhook, endpoints.authorize, endpoints.create),
        _entry(DeleteWebhook, endpoints.authorize, endpoints.delete),
        _entry(SubscribePush, notify.authorize, notify.subscribe),
        _entry(DeletePushSubscription, notify.authorize, notify.unsubscribe),
        _entry(ChooseNotifications, notify.authorize, notify.choose),
        _entry(SetEmail, email.authorize_player, email.set_email),
        _entry(VerifyEmail, email.authorize_player, email.verify),
        _entry(UnsubscribeMail, email.authorize_anyone, email.unsubscribe),
        _entry(RenamePlayer, players.authorize_own, players.rename),
        _entry(RevokeToken, players.authorize_own, players.revoke_token),
        _entry(SignIn, sessions.authorize_sign_in, sessions.sign_in),
        _entry(SignInWithCode, sessions.authorize_sign_in, sessions.sign_in_with_code),
        _entry(CreateLinkCode, sessions.authorize_link_code, sessions.create_link_code),
        _entry(SuspendPlayer, players.authorize_suspension, players.suspend),
        _entry(LiftBan, bans.authorize_lift, bans.lift),
        _entry(DeclineSeat, invitations.authorize_decline, invitations.decline),
        _entry(Rematch, rematching.authorize_rematch, rematching.rematch),
        _entry(RequestReview, reviews.authorize, reviews.request),
        _entry(PostChat, chat.authorize, chat.post),
        _entry(CreateSeek, seeks.authorize_player, seeks.create),
        _entry(CancelSeek, seeks.authorize_player, seeks.cancel),
        _entry(PairSeeks, seeks.authorize_pair, seeks.pair),
        _entry(FileReport, reports.authorize_file, reports.file),
        _entry(ResolveReport, reports.authorize_resolve, reports.resolve),
        _entry(SetBlock, social.authorize, social.block),
        _entry(SetFollow, social.authorize, social.follow),
        _handles(ErasePlayer, erasure.HANDLER),
    ]
)
"""Each command's handler, by the command's type: the one declaration dispatch follows."""


def execute(deps: Deps, command: Returns[R], ctx: Context) -> Executed[R]:
    """Do ``command`` for ``ctx.principal``: its events and projections in one
    transaction, once per idempotency key. Raises the refusal (an ApplicationError or
    a rule violation) when the command is not done. Its result is of the type the
    command declares (:class:`~service.application.commands.Returns`)."""
    return idempotency.run(deps, HANDLERS[type(command)], command, ctx)
