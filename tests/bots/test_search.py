"""The search bots (service/bots/search.py, issue 31): a decision is a function of the
seat's view, its own feed and the seed: the same for the same seed, and the same when
the hidden cards of the other seats are dealt otherwise (leak-proof by construction:
the bot is given nothing else; and by test: the other deal gives the seat the same view
and the same feed)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

import pytest

from service.bots import search
from service.bots.basic_bot import basic_move
from service.bots.moves import PassMove, PlayMove
from service.bots.search import (
    Budget,
    pass_candidates,
    pass_values,
    play_values,
    search_move,
    share,
    surely_better,
)
from service.bots.selfplay import play_game
from service.rules import (
    Action,
    GameConfig,
    Phase,
    Scoring,
    SeatView,
    SeatViewer,
    Variant,
    card,
    fold,
    observe,
    redact,
)
from service.rules.cards import Card
from service.rules.events import CardPlayed, CardsPassed, Event, PassesExchanged, RoundDealt

BUDGET = Budget(worlds=6)  # no time limit: the decision depends on the seed alone

CASES = [
    (3, Scoring.ADVANCED, Variant.STANDARD),
    (4, Scoring.ADVANCED, Variant.STANDARD),
    (4, Scoring.BASIC, Variant.SEVEN_FOLLOWERS),
]


def decisions(players: int, scoring: Scoring, variant: Variant, seed: int):  # type: ignore[no-untyped-def]
    """Positions where a seat must play, with the game's events so far."""
    rng = random.Random(seed)
    events: list[Event] = []
    for step in play_game(players, scoring, variant, rng=rng):
        events += step.events
        state = step.after
        if state.phase is Phase.PLAYING and rng.random() < 0.2:
            seat = state.turn()
            assert seat is not None
            yield state, list(events), seat
        elif state.phase is Phase.PASSING and rng.random() < 0.3:
            assert state.config is not None
            for seat in range(state.config.players):
                if observe(state, SeatViewer(seat)).action == Action.PASS:
                    yield state, list(events), seat
                    break


def feed_of(seat: int, events: list[Event]) -> list[Event]:
    start = max(i for i, e in enumerate(events) if isinstance(e, RoundDealt))
    return [redact(e, SeatViewer(seat)) for e in events[start:]]


def dealt_otherwise(seat: int, events: list[Event]) -> list[Event] | None:
    """The same game with two hidden cards of two other seats swapped in the round's
    deal: cards neither passed nor played yet, so every later event still holds."""
    start = max(i for i, e in enumerate(events) if isinstance(e, RoundDealt))
    dealt = events[start]
    assert isinstance(dealt, RoundDealt)
    seen: set[Card] = set()
    for e in events[start:]:
        if isinstance(e, CardPlayed):
            seen.add(e.card)
        elif isinstance(e, CardsPassed) and e.cards is not None:
            seen.update(e.cards)
        elif isinstance(e, PassesExchanged):
            seen.update(p.card for p in e.passes if p.card is not None)
    others = [s for s in range(len(dealt.hands)) if s != seat]
    a, b = others[0], others[1]
    hands = [list(h or ()) for h in dealt.hands]
    free_a = [c for c in hands[a] if c not in seen]
    free_b = [c for c in hands[b] if c not in seen and c.suit is not (free_a or [c])[0].suit]
    if not free_a or not free_b:
        return None
    x, y = free_a[0], free_b[0]
    hands[a][hands[a].index(x)], hands[b][hands[b].index(y)] = y, x
    # A swap of suits could make a past play unlawful (a void shown): keep only swaps the
    # rules accept by folding the changed history.
    changed = [*events[:start], replace(dealt, hands=tuple(tuple(h) for h in hands))]
    changed += events[start + 1 :]
    try:
        fold(changed)
    except Exception:
        return None
    return changed


@pytest.mark.parametrize(("players", "scoring", "variant"), CASES)
def test_a_decision_depends_on_the_seats_view_feed_and_seed_alone(
    players: int, scoring: Scoring, variant: Variant
) -> None:
    swapped = passes = 0
    for state, events, seat in decisions(players, scoring, variant, seed=3):
        assert state.config is not None
        view = observe(state, SeatViewer(seat))
        feed = feed_of(seat, events)
        move = search_move(state.config, view, feed, random.Random(11), BUDGET)
        if view.action == Action.PLAY:
            assert isinstance(move, PlayMove) and move.card in view.legal
        else:  # three distinct cards of the hand
            assert isinstance(move, PassMove) and len(set(move.cards)) == 3
            assert set(move.cards) <= set(view.hand)
            passes += 1
        again = search_move(state.config, view, feed, random.Random(11), BUDGET)
        assert again == move  # the same seed, the same decision
        other = dealt_otherwise(seat, events)
        if other is None:
            continue
        their = fold(other)
        assert their.round is not None and state.round is not None
        assert their.round.hands != state.round.hands  # another world indeed
        assert observe(their, SeatViewer(seat)) == view
        assert feed_of(seat, other) == feed
        assert (
            search_move(state.config, view, feed_of(seat, other), random.Random(11), BUDGET) == move
        )
        swapped += 1
    assert swapped >= 3 and passes >= 1


def _never() -> float:
    raise AssertionError("an untimed search read the clock")


@pytest.mark.parametrize(("players", "scoring", "variant"), CASES)
def test_an_untimed_decision_reads_no_clock_and_repeats_its_values(
    players: int, scoring: Scoring, variant: Variant
) -> None:
    """Issue 46: with a budget of worlds alone, each legal card's value depends on the
    seat's view, its feed and the seed only: a loaded machine (here a clock that may not
    even be read) changes nothing, and the other deal of the hidden cards neither."""
    checked = 0
    for state, events, seat in decisions(players, scoring, variant, seed=5):
        assert state.config is not None
        view = observe(state, SeatViewer(seat))
        if view.action != Action.PLAY or len(view.legal) < 2:
            continue
        feed = feed_of(seat, events)
        values = play_values(state.config, view, feed, random.Random(4), BUDGET, share, _never)
        assert set(values) == set(view.legal)
        assert all(0 <= v <= 1 for v in values.values())
        again = play_values(state.config, view, feed, random.Random(4), BUDGET, share, _never)
        assert again == values
        move = search_move(state.config, view, feed, random.Random(4), BUDGET, _never)
        assert move == search_move(state.config, view, feed, random.Random(4), BUDGET)
        other = dealt_otherwise(seat, events)
        if other is not None:
            feed2 = feed_of(seat, other)
            assert play_values(state.config, view, feed2, random.Random(4), BUDGET, share) == values
        checked += 1
    assert checked >= 3


def test_a_time_cap_is_what_reads_the_clock() -> None:
    """The live bots' cap (YOKAI_BOT_MOVE_MS) does read it: a clock that jumps an hour
    between readings stops the search after its first world."""
    readings = iter(range(0, 10**6, 3600))
    for state, events, seat in decisions(4, Scoring.BASIC, Variant.STANDARD, seed=5):
        assert state.config is not None
        view = observe(state, SeatViewer(seat))
        if view.action != Action.PLAY or len(view.legal) < 2:
            continue
        feed = feed_of(seat, events)
        capped = play_values(
            state.config,
            view,
            feed,
            random.Random(4),
            Budget(worlds=6, ms=250),
            share,
            lambda: float(next(readings)),
        )
        one = play_values(state.config, view, feed, random.Random(4), Budget(worlds=1), share)
        assert capped == one
        return
    raise AssertionError("no decision found")


@pytest.mark.parametrize(("players", "scoring", "variant"), CASES)
def test_a_pass_is_valued_from_the_seats_feed_and_the_seed_alone(
    players: int, scoring: Scoring, variant: Variant
) -> None:
    """Issue 46: the candidate passes (the chosen one first, no two alike, at most ten)
    valued in [0, 1], the same twice, and the same when the other seats' hidden cards
    are dealt otherwise."""
    checked = 0
    for state, events, seat in decisions(players, scoring, variant, seed=7):
        assert state.config is not None
        view = observe(state, SeatViewer(seat))
        if view.action != Action.PASS:
            continue
        start = max(i for i, e in enumerate(events) if isinstance(e, RoundDealt))
        before = fold(events[:start])
        chosen = tuple(sorted(view.legal)[:3])
        candidates = pass_candidates(view, chosen)
        assert candidates[0] == tuple(card(i) for i in chosen)
        assert 2 <= len(candidates) <= 10
        assert len({frozenset(c) for c in candidates}) == len(candidates)
        assert all(len(c) == 3 and {x.id for x in c} <= set(view.hand) for c in candidates)
        feed = feed_of(seat, events)
        budget = Budget(worlds=3)
        values = pass_values(state.config, before, feed, seat, candidates, random.Random(2), budget)
        assert len(values) == len(candidates) and all(0 <= v <= 1 for v in values)
        again = pass_values(state.config, before, feed, seat, candidates, random.Random(2), budget)
        assert again == values
        other = dealt_otherwise(seat, events)
        if other is not None:
            feed2 = feed_of(seat, other)
            assert (
                pass_values(state.config, before, feed2, seat, candidates, random.Random(2), budget)
                == values
            )
        checked += 1
    assert checked >= 1


def test_a_card_is_surely_better_only_beyond_the_worlds_spread() -> None:
    """A paired comparison over the same worlds: ahead in every world is sure; ahead in
    one world of n, the others even, is exactly one standard error, so not more (for
    any n and lead: rounding must not decide it); in two of ten, it is; even on average,
    never; one world, never."""
    lost = [-1.0] * 10
    assert surely_better([1.0] * 10, lost)
    for n in range(2, 17):
        for lead in (0.2, 0.5, 1.0, 1.5, 2.0, 3.0, 7.0):
            assert not surely_better([lead] + [0.0] * (n - 1), [0.0] * n), (n, lead)
            assert not surely_better([1.0 + lead] + [1.0] * (n - 1), [1.0] * n), (n, lead)
    assert surely_better([1.0] * 2 + [-1.0] * 8, lost)
    assert not surely_better([1.0, -1.0] * 5, [-1.0, 1.0] * 5)
    assert not surely_better([0.5] * 10, [0.5] * 10)
    assert not surely_better([0.2], [0.1]) and not surely_better([7.0], [-7.0])


def _play_decisions() -> list[tuple[GameConfig, SeatView, list[Event], str]]:
    """Positions of four-player basic-scoring games where the seat to play has a choice,
    with the basic bot's card there."""
    found: list[tuple[GameConfig, SeatView, list[Event], str]] = []
    for state, events, seat in decisions(4, Scoring.BASIC, Variant.STANDARD, seed=5):
        assert state.config is not None
        view = observe(state, SeatViewer(seat))
        if view.action != Action.PLAY or len(view.legal) < 2:
            continue
        basic = basic_move(view, random.Random(0))
        assert isinstance(basic, PlayMove)
        found.append((state.config, view, feed_of(seat, events), basic.card))
    assert len(found) >= 3
    return found


def test_the_search_keeps_the_basic_card_unless_the_worlds_surely_prefer_another(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 46: with ten worlds a round won or lost moves a card's mean by 0.2, so most
    cards' means differ by chance; the search plays the basic bot's card unless another
    is surely better over the same worlds (strong: 57.5 % against basic in basic scoring
    without this, 65.8 % breaking exact ties only, 70.8 % so: docs/benchmarks.md)."""
    for config, view, feed, basic in _play_decisions():
        other = next(c for c in view.legal if c != basic)

        def worlds(values: dict[str, list[float]]) -> Callable[..., dict[str, list[float]]]:
            return lambda *args, **kwargs: values

        lucky = {c: [0.0] * 10 for c in view.legal}
        lucky[other] = [1.0] + [0.0] * 9  # ahead by one world: by chance
        monkeypatch.setattr(search, "world_values", worlds(lucky))
        assert search_move(config, view, feed, random.Random(1), BUDGET) == PlayMove(basic)

        sure = {c: [0.0] * 10 for c in view.legal}
        sure[other] = [1.0] * 10  # ahead in every world
        monkeypatch.setattr(search, "world_values", worlds(sure))
        assert search_move(config, view, feed, random.Random(1), BUDGET) == PlayMove(other)

        one = {c: [0.0] for c in view.legal}  # a time cap left one world
        one[other] = [1.0]
        monkeypatch.setattr(search, "world_values", worlds(one))
        assert search_move(config, view, feed, random.Random(1), BUDGET) == PlayMove(basic)
