"""The end of a round and of the game (R-5, R-6, R-7.6 to R-7.8), written once for the
engine and for the search bots' playouts (service/bots/playout.py), and the ``evolve``
functions of the events that record it: suits sealed, a round ended, the game ended.

The rules themselves are functions of plain values (sides' totals, seats' captured
bosses, hands, the trump suit, the seals so far: sequences of either kind), so that the
engine calls them with what its immutable state holds after a trick and a playout with
its own lists, neither converting one into the other on its hot path. Their numbers are
the :class:`~service.rules.config.GameConfig`'s. The engine's functions after them
(``_standard_after_trick``, ``_seven_followers_after_trick``) turn their answers into
events.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace
from typing import NamedTuple

from service.rules.cards import SUITS, Card, Suit, sort_cards
from service.rules.config import GameConfig, Scoring
from service.rules.events import Event, GameEnded, RoundEnded, RoundEndReason, SuitSealed
from service.rules.guards import _expect, _round
from service.rules.state import GameState, Phase, RoundResult

# --- the rules ------------------------------------------------------------------------


def side_totals(cfg: GameConfig, per_seat: Iterable[int]) -> list[int]:
    """Values by seat added up by side (R-2.2, R-2.3)."""
    totals = [0] * cfg.sides
    for seat, value in enumerate(per_seat):
        totals[cfg.side_of(seat)] += value
    return totals


class RoundEnd(NamedTuple):
    """Why a round of the standard game ended, the sides that won it, and (R-5.2) the
    side that took seven tricks."""

    reason: RoundEndReason
    winners: tuple[int, ...]
    loser: int | None = None


def round_end(
    cfg: GameConfig,
    side_bosses: Sequence[int],
    side_tricks: Sequence[int],
    tricks_played: int,
    last_winner: int,
) -> RoundEnd | None:
    """R-5, asked after every trick, in its order (R-5.4): whether the round is over,
    given by side the bosses captured (``side_bosses``) and the tricks taken
    (``side_tricks``) in it, the tricks played, and the seat that took the last one."""
    most = max(side_bosses)
    if most >= cfg.bosses_to_win:  # first
        return RoundEnd(RoundEndReason.BOSSES, (side_bosses.index(most),))
    most = max(side_tricks)
    if most >= cfg.tricks_to_lose:
        loser = side_tricks.index(most)
        winners = tuple(side for side in range(cfg.sides) if side != loser)
        return RoundEnd(RoundEndReason.SEVEN_TRICKS, winners, loser)
    if tricks_played == cfg.tricks_per_round:
        return RoundEnd(RoundEndReason.LAST_TRICK, (cfg.side_of(last_winner),))
    return None


def bosses_scored(
    cfg: GameConfig,
    end: RoundEnd,
    bosses: Sequence[Sequence[Card]],
    hands: Sequence[Sequence[Card]],
) -> list[Card]:
    """R-6.3: the bosses the round's winner scores, from ``bosses`` (by seat, those
    captured in the round) and, when it ended by R-5.2, every boss still in ``hands``
    too; none when R-6.4 scores it without them."""
    if end.loser is not None and cfg.seven_tricks_points is not None:
        return []  # bosses are not counted
    taken = [c for seat in cfg.seats_of(end.winners[0]) for c in bosses[seat]]
    if end.loser is not None:  # the bosses still in hands too
        taken.extend(c for hand in hands for c in hand if c.is_boss)
    return taken


def round_points(
    cfg: GameConfig, end: RoundEnd, scored: Iterable[Card], trump_suit: Suit | None
) -> tuple[int, ...]:
    """R-6.1 to R-6.4: each side's points for the round, ``scored`` being
    :func:`bosses_scored`'s."""
    if end.loser is not None and cfg.seven_tricks_points is not None:
        value = cfg.seven_tricks_points
    elif cfg.scoring is Scoring.BASIC:
        value = 1
    else:  # the trump suit's boss scores 0
        value = sum(cfg.boss_points[c.suit] for c in scored if c.suit is not trump_suit)
    return tuple(value if side in end.winners else 0 for side in range(cfg.sides))


def game_winner(cfg: GameConfig, scores: Sequence[int], loser: int | None) -> int | None:
    """R-6.2, R-6.3, R-6.5: the side that has won the game with ``scores`` (the last
    round's points added), or None while it goes on. ``loser``: the side that took
    seven tricks in that round (R-5.2), if one did."""
    best = max(scores)
    if best < cfg.target_score:
        return None
    leaders = [side for side, score in enumerate(scores) if score == best]
    if len(leaders) > 1:
        # only an round can tie two players; the one on the left of
        # the player who took seven tricks wins.
        assert loser is not None
        return (loser + 1) % cfg.players
    return leaders[0]


def new_seals(
    cfg: GameConfig,
    team: int,
    bosses: Sequence[Sequence[Card]],
    seals: Sequence[Collection[Suit]],
) -> list[Suit]:
    """R-7.6, R-7.8: the suits ``team`` seals on taking a trick, in suit order: those
    whose two 7s (R-7.1) its seats have captured in the round (``bosses``, by seat),
    except those it has sealed already and, in the short variant, those the other team
    has (``seals``: by team, the game's so far)."""
    seen: set[Suit] = set()
    pairs: list[Suit] = []
    for seat in cfg.seats_of(team):
        for c in bosses[seat]:
            if c.suit in seen:
                pairs.append(c.suit)
            else:
                seen.add(c.suit)
    own = seals[team]
    closed = seals[1 - team] if cfg.exclusive_seals else ()
    found = [suit for suit in pairs if suit not in own and suit not in closed]
    if len(found) > 1:
        found.sort(key=SUITS.index)
    return found


def seven_followers_end(cfg: GameConfig, sealed: int, tricks_played: int) -> RoundEndReason | None:
    """R-7.7, R-7.8, asked after every trick: SEALED (the round and the game end) when
    the team that took it has sealed ``sealed`` suits, enough to win; ALL_TRICKS after
    the round's last trick; else None."""
    if sealed >= cfg.target_score:
        return RoundEndReason.SEALED
    if tricks_played == cfg.tricks_per_round:
        return RoundEndReason.ALL_TRICKS
    return None


def seals_result(counts: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """R-7.6: a Seven Followers round's winners, the teams that sealed a suit in it, and
    its points, by team the suits sealed in it (``counts``)."""
    return tuple(team for team in (0, 1) if counts[team]), tuple(counts)


# --- the engine: events after a trick -------------------------------------------------


def _standard_after_trick(state: GameState) -> list[Event]:
    """R-5 and R-6 after a trick: the round's end and points, and the game's end."""
    cfg = state.config
    r = state.round
    assert cfg is not None and r is not None and r.last_trick is not None
    end = round_end(
        cfg,
        side_totals(cfg, [len(b) for b in r.bosses]),
        side_totals(cfg, r.tricks_won),
        r.tricks_played,
        r.last_trick.winner,
    )
    if end is None:
        return []
    scored = bosses_scored(cfg, end, r.bosses, r.hands)
    points = round_points(cfg, end, scored, r.trump_suit)
    events: list[Event] = [
        RoundEnded(r.number, end.reason, end.winners, points, sort_cards(scored))
    ]
    scores = [a + b for a, b in zip(state.scores, points, strict=True)]
    winner = game_winner(cfg, scores, end.loser)
    if winner is not None:
        events.append(GameEnded((winner,)))
    return events


def _seven_followers_after_trick(state: GameState, winner: int) -> list[Event]:
    """R-7.6, R-7.7, R-7.8 after a trick: the suits sealed; the round's and the game's
    end."""
    cfg = state.config
    r = state.round
    assert cfg is not None and r is not None
    team = cfg.side_of(winner)
    sealed = new_seals(cfg, team, r.bosses, state.seals)
    events: list[Event] = [SuitSealed(team, suit) for suit in sealed]
    reason = seven_followers_end(cfg, len(state.seals[team]) + len(sealed), r.tricks_played)
    if reason is not None:
        events.append(_seven_followers_round_end(state, events, reason))
        if reason is RoundEndReason.SEALED:
            events.append(GameEnded((team,)))
    return events


def _seven_followers_round_end(
    state: GameState, new: Sequence[Event], reason: RoundEndReason
) -> RoundEnded:
    """A Seven Followers round's result: the suits each team sealed in it."""
    cfg = state.config
    r = state.round
    assert cfg is not None and r is not None
    sealed = [list(r.sealed_suits[0]), list(r.sealed_suits[1])]
    for e in new:
        if isinstance(e, SuitSealed):
            sealed[e.team].append(e.suit)
    bosses = sort_cards(
        [
            c
            for team in (0, 1)
            for seat in cfg.seats_of(team)
            for c in r.bosses[seat]
            if c.suit in sealed[team]
        ]
    )
    winners, points = seals_result((len(sealed[0]), len(sealed[1])))
    return RoundEnded(r.number, reason, winners, points, bosses)


# --- evolve -----------------------------------------------------------------------------


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
