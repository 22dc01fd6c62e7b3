"""The end of a round and of the game after a trick (R-5, R-6, R-7.6 to R-7.8), and
the ``evolve`` functions of the events that record them: suits sealed, a round ended,
the game ended."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from service.rules.cards import POINTS_3P, STARS, SUITS, Card, sort_cards
from service.rules.config import GameConfig, Scoring
from service.rules.events import Event, GameEnded, RoundEnded, RoundEndReason, SuitSealed
from service.rules.guards import _expect, _round
from service.rules.state import GameState, Phase, RoundResult


def _side_totals(cfg: GameConfig, per_seat: Iterable[int]) -> list[int]:
    totals = [0] * cfg.sides
    for seat, value in enumerate(per_seat):
        totals[cfg.side_of(seat)] += value
    return totals


def _standard_after_trick(state: GameState) -> list[Event]:
    """R-5 (checked in its order, R-5.4) and R-6."""
    cfg = state.config
    r = state.round
    assert cfg is not None and r is not None
    bosses = _side_totals(cfg, (len(b) for b in r.bosses))
    tricks = _side_totals(cfg, r.tricks_won)
    threshold = 4 if cfg.players == 4 else 3
    loser: int | None = None
    if any(b >= threshold for b in bosses):
        reason = RoundEndReason.BOSSES
        winners: tuple[int, ...] = (bosses.index(max(bosses)),)
    elif any(t >= 7 for t in tricks):
        reason = RoundEndReason.SEVEN_TRICKS
        loser = tricks.index(max(tricks))
        winners = tuple(s for s in range(cfg.sides) if s != loser)
    elif r.tricks_played == cfg.tricks_per_round:
        assert r.last_trick is not None
        reason = RoundEndReason.LAST_TRICK
        winners = (cfg.side_of(r.last_trick.winner),)
    else:
        return []

    if reason is RoundEndReason.SEVEN_TRICKS and cfg.players == 3:
        scored: tuple[Card, ...] = ()  # bosses are not counted
    else:
        taken = [c for seat in cfg.seats_of(winners[0]) for c in r.bosses[seat]]
        if reason is RoundEndReason.SEVEN_TRICKS:  # the bosses still in hands too
            taken.extend(c for hand in r.hands for c in hand if c.is_boss)
        scored = sort_cards(taken)

    points = [0] * cfg.sides
    for w in winners:
        if cfg.scoring is Scoring.BASIC:
            points[w] = 1
        elif loser is not None and cfg.players == 3:
            points[w] = 3
        else:  # the trump suit's boss scores 0
            value = STARS if cfg.players == 4 else POINTS_3P
            points[w] = sum(value[c.suit] for c in scored if c.suit is not r.trump_suit)

    ended = RoundEnded(r.number, reason, winners, tuple(points), scored)
    events: list[Event] = [ended]
    scores = [a + b for a, b in zip(state.scores, points, strict=True)]
    best = max(scores)
    if best >= cfg.target_score:
        leaders = [side for side, score in enumerate(scores) if score == best]
        if len(leaders) > 1:
            # only an round can tie two players; the one on the left of
            # the player who took seven tricks wins.
            assert loser is not None
            leaders = [(loser + 1) % cfg.players]
        events.append(GameEnded((leaders[0],)))
    return events


def _seven_followers_after_trick(state: GameState, winner: int) -> list[Event]:
    """R-7.6, R-7.7, R-7.8: seals after each trick; the round and the game ends."""
    cfg = state.config
    r = state.round
    assert cfg is not None and r is not None
    team = cfg.side_of(winner)
    captured = set(r.captured[team]) | set(r.captured[team + 2])
    short = cfg.target_score == 4
    events: list[Event] = []
    seals = list(state.seals[team])
    for suit in SUITS:
        if suit in seals or (short and suit in state.seals[1 - team]):
            continue
        if sum(1 for c in captured if c.suit is suit and c.is_boss) == 2:
            events.append(SuitSealed(team, suit))
            seals.append(suit)
    if len(seals) >= cfg.target_score:
        events.append(_seven_followers_round_end(state, events, RoundEndReason.SEALED))
        events.append(GameEnded((team,)))
    elif r.tricks_played == cfg.tricks_per_round:
        events.append(_seven_followers_round_end(state, events, RoundEndReason.ALL_TRICKS))
    return events


def _seven_followers_round_end(
    state: GameState, new: Sequence[Event], reason: RoundEndReason
) -> RoundEnded:
    """A Seven Followers round's result: the suits each team sealed in it."""
    r = state.round
    assert r is not None
    sealed = [list(r.sealed_suits[0]), list(r.sealed_suits[1])]
    for e in new:
        if isinstance(e, SuitSealed):
            sealed[e.team].append(e.suit)
    bosses = sort_cards(
        [
            c
            for team in (0, 1)
            for seat in (team, team + 2)
            for c in r.bosses[seat]
            if c.suit in sealed[team]
        ]
    )
    return RoundEnded(
        r.number,
        reason,
        tuple(t for t in (0, 1) if sealed[t]),
        (len(sealed[0]), len(sealed[1])),
        bosses,
    )


def _on_sealed(state: GameState, e: SuitSealed) -> GameState:
    _, r = _round(state, Phase.PLAYING)
    t = e.team
    _expect(t in (0, 1) and e.suit not in state.seals[t], "a suit is sealed once per team")
    seals = list(state.seals)
    seals[t] = tuple(s for s in SUITS if s in seals[t] or s is e.suit)
    sealed = list(r.sealed_suits)
    sealed[t] = (*sealed[t], e.suit)
    scores = list(state.scores)
    scores[t] += 1  # the score is the number of sealed suits
    return replace(
        state,
        seals=tuple(seals),
        scores=tuple(scores),
        round=replace(r, sealed_suits=tuple(sealed)),
    )


def _on_round_ended(state: GameState, e: RoundEnded) -> GameState:
    # A forfeit or a resignation may end a round while cards are being passed.
    early = e.reason in (RoundEndReason.FORFEIT, RoundEndReason.RESIGN)
    phase = Phase.PASSING if early and state.phase is Phase.PASSING else Phase.PLAYING
    cfg, r = _round(state, phase)
    _expect(e.number == r.number, "the round that ends is the current one")
    result = RoundResult(
        number=r.number,
        trump=r.trump,
        trump_suit=r.trump_suit,
        reason=e.reason,
        winners=e.winners,
        points=e.points,
        bosses_scored=e.bosses_scored,
    )
    scores = state.scores
    if not cfg.seven_followers:  # Seven Followers scores are counted as suits are sealed
        scores = tuple(a + b for a, b in zip(scores, e.points, strict=True))
    return replace(
        state,
        phase=Phase.DEALING,
        results=(*state.results, result),
        scores=scores,
    )


def _on_game_ended(state: GameState, e: GameEnded) -> GameState:
    _expect(state.phase is Phase.DEALING and bool(state.results), "a game ends after a round")
    return replace(state, phase=Phase.FINISHED, winners=e.winners)
