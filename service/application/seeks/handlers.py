"""Quick play's commands: a player makes or cancels a seek; the worker pairs seeks.

Correctness under concurrency rests on the store's locks, taken in each command's own
transaction (service/adapters/postgres/seeks.py says which and why): a pairing holds its
pool (one pairing of a pool at a time, whatever the number of workers) and every open
seek of it that it reads; a cancel holds its seek. So no seek is matched twice (the
second pairing of a pool reads what the first committed), a cancelled seek is never
matched and a matched one never cancelled (the later of the two finds the seek no longer
open), and no player is seated twice by the pool (a player has one open seek at most,
and a seek is matched once).

How seats are drawn, and where the draw is recorded: the worker draws a random order of
the game's seats before it sends :class:`PairSeeks` (the command holds it, so the draw
is part of what the command's Idempotency-Key is bound to). The seeks seated take the
order's seats oldest seek first, then bots the rest; the game's events record the draw:
each ``SeatJoined`` names its seat, and its actor is the player who took it (a bot's is
the system), appended in the draw's order.
"""

from __future__ import annotations

from uuid import uuid4

from service import rules
from service.application.commands import CancelSeek, CreateSeek, PairSeeks
from service.application.errors import ConflictError, InvalidInputError, NotFoundError
from service.application.games import inbox
from service.application.games.handlers.create import client_seed
from service.application.games.handlers.seats import bot_name
from service.application.identity.principals import (
    Principal,
    actor_of,
    require_operator,
    require_player,
)
from service.application.ports import SYSTEM, Actor, ActorKind
from service.application.ratings import model
from service.application.reputation import bans
from service.application.results import Paired, SeekCancelled, SeekCreated
from service.application.seeks import policy
from service.application.seeks.ports import AlreadySeekingError, Seek, SeekStatus
from service.application.write.transaction import Transaction

LOOK = 200
"""The most open seeks of a pool one pairing reads (oldest first)."""


class SeekNotFoundError(NotFoundError):
    code = "seek_not_found"


class SeekMatchedError(ConflictError):
    code = "seek_matched"


def authorize_player(cmd: CreateSeek | CancelSeek, principal: Principal) -> Actor:
    """Only a player seeks (an anonymous player too: any player's token)."""
    player = require_player(principal)
    return actor_of(player)


def create(cmd: CreateSeek, actor: Actor, tx: Transaction) -> SeekCreated:
    """A new open seek of the player (409 ``already_seeking`` while another is open; one
    past its time is expired first; 403 ``player_banned`` while the player is banned)."""
    player_id = require_player(tx.principal).player_id
    pool = cmd.pool
    if pool.variant is not rules.Variant.STANDARD and pool.players != 4:
        raise InvalidInputError(
            "the Seven Followers variants are for four players", "invalid_options"
        )
    if cmd.rating_range is not None and cmd.rating_range[0] > cmd.rating_range[1]:
        raise InvalidInputError(
            "rating_range: the low bound is above the high one", "invalid_rating_range"
        )
    bans.refuse_if_banned(tx.uow, player_id, tx.now)
    current = tx.uow.seeks.open_of(player_id)
    if current is not None:
        if current.status_at(tx.now) is SeekStatus.OPEN:
            raise AlreadySeekingError(f"this player's seek {current.id} is open")
        tx.uow.seeks.expire(tx.now, 1, player_id)
    seek = Seek(
        uuid4(),
        player_id,
        pool,
        cmd.rating_range,
        cmd.bots_after,
        SeekStatus.OPEN,
        tx.now,
        tx.now + tx.seek_ttl,
        min_reputation=cmd.min_reputation,
    )
    tx.uow.seeks.add(seek)
    return SeekCreated(seek.id, seek.created_at, seek.expires_at)


def cancel(cmd: CancelSeek, actor: Actor, tx: Transaction) -> SeekCancelled:
    """Cancel the player's seek if it is open (a seek cancelled or expired already is
    left as it is); 409 ``seek_matched`` once it is matched."""
    player_id = require_player(tx.principal).player_id
    seek = tx.uow.seeks.hold(cmd.seek_id)  # a pairing that holds it is waited for
    if seek is None or seek.player_id != player_id:
        raise SeekNotFoundError("no such seek of this player")
    status = seek.status_at(tx.now)
    if status is SeekStatus.MATCHED:
        raise SeekMatchedError(f"the seek is matched already: game {seek.game_id}")
    if status is SeekStatus.OPEN:
        tx.uow.seeks.cancel(seek.id, tx.now)
    return SeekCancelled(seek.id)


def authorize_pair(cmd: PairSeeks, principal: Principal) -> Actor:
    """Only the service itself (the worker acts as an operator) pairs seeks."""
    require_operator(principal)
    return SYSTEM


def pair(cmd: PairSeeks, actor: Actor, tx: Transaction) -> Paired:
    """The next game of the pool's open seeks (see the module's docstring), every seat
    joined as its player, bots in the others, dealt, and the seeks matched: one commit.
    Nothing when the seeks make no game now. A game of rated seeks is rated, unless bots
    fill it (then it is not, as the contract says)."""
    pool, seeks = cmd.pool, tx.uow.seeks
    if sorted(cmd.order) != list(range(pool.players)):
        raise ValueError(f"not an order of the seats: {cmd.order}")  # the worker's fault
    seeks.lock_pool(pool)
    # Up to LOOK of them, unrated pools too: the table a seek makes depends on seeks past
    # the first few (one without bots is skipped by a table with bots; a minimum
    # reputation can leave the oldest out), and one read of an index costs little more.
    waiting = seeks.waiting(pool, tx.now, LOOK)
    ladder = model.ladder(pool.players, pool.variant)
    ordinals = (
        tx.uow.ratings.ordinals(ladder, [w.seek.player_id for w in waiting]) if pool.rated else {}
    )
    found = [w.seek for w in waiting]
    picky = any(s.min_reputation is not None for s in found)
    scores = tx.uow.reputations.scores([s.player_id for s in found]) if picky else None
    apart = tx.uow.blocks.apart({s.player_id for s in found})
    plan = policy.plan(found, ordinals, tx.now, scores, apart)
    if plan is None:
        return Paired(None, retry_at=policy.next_chance(found, tx.now))
    names = {w.seek.id: w.name for w in waiting}
    game_id = uuid4()
    created = rules.CreateGame(
        pool.players,
        pool.scoring,
        pool.variant,
        clock=pool.clock,
        fairness=tx.dealer.commit(game_id),
        rated=pool.rated and not plan.bots,
    )
    after = tx.decide(game_id, tx.new_game(), created, actor)
    seated = list(zip(plan.seeks, cmd.order, strict=False))
    for seek, seat in seated:
        joined = rules.JoinSeat(
            seat, names[seek.id], None, client_seed(tx, after.state), str(seek.player_id)
        )
        player = Actor(ActorKind.PLAYER, seat, str(seek.player_id))
        tx.bound.setdefault(game_id, []).append((seat, seek.player_id))
        after = tx.decide(game_id, after, joined, player)
    for seat in cmd.order[len(seated) :]:
        level = rules.BotLevel.BASIC
        joined = rules.JoinSeat(seat, bot_name(level, seat), level, client_seed(tx, after.state))
        after = tx.decide(game_id, after, joined, actor)
    for seek, seat in seated:  # told with the game's first events, to the seat's player
        data = {"game_id": str(game_id), "version": after.version, "seek_id": str(seek.id)}
        tx.tell(game_id, "matched", {**data, "seat": seat}, seat)
    tx.flush()  # the game's row first: what follows refers to it
    for seek, seat in seated:
        tx.uow.players.bind(game_id, seat, seek.player_id)
        tx.uow.inbox.add(inbox.entry(seek.player_id, game_id, seat, after, tx.now))
        seeks.match(seek.id, game_id, seat, tx.now)
    return Paired(game_id, after.version, len(seated))
