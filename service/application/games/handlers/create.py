"""Creating games and joining seats."""

from __future__ import annotations

from uuid import UUID, uuid4

from service import rules
from service.application.commands import CreateGame, DealInput, JoinSeat
from service.application.errors import (
    AlreadySeatedError,
    ForbiddenError,
    InvalidInputError,
    SeatNotFoundError,
)
from service.application.games import inbox, invitations
from service.application.games.cache import Loaded
from service.application.games.handlers.seats import bot_name
from service.application.identity.bearer import new_token, token_digest
from service.application.identity.principals import (
    Operator,
    PlayerHolder,
    Principal,
    SeatHolder,
    actor_of,
    require_player,
)
from service.application.ports import Actor, ActorKind
from service.application.reputation import bans
from service.application.results import Created, Joined
from service.application.write.transaction import Transaction


def authorize_create(cmd: CreateGame, principal: Principal) -> Actor:
    """Anyone may create a game; only operators may fix its shuffles or deals. The
    creation's actor is who sent it (anonymous without a token). Invitations need a
    player (or operator) token: an invitation lands in another player's inbox, so it
    must say who sent it."""
    if not isinstance(principal, Operator) and (cmd.seed is not None or cmd.deals is not None):
        raise ForbiddenError("only operators may give seed or deals")
    if cmd.invite and not isinstance(principal, Operator):
        require_player(principal)
    return actor_of(principal)


def create_game(cmd: CreateGame, actor: Actor, tx: Transaction) -> Created:
    """A new game; the seats given to bots are taken in the same command (the game
    starts at once if bots fill every seat)."""
    game_id = uuid4()
    after = new_game(cmd, actor, tx, game_id)
    tx.flush()
    return Created(game_id, after.version)


def new_game(
    cmd: CreateGame, actor: Actor, tx: Transaction, game_id: UUID, rematch_of: UUID | None = None
) -> Loaded:
    """Decide the creation of the game ``game_id`` as ``cmd`` says (and its bots' joins):
    the caller applies a last command of the game, or flushes, so that the game's events
    and rows are written once (writes of one commit do not see each other's rows).
    ``rematch_of``: the finished game it plays again (its invitations say so)."""
    deals = None if cmd.deals is None else tuple(_preset(d) for d in cmd.deals)
    # Provably fair unless an operator fixes the shuffles (docs/fairness.md).
    fair = None if cmd.seed is not None or deals is not None else tx.dealer.commit(game_id)
    seats = [b.seat for b in cmd.bots]
    if len(set(seats)) != len(seats):
        raise InvalidInputError("bots: a seat is named twice", code="seat_taken")
    if any(not 0 <= s < cmd.players for s in seats):
        raise InvalidInputError(f"bots: this game has seats 0 to {cmd.players - 1}", "unknown_seat")
    reserved = invitations.reserved_seats(tx, cmd.players, cmd.invite, seats)
    created = rules.CreateGame(
        cmd.players,
        cmd.scoring,
        cmd.variant,
        cmd.seed,
        deals,
        cmd.clock,
        fair,
        cmd.visibility,
        reserved,
        cmd.rated,
    )
    after = tx.decide(game_id, tx.new_game(), created, actor)
    if reserved is not None:
        invitations.invited(tx, game_id, after, rematch_of)
    for bot in cmd.bots:
        joined = rules.JoinSeat(
            bot.seat, bot_name(bot.level, bot.seat), bot.level, client_seed(tx, after.state)
        )
        after = tx.decide(game_id, after, joined, actor)
    return after


def authorize_join(cmd: JoinSeat, principal: Principal) -> Actor:
    """Anyone may take a free seat; a player, one seat per game. The join's actor is
    who sent it: the player, an operator, or anonymous (with the seat it takes)."""
    if isinstance(principal, SeatHolder) and principal.player_id is not None:
        if principal.game_id == cmd.game_id:
            raise AlreadySeatedError("this player holds a seat of this game already")
    elif not isinstance(principal, PlayerHolder) and cmd.name is None:
        raise InvalidInputError("a name is needed to join without a player token", "name_required")
    return actor_of(principal, cmd.seat, cmd.game_id)


def join_seat(
    cmd: JoinSeat, actor: Actor, tx: Transaction, *, for_player: UUID | None = None
) -> Joined:
    """Take a free seat; its secret token is made here and only its digest is stored. A
    player who joins holds the seat (their token acts for it) and has the game in their
    inbox from now on. ``for_player``: the player a seat token takes it for (a rematch
    asked by the seat token of that player's seat)."""
    game = tx.load(cmd.game_id)
    cfg = game.state.config
    assert cfg is not None
    if not 0 <= cmd.seat < cfg.players:
        raise SeatNotFoundError(f"this game has seats 0 to {cfg.players - 1}")
    player = (
        require_player(tx.principal).player_id if actor.kind is ActorKind.PLAYER else for_player
    )
    name = cmd.name
    if player is not None:
        record = tx.uow.players.get(player)
        if record is None:  # pragma: no cover - identified by it a moment ago
            raise InvalidInputError("this player is gone", "player_gone")
        name = name or record.name
    assert name is not None
    if player is not None and cfg.rated:
        bans.refuse_if_banned(tx.uow, player, tx.now)
    if player is not None:  # the webhooks of this commit hear of the seat's player too
        tx.bound.setdefault(cmd.game_id, []).append((cmd.seat, player))
    seed = cmd.client_seed or client_seed(tx, game.state)
    joiner = str(player) if player is not None else None
    invited = bool(game.state.reserved) and game.state.reserved[cmd.seat] == joiner
    joined = rules.JoinSeat(cmd.seat, name, None, seed, joiner)
    after = tx.apply(cmd.game_id, game, joined, actor)
    token = new_token()
    # A racing join of the same seat fails here or on the events' key: decided again.
    tx.uow.credentials.add(cmd.game_id, cmd.seat, token_digest(token), tx.now)
    if player is not None:
        tx.uow.players.bind(cmd.game_id, cmd.seat, player)
        if not invited:  # an invited player's entry is there since the invitation
            tx.uow.inbox.add(inbox.entry(player, cmd.game_id, cmd.seat, after, tx.now))
    return Joined(cmd.game_id, after.version, cmd.seat, token)


def client_seed(tx: Transaction, state: rules.GameState) -> str | None:
    """A drawn client seed for a seat of a fair game (None for other games)."""
    return tx.dealer.client_seed() if state.fairness is not None else None


def _preset(deal: DealInput) -> rules.PresetDeal:
    try:
        hands = tuple(tuple(rules.card(i) for i in h) for h in deal.hands)
        trump = rules.card(deal.trump) if deal.trump is not None else None
    except rules.UnknownCardError as exc:
        raise InvalidInputError(f"deals: {exc}", code="unknown_card") from None
    return rules.PresetDeal(hands, trump)
