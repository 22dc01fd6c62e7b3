"""Builders for rule tests: full deals made from trick scripts, played through the engine.

A *script* is a list of tricks; each trick is a string of card ids in play order,
starting with the trick's leader. :func:`script_hands` works out which seat plays
each card (with its own, independent reading of R-4.3 for the trick winners), puts
the cards no trick uses into hands where they cannot make a scripted play illegal
(a seat that discards on a led suit never holds that suit afterwards), and returns
the hands each seat must hold *after* the pass exchange. :func:`deal_and_exchange`
then deals hands that become exactly those after the passes (R-3.2), and
:func:`play_tricks` plays the script through ``decide``/``evolve``.

Nothing here decides a rule question for the engine: the engine refuses an illegal
play itself, and tests assert the engine's own events.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pytest

from service.rules import (
    STANDARD_DECK,
    Card,
    Command,
    Event,
    GameState,
    RuleViolationError,
    Scoring,
    Suit,
    Violation,
    card,
    decide,
)
from service.rules.events import GameEnded, PassesExchanged, RoundEnded, TrickTaken
from tests.rules.scenario import Table, new_table

ACE = "green-1"
BLUE_13 = "blue-13"
ALL_IDS: tuple[str, ...] = tuple(c.id for c in STANDARD_DECK)


def hand_size(players: int) -> int:
    """R-3.1: 12 cards each with four players, 16 with three."""
    return 12 if players == 4 else 16


def pass_target(players: int, seat: int) -> int:
    """R-3.2: the partner (four players) or the player on the left (three players)."""
    return (seat + 2) % 4 if players == 4 else (seat + 1) % 3


def lead_card(trump: str) -> str:
    """R-3.3: the card whose holder leads the first round."""
    return BLUE_13 if trump == ACE else ACE


def expected_winner(plays: Sequence[tuple[int, str]], trump_suit: Suit) -> int:
    """R-4.3, written independently of the engine: the A, else the highest trump,
    else the highest card of the led suit."""
    for seat, cid in plays:
        if cid == ACE:
            return seat
    trumps = [(card(cid).rank, seat) for seat, cid in plays if card(cid).suit is trump_suit]
    if trumps:
        return max(trumps)[1]
    led = card(plays[0][1]).suit
    return max((card(cid).rank, seat) for seat, cid in plays if card(cid).suit is led)[1]


@dataclass(frozen=True)
class ScriptedTrick:
    plays: tuple[tuple[int, str], ...]  # (seat, card id) in play order
    winner: int


def seat_script(
    players: int, trump: str, leader: int, tricks: Sequence[str]
) -> list[ScriptedTrick]:
    """Who plays each card of the script, and who wins each trick."""
    out: list[ScriptedTrick] = []
    trump_suit = card(trump).suit
    for trick in tricks:
        ids = trick.split()
        if len(ids) != players:
            raise ValueError(f"trick {trick!r} needs {players} cards")
        plays = tuple(((leader + i) % players, cid) for i, cid in enumerate(ids))
        winner = expected_winner(plays, trump_suit)
        out.append(ScriptedTrick(plays, winner))
        leader = winner
    return out


def script_hands(
    players: int,
    trump: str,
    leader: int,
    tricks: Sequence[str],
    *,
    first_round: bool = True,
    holding: Mapping[int, str] | None = None,
) -> tuple[tuple[str, ...], ...]:
    """The hands (after the exchange) with which ``tricks`` can be played from ``leader``.

    ``holding`` forces extra cards (not played in the script) into a seat's hand. In a
    first round the lead card (R-3.3) is put in ``leader``'s hand.
    """
    size = hand_size(players)
    scripted = seat_script(players, trump, leader, tricks)
    hands: list[list[str]] = [[] for _ in range(players)]
    voids: list[set[Suit]] = [set() for _ in range(players)]
    seen: set[str] = {trump}
    for trick in scripted:
        led = card(trick.plays[0][1]).suit
        for seat, cid in trick.plays:
            if cid in seen:
                raise ValueError(f"{cid} is used twice (or is the trump card)")
            seen.add(cid)
            suit = card(cid).suit
            if suit in voids[seat]:
                raise ValueError(f"seat {seat} showed void in {suit} but plays {cid}")
            hands[seat].append(cid)
            if suit is not led:
                voids[seat].add(led)
    forced: dict[int, list[str]] = {s: [] for s in range(players)}
    for seat, held in (holding or {}).items():
        forced[seat].extend(held.split())
    if first_round:
        lead = lead_card(trump)
        owner = next((s for s in range(players) if lead in hands[s]), None)
        if owner is None:
            forced[leader].append(lead)
        elif owner != leader:
            raise ValueError(f"{lead} is played by seat {owner}, not by the leader {leader}")
    for seat, extra in forced.items():
        for cid in extra:
            if cid in seen:
                raise ValueError(f"{cid} is used twice (or is the trump card)")
            if card(cid).suit in voids[seat]:
                raise ValueError(f"seat {seat} is void in {card(cid).suit} but holds {cid}")
            seen.add(cid)
            hands[seat].append(cid)
    # Fill the other cards in, most constrained suits first, to the emptiest hand allowed.
    rest = [cid for cid in ALL_IDS if cid not in seen]

    def allowed(cid: str) -> list[int]:
        return [s for s in range(players) if card(cid).suit not in voids[s]]

    rest.sort(key=lambda cid: (len(allowed(cid)), ALL_IDS.index(cid)))
    for cid in rest:
        room = [s for s in allowed(cid) if len(hands[s]) < size]
        if not room:
            raise ValueError(f"no hand may hold {cid}")
        best = max(room, key=lambda s: (size - len(hands[s]), -s))
        hands[best].append(cid)
    if any(len(h) != size for h in hands):
        raise ValueError(f"hands of {[len(h) for h in hands]} cards, not {size}")
    return tuple(tuple(h) for h in hands)


def hands_with(players: int, trump: str, holding: Mapping[int, str]) -> tuple[tuple[str, ...], ...]:
    """A full deal in which each seat holds the cards ``holding`` names (and others)."""
    return script_hands(players, trump, 0, [], first_round=False, holding=holding)


def deal_for(
    players: int,
    final: Sequence[Sequence[str]],
    received: Sequence[Sequence[str]] | None = None,
) -> tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]:
    """Dealt hands and passes that turn into the ``final`` hands after the exchange.

    ``received[s]`` are the three cards of ``final[s]`` that seat ``s`` gets from the
    player who passes to it; by default the three last cards of its hand in deck order.
    Returns ``(dealt, passes)``.
    """
    if received is None:
        received = [sorted(h, key=ALL_IDS.index)[-3:] for h in final]  # deck order: rarely the A
    for s in range(players):
        if len(received[s]) != 3 or not set(received[s]) <= set(final[s]):
            raise ValueError(f"seat {s} must receive three cards of its final hand")
    passes = tuple(tuple(received[pass_target(players, s)]) for s in range(players))
    dealt = tuple(
        tuple(c for c in final[s] if c not in received[s]) + passes[s] for s in range(players)
    )
    return dealt, passes


def deal_and_exchange(
    table: Table,
    final: Sequence[Sequence[str]],
    trump: str,
    received: Sequence[Sequence[str]] | None = None,
) -> PassesExchanged:
    """Deal the due round so that, after every seat passes, seat s holds ``final[s]``."""
    players = len(final)
    dealt, passes = deal_for(players, final, received)
    table.deal(dealt, trump)
    out: tuple[Event, ...] = ()
    for seat in range(players):
        out = table.pass_cards(seat, " ".join(passes[seat]))
    exchanged = out[-1]
    assert isinstance(exchanged, PassesExchanged)
    return exchanged


def play_tricks(table: Table, tricks: Sequence[str]) -> list[Event]:
    """Play the script's cards in order, each by the seat whose turn it is."""
    events: list[Event] = []
    for trick in tricks:
        for cid in trick.split():
            seat = table.state.turn()
            assert seat is not None, f"nobody is to play {cid}"
            events.extend(table.play(seat, cid))
    return events


def prepare_round(
    table: Table,
    trump: str,
    tricks: Sequence[str],
    *,
    leader: int = 0,
    holding: Mapping[int, str] | None = None,
    received: Sequence[Sequence[str]] | None = None,
) -> PassesExchanged:
    """Deal the due round so that ``tricks`` can be played, and exchange the passes.

    The first round is led by ``leader`` (who is given the lead card); later rounds by
    the engine's lead holder.
    """
    state = table.state
    assert state.config is not None
    first = not state.results
    if not first:
        assert state.lead_holder is not None
        leader = state.lead_holder
    final = script_hands(
        state.config.players, trump, leader, tricks, first_round=first, holding=holding
    )
    return deal_and_exchange(table, final, trump, received)


def scripted_round(
    table: Table,
    trump: str,
    tricks: Sequence[str],
    *,
    leader: int = 0,
    holding: Mapping[int, str] | None = None,
    received: Sequence[Sequence[str]] | None = None,
) -> list[Event]:
    """:func:`prepare_round`, then play the tricks; returns the play's events."""
    prepare_round(table, trump, tricks, leader=leader, holding=holding, received=received)
    return play_tricks(table, tricks)


def scripted_table(
    players: int,
    trump: str,
    tricks: Sequence[str],
    *,
    scoring: Scoring = Scoring.BASIC,
    leader: int = 0,
    holding: Mapping[int, str] | None = None,
) -> tuple[Table, list[Event]]:
    """A new game whose first round is dealt for ``tricks`` and played through them."""
    table = new_table(players, scoring)
    events = scripted_round(table, trump, tricks, leader=leader, holding=holding)
    return table, events


def second_round_table(
    players: int,
    leader: int,
    *,
    scoring: Scoring = Scoring.BASIC,
) -> Table:
    """A game whose first round ended after one trick won by ``leader``, who therefore
    leads round 2 (R-3.4): round 2 can be dealt with the A in any hand."""
    table = new_table(players, scoring)
    bosses = "green-7 purple-7 pink-7 yellow-7" if players == 4 else "green-7 purple-7 pink-7"
    boss_trick_round(table, "blue-8", bosses, leader=leader)
    assert table.state.lead_holder == leader
    return table


def boss_trick_round(table: Table, trump: str, bosses: str, *, leader: int = 0) -> RoundEnded:
    """A round that ends on its first trick: every card played is a boss (R-5.1)."""
    events = scripted_round(table, trump, [bosses], leader=leader)
    return round_end(events)


# --- asserting -----------------------------------------------------------------------


def assert_refused(table: Table, command: Command, code: Violation) -> None:
    """The engine refuses ``command`` with ``code`` and nothing changes."""
    before: GameState = table.state
    count = len(table.events)
    with pytest.raises(RuleViolationError) as exc:
        table.do(command)
    assert exc.value.code is code, exc.value
    assert table.state is before
    assert len(table.events) == count
    with pytest.raises(RuleViolationError):
        decide(before, command)  # deciding again from the same state refuses again
    assert table.state == before


def hand(table: Table, seat: int) -> tuple[str, ...]:
    """The card ids ``seat`` holds now."""
    r = table.state.round
    assert r is not None
    return tuple(c.id for c in r.hands[seat])


# --- reading events ----------------------------------------------------------------


def round_end(events: Sequence[Event]) -> RoundEnded:
    ended = [e for e in events if isinstance(e, RoundEnded)]
    assert len(ended) == 1, f"expected one RoundEnded, got {ended}"
    return ended[0]


def game_end(events: Sequence[Event]) -> GameEnded | None:
    ended = [e for e in events if isinstance(e, GameEnded)]
    assert len(ended) <= 1
    return ended[0] if ended else None


def trick_winners(events: Sequence[Event]) -> list[int]:
    return [e.winner for e in events if isinstance(e, TrickTaken)]


def ids(cs: Sequence[Card]) -> list[str]:
    return [c.id for c in cs]


def boss_ids(cs: Sequence[Card]) -> set[str]:
    return {c.id for c in cs}
