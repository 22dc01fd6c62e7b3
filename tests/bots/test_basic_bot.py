"""The basic bot (service/bots/basic_bot.py): always legal, a function of its seat's view
alone, and its choices on hand-built positions. How well it plays is measured by
bench/bot_bench.py, which prints win rates; tests assert behaviour only."""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.bots import BOTS, Bot, Move, PassMove, PlayMove, basic_move, random_move
from service.bots.selfplay import dealer_command, play_game
from service.rules import (
    GameConfig,
    Phase,
    Scoring,
    SeatView,
    SeatViewer,
    Suit,
    Variant,
    card,
    observe,
)
from tests.rules.scenario import Table, dealt_table, new_table

MODES = [
    (3, Variant.STANDARD),
    (4, Variant.STANDARD),
    (4, Variant.SEVEN_FOLLOWERS),
    (4, Variant.SEVEN_FOLLOWERS_SHORT),
]


# --- legal, and a function of the view ------------------------------------------------


def checked_basic(checked: list[SeatView]) -> Bot:
    """The basic bot, checking each of its moves: legal, and the same for the same view,
    an equal copy of it, and any chance."""

    def bot(view: SeatView, rng: random.Random) -> Move | None:
        move = basic_move(view, rng)
        assert move is not None, "asked only when the seat must act"
        if isinstance(move, PassMove):
            assert view.action == "pass"
            assert len(set(move.cards)) == 3 and set(move.cards) <= set(view.legal)
        else:
            assert isinstance(move, PlayMove) and view.action == "play"
            assert move.card in view.legal
        equal = copy.deepcopy(view)
        assert equal == view and equal is not view
        for seed in (0, 1, 12345):
            assert basic_move(view, random.Random(seed)) == move
            assert basic_move(equal, random.Random(seed)) == move
        checked.append(view)
        return move

    return bot


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    mode=st.sampled_from(MODES),
    seed=st.integers(0, 2**32 - 1),
    basic_seats=st.sets(st.integers(0, 3), min_size=1),
)
def test_the_basic_bots_move_is_always_legal_and_a_function_of_its_view(
    mode: tuple[int, Variant], seed: int, basic_seats: set[int]
) -> None:
    """Along whole random games (mixed basic and random seats), every move of the basic
    bot is legal (a played card among view.legal; three distinct legal cards for a pass)
    and is the same for the same view, an equal copy and other seeds of chance."""
    players, variant = mode
    checked: list[SeatView] = []
    basic = checked_basic(checked)
    bots = [basic if s in basic_seats else random_move for s in range(players)]
    if not any(b is basic for b in bots):
        bots[0] = basic
    steps = list(play_game(players, Scoring.BASIC, variant, rng=random.Random(seed), bots=bots))
    assert steps[-1].after.phase is Phase.FINISHED  # the engine accepted every move
    assert any(v.action == "pass" for v in checked) and any(v.action == "play" for v in checked)


@pytest.mark.parametrize(("players", "variant"), MODES)
def test_a_game_of_basic_and_random_seats_ends_with_a_winner(
    players: int, variant: Variant
) -> None:
    """play_game with one bot per seat: a whole game of basic against random seats is
    played to its end, every seat moved by its own bot."""
    asked: dict[int, set[str]] = {}

    def named(name: str, bot: Bot) -> Bot:
        def play(view: SeatView, rng: random.Random) -> Move | None:
            asked.setdefault(view.seat, set()).add(name)
            return bot(view, rng)

        return play

    levels = ["basic" if s % 2 == 0 else "random" for s in range(players)]
    bots = [named(level, BOTS[level]) for level in levels]
    steps = list(play_game(players, Scoring.BASIC, variant, rng=random.Random(3), bots=bots))
    last = steps[-1].after
    assert last.phase is Phase.FINISHED and last.winners
    assert asked == {s: {level} for s, level in enumerate(levels)}


def test_bots_must_be_one_per_seat() -> None:
    """play_game refuses a ``bots`` list that does not give every seat its bot."""
    with pytest.raises(ValueError, match="bots"):
        next(play_game(4, Scoring.BASIC, rng=random.Random(1), bots=[basic_move] * 3))


def test_one_bot_per_seat_plays_the_same_game_as_that_bot_on_every_seat() -> None:
    """The ``bots`` keyword leaves play_game's game as it was for the same bots."""
    for bot in (random_move, basic_move):
        alone = play_game(3, Scoring.BASIC, rng=random.Random(8), bot=bot)
        per_seat = play_game(3, Scoring.BASIC, rng=random.Random(8), bots=[bot] * 3)
        assert [s.events for s in alone] == [s.events for s in per_seat]


def test_both_levels_are_registered_by_name() -> None:
    """The levels a bot seat can have (rules.BotLevel) name their bots in BOTS."""
    assert {"random": random_move, "basic": basic_move} == BOTS


def test_a_seat_with_nothing_to_do_makes_no_move() -> None:
    """Before the deal, and after its own pass while others still choose, the basic bot
    answers None."""
    table = new_table(4)
    assert basic_move(observe(table.state, SeatViewer(0)), random.Random(0)) is None
    table = dealt_table(HANDS_4P, "blue-13")
    table.pass_cards(2, PASSES_4P[2])
    assert basic_move(observe(table.state, SeatViewer(2)), random.Random(0)) is None


# --- hand-built positions ----------------------------------------------------------------

# A four-player deal (trump card blue-13: blue is trumps) built for the positions below.
# Seats 1 and 2 hold no green; the bosses lie: yellow-7 with seat 3, pink-7, black-7 and
# purple-7 with seat 2, red-7 with seat 1, green-7 and blue-7 with seat 3.
HANDS_4P = [
    "green-1 green-2 green-3 purple-2 purple-3 pink-4 yellow-8 yellow-9 black-5 black-6 "
    "red-6 blue-8",
    "purple-4 purple-5 pink-3 yellow-4 yellow-6 black-8 black-9 red-7 red-8 red-9 blue-9 blue-10",
    "purple-6 purple-7 pink-6 pink-7 yellow-5 yellow-10 black-7 black-10 black-11 red-10 "
    "red-11 blue-11",
    "green-4 green-5 green-6 green-7 purple-8 pink-5 pink-8 pink-9 yellow-7 red-12 blue-7 blue-12",
]
# Each seat passes its partner cards the positions do not use, keeping seats 1
# and 2 void in green.
PASSES_4P = {
    0: "purple-2 purple-3 black-5",
    1: "purple-4 purple-5 black-8",
    2: "black-10 black-11 red-11",
    3: "purple-8 red-12 blue-12",
}


def after(*plays: str) -> Table:
    """The four-player deal, passed, then these plays ("seat:card") from the first
    trick on; seat 0 holds the A, so it leads (R-3.3)."""
    table = dealt_table(HANDS_4P, "blue-13")
    for giver, ids in PASSES_4P.items():
        table.pass_cards(giver, ids)
    for play in plays:
        seat, card_id = play.split(":")
        table.play(int(seat), card_id)
    return table


def basic_play(table: Table) -> str:
    """The card the basic bot plays for the seat whose turn it is."""
    seat = table.state.turn()
    assert seat is not None
    move = basic_move(observe(table.state, SeatViewer(seat)), random.Random(0))
    assert isinstance(move, PlayMove)
    return move.card


def test_it_follows_with_its_lowest_card_when_it_cannot_win() -> None:
    """Seat 0 leads yellow-9; seat 1 holds only yellow-4 and yellow-6 in yellow, neither
    of which wins: it plays the lowest, keeping yellow-6."""
    assert basic_play(after("0:yellow-9")) == "yellow-4"


def test_it_does_not_overtake_its_partners_winning_card() -> None:
    """Seat 0 leads yellow-9 and seat 1 follows low; seat 2, seat 0's partner, could
    overtake with yellow-10 but the trick is its side's either way: it plays yellow-5."""
    assert basic_play(after("0:yellow-9", "1:yellow-4")) == "yellow-5"


def test_it_takes_a_trick_holding_a_boss_with_its_cheapest_winner() -> None:
    """Last to play on a trick an opponent (seat 2) wins with the pink boss, seat 3
    holds pink-5 (loses), pink-8 and pink-9 (win): it takes the boss with pink-8."""
    table = after("0:pink-4", "1:pink-3", "2:pink-7")
    assert basic_play(table) == "pink-8"


def test_it_keeps_its_boss_out_of_a_trick_it_cannot_win() -> None:
    """Seat 0 leads the A, which nothing beats (R-4.3); seat 1, void in green, may play
    anything: it throws neither its boss (red-7) to the opponents nor a trump."""
    played = card(basic_play(after("0:green-1")))
    assert not played.is_boss and played.suit is not Suit.BLUE


def test_it_drops_a_boss_on_its_partners_sure_trick() -> None:
    """Seat 0 leads the A; seat 2, its partner, void in green, drops one of its bosses on
    the trick its side surely takes, capturing it (R-4.4)."""
    assert card(basic_play(after("0:green-1", "1:red-8"))).is_boss


def test_it_ducks_a_trick_without_bosses_it_need_not_take() -> None:
    """Last to play on a trick without bosses, seat 3 holds pink-5 (loses), pink-8 and
    pink-9 (win): it lets the trick go, a trick brings its side nearer seven (R-5.2)."""
    assert basic_play(after("0:pink-4", "1:pink-3", "2:pink-6")) == "pink-5"


# --- passing ------------------------------------------------------------------------------


def pass_of(table: Table, seat: int) -> tuple[str, str, str]:
    move = basic_move(observe(table.state, SeatViewer(seat)), random.Random(0))
    assert isinstance(move, PassMove)
    return move.cards


def dealt(players: int, variant: Variant, seed: int) -> Table:
    """A first round dealt by the rules' shuffle, before the passes."""
    table = new_table(players, Scoring.BASIC, variant)
    deal = dealer_command(table.state, random.Random(seed))
    assert deal is not None
    table.do(deal)
    return table


@pytest.mark.parametrize("players", [3, 4])
def test_it_passes_low_side_cards_never_a_boss_the_a_or_a_trump(players: int) -> None:
    """R-3.2, three players (to the left) and four (to the partner): the three cards are
    side cards from its shortest side suits, lowest first; no boss, not the A, no trump
    (whenever the hand has three such cards)."""
    for seed in range(40):
        table = dealt(players, Variant.STANDARD, seed)
        r = table.state.round
        assert r is not None and r.trump_suit is not None
        for seat in range(players):
            hand = table.hand(seat)
            side = [c for c in hand if not c.is_boss and c.id != "green-1"]
            side = [c for c in side if c.suit is not r.trump_suit]
            passed = [card(i) for i in pass_of(table, seat)]
            assert len(side) >= 3
            assert set(passed) <= set(side)
            # Shortest suits first: no side suit kept shorter than one given from.
            length = {c.suit: sum(1 for x in hand if x.suit is c.suit) for c in side}
            kept = [c for c in side if c not in passed]
            assert max(length[c.suit] for c in passed) <= min(length[c.suit] for c in kept)


def test_seven_followers_passes_a_boss_to_the_partner_and_low_cards_to_the_others() -> None:
    """R-7.2: one card to each other seat, in seat order after the giver; the partner
    (seat + 2, the second card) gets a boss when the hand holds one, the opponents the
    hand's lowest cards that are not bosses."""
    assert GameConfig(4, Scoring.BASIC, Variant.SEVEN_FOLLOWERS).pass_targets(0) == (1, 2, 3)
    seen = 0
    for seed in range(20):
        table = dealt(4, Variant.SEVEN_FOLLOWERS, seed)
        for seat in range(4):
            hand = table.hand(seat)
            left, partner, right = (card(i) for i in pass_of(table, seat))
            if any(c.is_boss for c in hand):
                assert partner.is_boss
                seen += 1
            others = sorted(c.rank for c in hand if not c.is_boss and c.id != "green-1")
            assert left.rank <= others[2] and right.rank <= others[2]
    assert seen > 20


def test_seven_followers_first_lead_is_a_low_card_of_its_longest_strong_suit() -> None:
    """R-7.4: the round's first card sets the trump suit, so the leader leads from one
    of its long suits (at most one card shorter than its longest, height counting too),
    and not a boss of it when it has another card of that suit."""
    for seed in range(20):
        table = dealt(4, Variant.SEVEN_FOLLOWERS, seed)
        for seat in range(4):
            table.pass_cards(seat, " ".join(pass_of(table, seat)))
        leader = table.state.turn()
        assert leader is not None
        hand = table.hand(leader)
        led = card(basic_play(table))
        longest = max(sum(1 for c in hand if c.suit is s) for s in Suit)
        assert sum(1 for c in hand if c.suit is led.suit) >= longest - 1
        if any(c.suit is led.suit and not c.is_boss for c in hand):
            assert not led.is_boss
