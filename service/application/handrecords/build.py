"""A game's record for one viewer, built from its events: only what that viewer may see
(before the end a seat sees its own hands and passes, the public none; after it, and for
operators, everything)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from service import rules
from service.application.handrecords.model import HandRecord, Move, Result, RoundRecord, Seat
from service.rules.events import (
    CardPlayed,
    CardsPassed,
    Event,
    GameCreated,
    PassesExchanged,
    RoundDealt,
    RoundEnded,
    SeatJoined,
    SeatLeft,
    SeatResigned,
    SeedRevealed,
    TrickTaken,
    TurnTimedOut,
)


def build(events: Sequence[Event], state: rules.GameState, viewer: rules.Viewer) -> HandRecord:
    """The record of the game these events make (``state`` is their fold) as ``viewer``
    may see it."""
    cfg = state.config
    assert cfg is not None
    finished = state.phase is rules.Phase.FINISHED
    everything = finished or isinstance(viewer, rules.OperatorViewer)
    me = viewer.seat if isinstance(viewer, rules.SeatViewer) else None
    created = events[0]
    assert isinstance(created, GameCreated)
    seats: list[Seat] = [Seat(None)] * cfg.players
    rounds: list[RoundRecord] = []
    server_seed = None

    def visible(seat: int) -> bool:
        return everything or seat == me

    exchanged = _exchanged_passes(events)
    for i, e in enumerate(events):
        match e:
            case SeatJoined(seat, name, bot, client_seed):
                seats[seat] = Seat(name, bot.value if bot else None, client_seed)
            case RoundDealt(number, hands, trump):
                shown = tuple(
                    tuple(c.id for c in h) if h is not None and visible(s) else None
                    for s, h in enumerate(hands)
                )
                rounds.append(RoundRecord(number, shown, trump.id if trump else None))
            case CardsPassed(seat, cards):
                assert cards is not None
                targets = cfg.pass_targets(seat)
                shown_cards = tuple(
                    c.id if visible(seat) or (i in exchanged and targets[k] == me) else None
                    for k, c in enumerate(cards)
                )
                _add(rounds, Move("pass", (seat,), shown_cards))
            case CardPlayed(seat, c):
                _add(rounds, Move("play", (seat,), (c.id,)))
            case SeatLeft(seat, bot) if not rounds:
                # Left before the first deal: the bot plays the seat from the start, as
                # if it had taken the seat when it was joined (a `Bot` tag).
                seats[seat] = replace(seats[seat], bot=bot.value)
            case SeatLeft(seat, bot):
                _add(rounds, Move("leave", (seat,), (), bot.value))
            case SeatResigned(seat):
                _add(rounds, Move("resign", (seat,)))
            case TurnTimedOut(seat, outcome):
                before = events[i - 1]
                last = rounds[-1].moves[-1] if rounds[-1].moves else None
                if (
                    isinstance(before, TurnTimedOut)
                    and before.outcome is outcome
                    and last is not None
                    and seat not in last.seats
                ):
                    # One command times out every late seat: its events come together.
                    grown = replace(last, seats=(*last.seats, seat))
                    rounds[-1] = replace(rounds[-1], moves=(*rounds[-1].moves[:-1], grown))
                else:
                    _add(rounds, Move("timeout", (seat,), (), outcome.value))
            case TrickTaken(_, winner):
                rounds[-1] = replace(rounds[-1], tricks=(*rounds[-1].tricks, winner))
            case RoundEnded(_, reason, winners, points, bosses):
                result = Result(reason.value, winners, points, tuple(c.id for c in bosses))
                rounds[-1] = replace(rounds[-1], result=result)
            case SeedRevealed(seed):
                server_seed = seed
    view = rules.observe(state, rules.PUBLIC)
    assert view.fairness is not None
    clock = None if cfg.clock is None else (cfg.clock.turn_seconds, cfg.clock.on_timeout.value)
    return HandRecord(
        players=cfg.players,
        scoring=cfg.scoring.value,
        variant=cfg.variant.value,
        clock=clock,
        seats=tuple(seats),
        fairness=view.fairness.algorithm,
        commitment=view.fairness.commitment,
        server_seed=server_seed,
        status=view.status,
        winners=state.winners,
        scores=state.scores,
        rounds=tuple(rounds),
    )


def _add(rounds: list[RoundRecord], move: Move) -> None:
    rounds[-1] = replace(rounds[-1], moves=(*rounds[-1].moves, move))


def _exchanged_passes(events: Sequence[Event]) -> set[int]:
    """The indices of the CardsPassed events whose round has exchanged its passes: only
    then does a receiver know the cards it got."""
    done: set[int] = set()
    pending: list[int] = []
    for i, e in enumerate(events):
        if isinstance(e, CardsPassed):
            pending.append(i)
        elif isinstance(e, PassesExchanged):
            done.update(pending)
            pending.clear()
    return done
