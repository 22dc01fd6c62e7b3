"""Rematch: a finished game played again (docs/api.md "Rematch"). One new game per
finished game, whoever asks and however many ask at once: the finished game's own
stream records it (``Rematched``), so two askers race on that game's next event and
the loser, deciding again, finds the rematch there and answers it.

The new game has the finished one's players, scoring, variant, clock and visibility;
each seat moves one to the left (seat + 1): its player invited there, its bot (a seat
a bot took, nobody's) seated there again, a seat nobody held free. The asker's seat is
taken at once, for its player when it was a player's (their player token acts for it),
else under its name; an asker by a seat token gets the new seat's token in the answer
(``Rematched.token``: its only way into the new game)."""

from __future__ import annotations

from uuid import UUID, uuid4

from service import rules
from service.application.commands import BotSeat, CreateGame, Invitation, JoinSeat, Rematch
from service.application.games.handlers import create
from service.application.games.seating import held_seat
from service.application.identity.principals import Principal, SeatHolder, actor_of, seat_of
from service.application.ports import Actor
from service.application.results import Rematched
from service.application.write.transaction import Transaction


def authorize_rematch(cmd: Rematch, principal: Principal) -> Actor:
    """Anyone may ask for a game's rematch once it exists; a seat of the finished game
    (or its player) makes it (decided in :func:`rematch`, which knows whether it does)."""
    return actor_of(principal, None, cmd.game_id)


def rematch(cmd: Rematch, actor: Actor, tx: Transaction) -> Rematched:
    finished = tx.load(cmd.game_id)
    if finished.state.rematch is not None:
        made = UUID(finished.state.rematch)  # events never change: a cached state will do
        return Rematched(made, tx.load(made, fresh=True).version, created=False)
    seat = seat_of(cmd.game_id, tx.principal)  # only a seat makes the rematch
    held_seat(finished.state, seat)
    asker = actor_of(tx.principal, seat, cmd.game_id)
    game_id = uuid4()
    # First the finished game's record of it: refused unless the game is finished.
    tx.apply(cmd.game_id, finished, rules.Rematch(str(game_id)), asker)
    cfg = finished.state.config
    assert cfg is not None
    n = cfg.players
    players = tx.uow.players.of_game(cmd.game_id)
    bots = finished.state.bots
    command = CreateGame(
        players=n,
        scoring=cfg.scoring,
        variant=cfg.variant,
        clock=cfg.clock,
        bots=tuple(
            BotSeat((s + 1) % n, level)
            for s, level in enumerate(bots)
            if level is not None and s not in players
        ),
        visibility=cfg.visibility,
        rated=cfg.rated,
        invite=tuple(
            Invitation(player, (s + 1) % n)
            for s, player in sorted(players.items())
            if s != seat  # the asker is seated, not invited
        ),
    )
    create.new_game(command, actor_of(tx.principal), tx, game_id, rematch_of=cmd.game_id)
    mine, player = (seat + 1) % n, players.get(seat)
    name = None if player is not None else finished.state.names[seat]
    joined = create.join_seat(
        JoinSeat(game_id, mine, name), actor_of(tx.principal, mine, game_id), tx, for_player=player
    )
    if isinstance(tx.principal, SeatHolder) and tx.principal.player_id is None:
        # A seat token: the new seat's is the asker's only way in. A player's token
        # acts for the new seat already.
        return Rematched(game_id, joined.version, created=True, seat=mine, token=joined.token)
    return Rematched(game_id, joined.version, created=True)
