"""The hand review's computation (issue 46, API.md Part 4 "Hand review"): on finished
games of every mode, every pass and play reviewed with the contract's invariants; the
same game twice gives the same review; a seat's decision is valued from what that seat
could know: its feed hides the others' hands and passes, and another deal of the cards
it has not seen changes none of its values."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from service.application.review.compute import Position, positions, review, review_game
from service.application.review.model import BLUNDER, MISTAKE, Decision, summary
from service.bots import basic_move, sampler, search
from service.bots.selfplay import play_game
from service.rules import Scoring, Variant, fold
from service.rules.cards import Card
from service.rules.events import CardPlayed, CardsPassed, Event, PassesExchanged, RoundDealt
from tests.application.handrecords.test_record import MODES  # every mode, 3 and 4 players
from tests.bots.test_search import dealt_otherwise

WORLDS = {"play_worlds": 3, "pass_worlds": 2}  # few: the invariants, not the values


def finished(players: int, scoring: Scoring, variant: Variant, seed: int = 1) -> list[Event]:
    events: list[Event] = []
    for step in play_game(players, scoring, variant, rng=random.Random(seed), bot=basic_move):
        events += step.events
    assert fold(events).winners is not None
    return events


def check(events: Sequence[Event], decisions: Sequence[Decision], players: int) -> None:
    moves = [i + 1 for i, e in enumerate(events) if isinstance(e, CardPlayed | CardsPassed)]
    assert [d.seq for d in decisions] == moves  # every pass and play, in game order
    for d in decisions:
        event = events[d.seq - 1]
        assert isinstance(event, CardPlayed | CardsPassed) and d.seat == event.seat
        cards = [o.cards for o in d.options]
        assert d.chosen in cards and d.best in cards
        assert len(set(cards)) == len(cards)
        assert all(0 <= o.value <= 1 for o in d.options)
        value = {o.cards: o.value for o in d.options}
        assert value[d.best] == max(value.values())
        assert d.loss >= 0 and d.loss == pytest.approx(value[d.best] - value[d.chosen])
        if isinstance(event, CardPlayed):
            assert (d.kind, d.chosen) == ("play", event.card.id) and d.trick is not None
            assert d.trick >= 1
        else:
            assert event.cards is not None
            assert (d.kind, d.trick) == ("pass", None)
            assert d.chosen == tuple(sorted(c.id for c in event.cards))
            assert all(isinstance(c, tuple) and len(c) == 3 for c in cards)
            assert 2 <= len(cards) <= 10
        if len(d.options) == 1:
            assert d.loss == 0  # a single legal card
    seats = summary(players, decisions)
    assert [s.seat for s in seats] == list(range(players))
    assert sum(s.decisions for s in seats) == len(decisions)
    for s in seats:
        mine = [d for d in decisions if d.seat == s.seat]
        assert s.mistakes == sum(d.loss >= MISTAKE for d in mine)
        assert s.blunders == sum(d.loss >= BLUNDER for d in mine) <= s.mistakes
        assert 0 <= s.accuracy <= 100


@pytest.mark.parametrize(("players", "scoring", "variant"), MODES)
def test_every_pass_and_play_is_reviewed_with_the_contracts_invariants(
    players: int, scoring: Scoring, variant: Variant
) -> None:
    events = finished(players, scoring, variant)
    decisions = review_game(events, 46, **WORLDS)
    check(events, decisions, players)
    assert any(len(d.options) == 1 for d in decisions)
    assert any(d.loss > 0 for d in decisions)
    assert review_game(events, 46, **WORLDS) == decisions  # the same game twice


def test_accuracy_is_100_without_loss_and_falls_with_it() -> None:
    events = finished(4, Scoring.BASIC, Variant.STANDARD)
    decisions = review_game(events, 46, **WORLDS)
    clean = [d for d in decisions if d.loss == 0]
    assert summary(4, clean)[0].accuracy == 100
    lossy = summary(4, decisions)
    assert min(s.accuracy for s in lossy) < 100


def test_the_seed_is_the_reviews_not_the_games() -> None:
    events = finished(4, Scoring.BASIC, Variant.STANDARD)
    at = [p for p in positions(events) if p.kind == "play"][:6]
    one = [review(events, p, 1, **WORLDS) for p in at]
    assert one == [review(events, p, 1, **WORLDS) for p in at]
    assert one != [review(events, p, 2, **WORLDS) for p in at]


def hidden_from(seat: int, feed: Sequence[Event]) -> list[Card]:
    """Every card of another seat's hand or pass the feed shows (none must be shown)."""
    shown: list[Card] = []
    for e in feed:
        if isinstance(e, RoundDealt):
            shown += [c for s, h in enumerate(e.hands) if s != seat for c in h or ()]
        elif isinstance(e, CardsPassed) and e.seat != seat:
            shown += list(e.cards or ())
        elif isinstance(e, PassesExchanged):
            shown += [
                p.card for p in e.passes if seat not in (p.giver, p.receiver) and p.card is not None
            ]
    return shown


@pytest.mark.parametrize(("players", "scoring", "variant"), MODES[::2])
def test_the_sampled_worlds_come_from_the_seats_feed_alone(
    players: int, scoring: Scoring, variant: Variant, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Instrumented: what the sampler of each decision is built from shows no card of
    another seat's hand or pass, and every world it draws gives the seat its real hand."""
    events = finished(players, scoring, variant)
    seen: list[tuple[int, Sequence[Event]]] = []
    real = sampler.knowledge

    def knowing(config, seat, feed):  # type: ignore[no-untyped-def]
        seen.append((seat, feed))
        return real(config, seat, feed)

    monkeypatch.setattr(search, "knowledge", knowing)
    for at in positions(events)[:40]:
        review(events, at, 46, **WORLDS)
        assert seen and seen[-1][0] == at.seat
        assert hidden_from(at.seat, seen[-1][1]) == []
    assert len(seen) == 40


def twins(events: Sequence[Event], at: Position) -> list[Event] | None:
    """The game's history up to ``at`` with two cards ``at``'s seat has not seen swapped
    between two other seats' dealt hands (a lawful history), or None."""
    return dealt_otherwise(at.seat, list(events[: at.index]))


@pytest.mark.parametrize(("players", "scoring", "variant"), MODES[1::2])
def test_games_identical_from_a_seats_view_give_it_the_same_values(
    players: int, scoring: Scoring, variant: Variant
) -> None:
    events = finished(players, scoring, variant, seed=3)
    compared = 0
    for at in positions(events)[::3]:
        other = twins(events, at)
        if other is None:
            continue
        assert fold(other).round != fold(events[: at.index]).round  # another world indeed
        assert review(other, at, 46, **WORLDS) == review(events, at, 46, **WORLDS)
        compared += 1
    assert compared >= 3
