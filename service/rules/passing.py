"""A round's deal and its passes (R-3, R-7.2, R-7.3): which round is due, what makes a
deal valid, the cards each seat passes and their exchange, after which the round's
leader is known. Each command's ``decide`` function sits beside the ``evolve`` functions
of the events it causes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from service.rules.cards import BLUE_13, SUPER_TRUMP, Card, sort_cards
from service.rules.commands import DealRound, PassCards
from service.rules.config import GameConfig
from service.rules.errors import InvalidEventError, Violation
from service.rules.events import (
    CardsPassed,
    Event,
    PassedCard,
    PassesExchanged,
    PresetDeal,
    RoundDealt,
)
from service.rules.guards import _check_seat, _config, _expect, _refuse, _round
from service.rules.state import GameState, Phase, RoundState

PASS_SIZE = 3


def deal_due(state: GameState) -> int | None:
    """The number of the round that must be dealt now, or None."""
    if state.phase is Phase.DEALING:
        return len(state.results) + 1
    return None


def preset_deal(state: GameState, number: int) -> PresetDeal | None:
    """The operator-given deal for round ``number``, if there is one."""
    if state.deals is None or not 1 <= number <= len(state.deals):
        return None
    return state.deals[number - 1]


def deal_problem(
    cfg: GameConfig, hands: Sequence[Sequence[Card]], trump: Card | None
) -> str | None:
    """Why a deal is not a valid deal for this game (R-3.1, R-7.2), or None."""
    if len(hands) != cfg.players:
        return f"needs {cfg.players} hands"
    if any(len(h) != cfg.hand_size for h in hands):
        return f"every hand has {cfg.hand_size} cards"
    if cfg.seven_followers:
        if trump is not None:
            return "this variant turns up no trump card"
    elif trump is None:
        return "a trump card is needed"
    cards = [c for h in hands for c in h]
    if trump is not None:
        cards.append(trump)
    deck = set(cfg.deck)
    if any(c not in deck for c in cards):
        return "a card is not part of this game's deck"
    if len(set(cards)) != len(cards) or len(cards) != len(deck):
        return "every card must be used exactly once"
    return None


def _deal(state: GameState, cmd: DealRound) -> tuple[Event, ...]:
    cfg = _config(state)
    number = deal_due(state)
    if number is None:
        raise _refuse(Violation.WRONG_PHASE, "no deal is due")
    problem = deal_problem(cfg, cmd.hands, cmd.trump)
    if problem:
        raise _refuse(Violation.INVALID_DEAL, problem)
    return (RoundDealt(number, tuple(cmd.hands), cmd.trump),)


def _on_dealt(state: GameState, e: RoundDealt) -> GameState:
    _expect(state.phase is Phase.DEALING and e.number == len(state.results) + 1, "no deal due")
    cfg = state.config
    assert cfg is not None
    hands = e.hands
    _expect(all(h is not None for h in hands), "a dealt hand is missing")
    n = cfg.players
    number = e.number
    leader = state.lead_holder if number > 1 and not cfg.seven_followers else None
    rnd = RoundState(
        number=number,
        trump=e.trump,
        trump_suit=e.trump.suit if e.trump is not None else None,
        hands=tuple(sort_cards(h) for h in hands if h is not None),
        given=(None,) * n,
        received=None,
        leader=leader,
        trick=(),
        tricks_played=0,
        tricks_won=(0,) * n,
        captured=((),) * n,
        bosses=((),) * n,
        last_trick=None,
        sealed_suits=((), ()),
    )
    return replace(state, phase=Phase.PASSING, round=rnd)


def _pass(state: GameState, cmd: PassCards) -> tuple[Event, ...]:
    cfg = _config(state)
    _check_seat(cfg, cmd.seat)
    if state.phase is not Phase.PASSING:
        raise _refuse(Violation.WRONG_PHASE, "cards are passed only before the first trick")
    r = state.round
    assert r is not None
    if r.given[cmd.seat] is not None:
        raise _refuse(Violation.ALREADY_PASSED, "this seat has passed already; a pass is final")
    if len(cmd.cards) != PASS_SIZE or len(set(cmd.cards)) != PASS_SIZE:
        raise _refuse(Violation.INVALID_PASS, f"pass exactly {PASS_SIZE} different cards")
    hand = r.hands[cmd.seat]
    for c in cmd.cards:
        if c not in hand:
            raise _refuse(Violation.CARD_NOT_IN_HAND, f"{c.id} is not in your hand")
    passed = CardsPassed(cmd.seat, tuple(cmd.cards))
    if sum(g is None for g in r.given) > 1:
        return (passed,)
    after = _on_passed(state, passed)
    return (passed, _exchange(after))


def _on_passed(state: GameState, e: CardsPassed) -> GameState:
    _, r = _round(state, Phase.PASSING)
    _expect(e.cards is not None and r.given[e.seat] is None, "a pass is given once")
    given = (*r.given[: e.seat], e.cards, *r.given[e.seat + 1 :])
    return replace(state, round=replace(r, given=given))


def _exchange(state: GameState) -> PassesExchanged:
    cfg = state.config
    r = state.round
    assert cfg is not None and r is not None
    passes: list[PassedCard] = []
    for seat, given in enumerate(r.given):
        assert given is not None
        passes.extend(
            PassedCard(seat, to, c) for to, c in zip(cfg.pass_targets(seat), given, strict=True)
        )
    hands = _exchanged_hands(cfg, r.hands, passes)
    return PassesExchanged(tuple(passes), _leader(state, hands))


def _leader(state: GameState, hands: Sequence[Sequence[Card]]) -> int:
    """R-3.3, R-3.4, R-7.3: who leads the round's first trick, once passes are exchanged."""
    cfg = state.config
    r = state.round
    assert cfg is not None and r is not None
    if not cfg.seven_followers and r.number > 1:
        assert state.lead_holder is not None
        return state.lead_holder
    wanted = BLUE_13 if r.trump is SUPER_TRUMP else SUPER_TRUMP
    for seat, hand in enumerate(hands):
        if wanted in hand:
            return seat
    raise AssertionError("the lead card is in no hand")  # pragma: no cover


def _exchanged_hands(
    cfg: GameConfig, hands: Sequence[tuple[Card, ...]], passes: Iterable[PassedCard]
) -> tuple[tuple[Card, ...], ...]:
    out = [list(h) for h in hands]
    for p in passes:
        if p.card is None or p.card not in out[p.giver]:
            raise InvalidEventError("a passed card is not in the giver's hand")
        out[p.giver].remove(p.card)
        out[p.receiver].append(p.card)
    return tuple(sort_cards(h) for h in out)


def _on_exchanged(state: GameState, e: PassesExchanged) -> GameState:
    cfg, r = _round(state, Phase.PASSING)
    _expect(all(g is not None for g in r.given), "every seat passes before the exchange")
    _expect(
        [p.card for p in e.passes] == [c for g in r.given if g is not None for c in g],
        "the exchange moves the chosen cards",
    )
    hands = _exchanged_hands(cfg, r.hands, e.passes)
    received: list[list[Card]] = [[] for _ in range(cfg.players)]
    for p in e.passes:
        assert p.card is not None
        received[p.receiver].append(p.card)
    return replace(
        state,
        phase=Phase.PLAYING,
        round=replace(
            r,
            hands=hands,
            received=tuple(tuple(x) for x in received),
            leader=e.leader,
        ),
    )
