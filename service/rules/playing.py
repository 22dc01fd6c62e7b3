"""Playing the cards (R-4, R-7.4, R-7.5): who wins a trick, a card played and the
trick it completes, whose end the scoring then reads. The ``decide`` function of a
play sits beside the ``evolve`` functions of the card and the trick."""

from __future__ import annotations

from collections.abc import Sequence

from service.rules.cards import SUPER_TRUMP, Card, Suit
from service.rules.commands import PlayCard
from service.rules.errors import Violation
from service.rules.events import CardPlayed, Event, TrickTaken
from service.rules.guards import _check_seat, _config, _expect, _refuse, _round
from service.rules.scoring import _seven_followers_after_trick, _standard_after_trick
from service.rules.state import (
    CompletedTrick,
    GameState,
    Phase,
    RoundState,
    new_game_state,
    new_round_state,
)


def trick_winner(trick: Sequence[tuple[int, Card]], trump_suit: Suit | None) -> int:
    """R-4.3 (and R-7.5): the A; else the highest trump; else the highest of the led suit.

    Ties (two 7s of one suit in Seven Followers) go to the card played first.
    """
    for seat, c in trick:
        if c is SUPER_TRUMP:
            return seat
    best_seat, best = trick[0]
    for seat, c in trick[1:]:
        if c.suit is best.suit:
            if c.rank > best.rank:
                best_seat, best = seat, c
        elif c.suit is trump_suit:
            best_seat, best = seat, c
    return best_seat


def _play(state: GameState, cmd: PlayCard) -> tuple[Event, ...]:
    cfg = _config(state)
    _check_seat(cfg, cmd.seat)
    if state.phase is not Phase.PLAYING:
        raise _refuse(Violation.WRONG_PHASE, f"cards are not played while {state.phase}")
    if state.turn() != cmd.seat:
        raise _refuse(Violation.NOT_YOUR_TURN, f"it is seat {state.turn()}'s turn")
    r = state.round
    assert r is not None
    hand = r.hands[cmd.seat]
    if cmd.card not in hand:
        raise _refuse(Violation.CARD_NOT_IN_HAND, f"{cmd.card.id} is not in your hand")
    if r.trick:
        led = r.trick[0][1].suit
        if cmd.card.suit is not led and any(c.suit is led for c in hand):
            raise _refuse(Violation.MUST_FOLLOW_SUIT, f"you hold {led} cards: follow suit")
    played = CardPlayed(cmd.seat, cmd.card)
    if len(r.trick) + 1 < cfg.players:
        return (played,)
    events: list[Event] = [played]
    s = _on_played(state, played)
    rs = s.round
    assert rs is not None
    taken = TrickTaken(rs.tricks_played + 1, trick_winner(rs.trick, rs.trump_suit))
    events.append(taken)
    s = _on_trick(s, taken)
    if cfg.seven_followers:
        events.extend(_seven_followers_after_trick(s, taken.winner))
    else:
        events.extend(_standard_after_trick(s))
    return tuple(events)


def _on_played(state: GameState, e: CardPlayed) -> GameState:
    cfg, r = _round(state, Phase.PLAYING)
    seat = e.seat
    _expect(r.leader is not None and (r.leader + len(r.trick)) % cfg.players == seat, "turn")
    hand = r.hands[seat]
    c = e.card
    _expect(c in hand, "the card is not in the player's hand")
    # The hot path of replays: every field in order, rather than through replace().
    rnd = new_round_state(
        r.number,
        r.trump,
        # the round's first card sets the trump suit.
        c.suit if r.trump_suit is None else r.trump_suit,
        (*r.hands[:seat], tuple(x for x in hand if x is not c), *r.hands[seat + 1 :]),
        r.given,
        r.received,
        r.leader,
        (*r.trick, (seat, c)),
        r.tricks_played,
        r.tricks_won,
        r.captured,
        r.bosses,
        r.last_trick,
        r.sealed_suits,
    )
    return _with_round(state, rnd, state.lead_holder)


def _with_round(s: GameState, r: RoundState, lead_holder: int | None) -> GameState:
    return new_game_state(
        s.config,
        s.phase,
        s.names,
        r,
        s.scores,
        s.results,
        s.seals,
        lead_holder,
        s.winners,
        s.seed,
        s.deals,
        s.bots,
        s.fairness,
        s.client_seeds,
        s.server_seed,
        s.reserved,
        s.players,
        s.rematch,
    )


def _on_trick(state: GameState, e: TrickTaken) -> GameState:
    cfg, r = _round(state, Phase.PLAYING)
    _expect(len(r.trick) == cfg.players, "the trick is not complete")
    _expect(e.number == r.tricks_played + 1, "trick numbers follow each other")
    w = e.winner
    _expect(0 <= w < cfg.players, "the winner is a seat")
    cards = tuple(c for _, c in r.trick)
    bosses = tuple(c for c in cards if c.is_boss)
    rnd = new_round_state(
        r.number,
        r.trump,
        r.trump_suit,
        r.hands,
        r.given,
        r.received,
        w,
        (),
        e.number,
        (*r.tricks_won[:w], r.tricks_won[w] + 1, *r.tricks_won[w + 1 :]),
        (*r.captured[:w], r.captured[w] + cards, *r.captured[w + 1 :]),
        (*r.bosses[:w], r.bosses[w] + bosses, *r.bosses[w + 1 :]) if bosses else r.bosses,
        CompletedTrick(e.number, r.trick, w),
        r.sealed_suits,
    )
    return _with_round(state, rnd, w)
