"""The seats and the game around the rounds: creating a game (R-2), joining, declining
and leaving a seat, erasing a player's name, resigning, a turn clock running out, a game
expiring unplayed, played again, and its fair seed revealed. Each command's ``decide``
function sits beside the ``evolve`` functions of the events it causes."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import replace

from service.rules.commands import (
    CreateGame,
    DeclineSeat,
    EraseSeat,
    Expire,
    JoinSeat,
    Leave,
    Rematch,
    Resign,
    RevealSeed,
    TimeOut,
)
from service.rules.config import (
    MAX_TURN_SECONDS,
    PLAYER_COUNTS,
    GameConfig,
    OnTimeout,
    client_seed_problem,
)
from service.rules.errors import Violation
from service.rules.events import (
    Event,
    GameCreated,
    GameEnded,
    GameExpired,
    Rematched,
    RoundEnded,
    RoundEndReason,
    SeatDeclined,
    SeatErased,
    SeatJoined,
    SeatLeft,
    SeatResigned,
    SeedRevealed,
    TurnTimedOut,
)
from service.rules.guards import _check_seat, _config, _expect, _refuse
from service.rules.passing import deal_problem
from service.rules.state import GameState, Phase
from service.rules.turns import expected_action


def _create(state: GameState, cmd: CreateGame) -> tuple[Event, ...]:
    if state.phase is not Phase.NEW:
        raise _refuse(Violation.WRONG_PHASE, "the game already exists")
    if cmd.players not in PLAYER_COUNTS:
        raise _refuse(Violation.INVALID_OPTIONS, "a game has 3 or 4 players")
    cfg = GameConfig(cmd.players, cmd.scoring, cmd.variant)
    if cfg.seven_followers and cmd.players != 4:
        raise _refuse(Violation.INVALID_OPTIONS, f"{cmd.variant} is a four-player variant")
    if cmd.clock is not None and not 1 <= cmd.clock.turn_seconds <= MAX_TURN_SECONDS:
        raise _refuse(
            Violation.INVALID_OPTIONS, f"turn_seconds must be between 1 and {MAX_TURN_SECONDS}"
        )
    if cmd.reserved is not None:
        held = [p for p in cmd.reserved if p is not None]
        if len(cmd.reserved) != cmd.players or len(set(held)) != len(held):
            raise _refuse(
                Violation.INVALID_OPTIONS, "a seat is reserved for one player, a player gets one"
            )
    if cmd.rated and (cmd.seed is not None or cmd.deals is not None):
        raise _refuse(Violation.INVALID_OPTIONS, "a rated game takes no seed and no deals")
    for i, d in enumerate(cmd.deals or (), start=1):
        problem = deal_problem(cfg, d.hands, d.trump)
        if problem:
            raise _refuse(Violation.INVALID_DEAL, f"deal {i}: {problem}")
    if cmd.fairness is not None:
        # Dealt from its sealed seed; or, imported from a record (sealed None), from the
        # recorded deals, which the revealed seed must then give (rules/fairness.py).
        if cmd.seed is not None or (cmd.deals is None) != (cmd.fairness.sealed is not None):
            raise _refuse(
                Violation.INVALID_OPTIONS, "a game with a seed or preset deals is not dealt fairly"
            )
        if not _is_sha256(cmd.fairness.commitment):
            raise _refuse(Violation.INVALID_OPTIONS, "a commitment is a SHA-256 in hex")
    return (
        GameCreated(
            cmd.players,
            cmd.scoring,
            cmd.variant,
            cmd.seed,
            cmd.deals,
            cmd.clock,
            cmd.fairness,
            cmd.visibility,
            cmd.reserved,
            cmd.rated,
        ),
    )


def _is_sha256(text: str) -> bool:
    return len(text) == 64 and all(ch in "0123456789abcdef" for ch in text)


def _on_created(state: GameState, e: GameCreated) -> GameState:
    _expect(state.phase is Phase.NEW, "the game exists already")
    _expect(e.players in PLAYER_COUNTS, "a game has 3 or 4 players")
    cfg = GameConfig(e.players, e.scoring, e.variant, e.clock, e.visibility, e.rated)
    return replace(
        state,
        config=cfg,
        phase=Phase.WAITING,
        names=(None,) * cfg.players,
        bots=(None,) * cfg.players,
        scores=(0,) * cfg.sides,
        seals=((), ()) if cfg.seven_followers else (),
        seed=e.seed,
        deals=e.deals,
        fairness=e.fairness,
        client_seeds=(None,) * cfg.players,
        reserved=e.reserved if e.reserved is not None else (),
    )


def _join(state: GameState, cmd: JoinSeat) -> tuple[Event, ...]:
    cfg = _config(state)
    _check_seat(cfg, cmd.seat)
    if state.phase is Phase.EXPIRED:
        raise _refuse(Violation.GAME_OVER, "the game expired waiting for players")
    if state.names[cmd.seat] is not None:
        raise _refuse(Violation.SEAT_TAKEN, f"seat {cmd.seat} is taken")
    reserved = _reserved_for(state, cmd.seat)
    if reserved is not None and cmd.player != reserved:
        raise _refuse(Violation.SEAT_RESERVED, f"seat {cmd.seat} is reserved for another player")
    if state.phase is not Phase.WAITING:  # pragma: no cover - every seat is taken then
        raise _refuse(Violation.WRONG_PHASE, "the game has started")
    rated = _config(state).rated
    if rated and cmd.player is None and cmd.bot is None:
        raise _refuse(Violation.PLAYERS_ONLY, "a rated game's seats are for players")
    seed = cmd.client_seed
    if state.fairness is None:
        seed = None  # only a fair game's deals take client seeds
    elif seed is None:
        raise _refuse(Violation.INVALID_CLIENT_SEED, "a fair game's seat needs a client seed")
    elif (problem := client_seed_problem(seed)) is not None:
        raise _refuse(Violation.INVALID_CLIENT_SEED, problem)
    # The player is recorded only where it decides something (a seat reserved for them,
    # a rated game's seat), so other joins' data is as it always was.
    player = cmd.player if reserved is not None or rated else None
    return (SeatJoined(cmd.seat, cmd.name, cmd.bot, seed, player),)


def _reserved_for(state: GameState, seat: int) -> str | None:
    return state.reserved[seat] if state.reserved else None


def _on_joined(state: GameState, e: SeatJoined) -> GameState:
    _expect(state.phase is Phase.WAITING, "seats are joined only while waiting")
    _expect(0 <= e.seat < len(state.names) and state.names[e.seat] is None, "seat not free")
    names = (*state.names[: e.seat], e.name, *state.names[e.seat + 1 :])
    bots = (*state.bots[: e.seat], e.bot, *state.bots[e.seat + 1 :])
    seeds = state.client_seeds
    if e.client_seed is not None:
        _expect(state.fairness is not None, "client seeds belong to fair games")
        seeds = (*seeds[: e.seat], e.client_seed, *seeds[e.seat + 1 :])
    phase = Phase.DEALING if all(n is not None for n in names) else Phase.WAITING
    reserved = _unreserved(state.reserved, e.seat)
    players = state.players
    if e.player is not None:
        players = players or (None,) * len(names)
        players = (*players[: e.seat], e.player, *players[e.seat + 1 :])
    return replace(
        state,
        names=names,
        bots=bots,
        phase=phase,
        client_seeds=seeds,
        reserved=reserved,
        players=players,
    )


def _unreserved(reserved: tuple[str | None, ...], seat: int) -> tuple[str | None, ...]:
    if not reserved:
        return reserved
    return (*reserved[:seat], None, *reserved[seat + 1 :])


def _decline(state: GameState, cmd: DeclineSeat) -> tuple[Event, ...]:
    cfg = _config(state)
    _check_seat(cfg, cmd.seat)
    if state.phase is not Phase.WAITING:
        raise _refuse(Violation.WRONG_PHASE, "only a game waiting for players has seats to decline")
    reserved = _reserved_for(state, cmd.seat)
    if reserved is None:
        raise _refuse(Violation.NOT_RESERVED, f"seat {cmd.seat} is reserved for nobody")
    if reserved != cmd.player:
        raise _refuse(Violation.SEAT_RESERVED, f"seat {cmd.seat} is reserved for another player")
    return (SeatDeclined(cmd.seat, cmd.player),)


def _on_declined(state: GameState, e: SeatDeclined) -> GameState:
    _expect(
        state.phase is Phase.WAITING and _reserved_for(state, e.seat) is not None,
        "a seat reserved in a waiting game is declined",
    )
    return replace(state, reserved=_unreserved(state.reserved, e.seat))


def _expire(state: GameState, cmd: Expire) -> tuple[Event, ...]:
    if state.phase is not Phase.WAITING:
        raise _refuse(Violation.WRONG_PHASE, "only a game waiting for players expires")
    return (GameExpired(),)


def _on_expired(state: GameState, e: GameExpired) -> GameState:
    _expect(state.phase is Phase.WAITING, "only a waiting game expires")
    return replace(state, phase=Phase.EXPIRED)


def _rematch(state: GameState, cmd: Rematch) -> tuple[Event, ...]:
    if state.phase is not Phase.FINISHED:
        detail = (
            "the game expired before it was played"
            if state.phase is Phase.EXPIRED
            else "a game is played again once it is finished"
        )
        raise _refuse(Violation.NOT_FINISHED, detail)
    if state.rematch is not None:
        raise _refuse(Violation.REMATCHED, f"the game is played again as {state.rematch}")
    return (Rematched(cmd.game_id),)


def _on_rematched(state: GameState, e: Rematched) -> GameState:
    _expect(
        state.phase is Phase.FINISHED and state.rematch is None,
        "a finished game is played again once",
    )
    return replace(state, rematch=e.game_id)


def _reveal(state: GameState, cmd: RevealSeed) -> tuple[Event, ...]:
    """docs/fairness.md: a fair game's server seed is revealed once it is finished."""
    fairness = state.fairness
    if fairness is None:
        raise _refuse(Violation.WRONG_PHASE, "the game was not dealt fairly: no seed to reveal")
    if state.phase is not Phase.FINISHED:
        raise _refuse(Violation.WRONG_PHASE, "the seed is revealed when the game is over")
    if state.server_seed is not None:
        raise _refuse(Violation.WRONG_PHASE, "the seed is revealed already")
    if not _reveals(cmd.server_seed, fairness.commitment):
        raise _refuse(Violation.INVALID_OPTIONS, "the seed does not match the commitment")
    return (SeedRevealed(cmd.server_seed),)


def _reveals(seed_hex: str, commitment: str) -> bool:
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        return False
    return seed.hex() == seed_hex and hashlib.sha256(seed).hexdigest() == commitment


def _on_revealed(state: GameState, e: SeedRevealed) -> GameState:
    _expect(
        state.phase is Phase.FINISHED
        and state.fairness is not None
        and state.server_seed is None
        and _reveals(e.server_seed, state.fairness.commitment),
        "a finished fair game's seed, revealed once, matching its commitment",
    )
    return replace(state, server_seed=e.server_seed)


def _playing_seat(state: GameState, seat: int, doing: str) -> GameConfig:
    """The config of a game in progress whose ``seat`` a person holds (not a bot)."""
    cfg = _config(state)
    _check_seat(cfg, seat)
    if state.phase in (Phase.FINISHED, Phase.EXPIRED):
        raise _refuse(Violation.GAME_OVER, f"the game is over: nobody may {doing}")
    if state.names[seat] is None:
        raise _refuse(Violation.SEAT_EMPTY, f"nobody holds seat {seat}")
    if state.bots[seat] is not None:
        raise _refuse(Violation.BOT_SEAT, f"a bot plays seat {seat}")
    return cfg


def _leave(state: GameState, cmd: Leave) -> tuple[Event, ...]:
    """A seat's player leaves: a bot plays the seat from now on, and the game goes on."""
    _playing_seat(state, cmd.seat, "leave")
    return (SeatLeft(cmd.seat, cmd.bot),)


def _on_left(state: GameState, e: SeatLeft) -> GameState:
    _expect(state.phase is not Phase.FINISHED, "nobody leaves a finished game")
    _expect(0 <= e.seat < len(state.names) and state.names[e.seat] is not None, "seat held")
    _expect(state.bots[e.seat] is None, "a person held the seat")
    bots = (*state.bots[: e.seat], e.bot, *state.bots[e.seat + 1 :])
    return replace(state, bots=bots)


ERASED_NAME = "erased player"
"""What an erased player's seats are called (docs/privacy.md)."""


def _erase(state: GameState, cmd: EraseSeat) -> tuple[Event, ...]:
    """Record that the seat's player was erased. A person still playing the seat leaves
    first (the caller makes the seat a bot's): the record changes no play."""
    cfg = _config(state)
    _check_seat(cfg, cmd.seat)
    name = state.names[cmd.seat]
    if name is None or name == ERASED_NAME:
        raise _refuse(Violation.SEAT_EMPTY, f"no player's name to erase on seat {cmd.seat}")
    under_way = state.phase not in (Phase.WAITING, Phase.FINISHED, Phase.EXPIRED)
    if under_way and state.bots[cmd.seat] is None:
        raise _refuse(Violation.WRONG_PHASE, f"a person plays seat {cmd.seat}: it leaves first")
    return (SeatErased(cmd.seat),)


def _on_erased(state: GameState, e: SeatErased) -> GameState:
    seat = e.seat
    _expect(0 <= seat < len(state.names) and state.names[seat] is not None, "seat held")
    if state.phase is Phase.WAITING:  # the seat is free again
        players = state.players
        if players:
            players = (*players[:seat], None, *players[seat + 1 :])
        return replace(
            state,
            names=(*state.names[:seat], None, *state.names[seat + 1 :]),
            bots=(*state.bots[:seat], None, *state.bots[seat + 1 :]),
            client_seeds=(*state.client_seeds[:seat], None, *state.client_seeds[seat + 1 :]),
            players=players,
        )
    return replace(state, names=(*state.names[:seat], ERASED_NAME, *state.names[seat + 1 :]))


_UNDER_WAY = (Phase.PASSING, Phase.PLAYING)


def _resign(state: GameState, cmd: Resign) -> tuple[Event, ...]:
    """A seat gives up: the round and the game end, the seat's side losing."""
    _playing_seat(state, cmd.seat, "resign")
    if state.phase is Phase.WAITING:
        raise _refuse(Violation.NOT_STARTED, "the game has not started: there is nothing to resign")
    resigned = SeatResigned(cmd.seat)
    return (resigned, *_forfeit_end(state, (cmd.seat,), RoundEndReason.RESIGN))


def _on_resigned(state: GameState, e: SeatResigned) -> GameState:
    _expect(state.phase in _UNDER_WAY, "a seat resigns from a game under way")
    return state


def _timeout(state: GameState, cmd: TimeOut) -> tuple[Event, ...]:
    """Seats whose turn clock ran out: each must still be due to act. With ``autoplay``
    the caller then makes their moves; with ``forfeit`` the round and game end, every
    side with a late seat losing (should every side have one, nobody wins)."""
    cfg = _config(state)
    if not cmd.seats or len(set(cmd.seats)) != len(cmd.seats):
        raise _refuse(Violation.INVALID_OPTIONS, "name each late seat once")
    for seat in cmd.seats:
        _check_seat(cfg, seat)
        if expected_action(state, seat) is None:
            raise _refuse(Violation.NOT_YOUR_TURN, f"seat {seat} has nothing to do now")
    late = tuple(TurnTimedOut(seat, cmd.outcome) for seat in sorted(cmd.seats))
    if cmd.outcome is OnTimeout.AUTOPLAY:
        return late
    return (*late, *_forfeit_end(state, cmd.seats, RoundEndReason.FORFEIT))


def _on_timed_out(state: GameState, e: TurnTimedOut) -> GameState:
    _expect(expected_action(state, e.seat) is not None, "a timed-out seat was due")
    return state


def _forfeit_end(
    state: GameState, losing: Iterable[int], reason: RoundEndReason
) -> tuple[RoundEnded, GameEnded]:
    """The round in progress ends unscored and the game with it; the sides of the
    ``losing`` seats lose, the others win."""
    cfg = state.config
    r = state.round
    assert cfg is not None and r is not None
    losers = {cfg.side_of(seat) for seat in losing}
    winners = tuple(side for side in range(cfg.sides) if side not in losers)
    ended = RoundEnded(r.number, reason, winners, (0,) * cfg.sides, ())
    return ended, GameEnded(winners)
