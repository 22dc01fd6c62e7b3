"""What each viewer may see: views of a state and redacted copies of events.

Information leaves the engine only through these functions. A seat sees the public
table plus its own hand and passes; the public sees the table; an operator sees all.
Card values are card ids here, ready to be rendered. A little past 400 lines: one
dataclass per shape of the contract's views, kept with the functions that fill them so
that what each viewer may see is read in one place.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, overload

from service.rules.cards import Card
from service.rules.engine import Action, expected_action, legal_cards
from service.rules.events import (
    CardsPassed,
    Event,
    GameCreated,
    PassesExchanged,
    PresetDeal,
    RoundDealt,
)
from service.rules.shuffle import ALGORITHM as SHUFFLE_ALGORITHM
from service.rules.state import GameState, Phase, RoundState

# --- viewers ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeatViewer:
    seat: int


@dataclass(frozen=True, slots=True)
class PublicViewer:
    pass


@dataclass(frozen=True, slots=True)
class OperatorViewer:
    pass


Viewer = SeatViewer | PublicViewer | OperatorViewer
PUBLIC = PublicViewer()
OPERATOR = OperatorViewer()


# --- views --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeatSummary:
    seat: int
    name: str | None
    team: int | None
    joined: bool
    passed: bool
    hand_size: int
    tricks_won: int
    bosses: tuple[str, ...]
    bot: str | None  # the bot level that plays the seat, if a bot does
    # By when the seat must act (turn clocks), RFC 3339. The rules know no time: the
    # service fills it in from when the turn began (None here).
    deadline: str | None = None
    reserved_for: str | None = None  # the invited player the seat waits for
    player_id: str | None = None  # who joined it, where the join names them (rated, invited)


@dataclass(frozen=True, slots=True)
class ClockView:
    turn_seconds: int
    on_timeout: str


@dataclass(frozen=True, slots=True)
class FairnessView:
    """How the game is dealt (docs/fairness.md). ``yokai-shuffle-v1``: provably fair,
    with the commitment, the client seeds and, once the game is over, the server seed;
    ``operator``: dealt from an operator's seed or preset deals; ``unverified``: dealt
    before the service committed to its deals."""

    algorithm: str
    commitment: str | None
    client_seeds: tuple[str | None, ...] | None
    server_seed: str | None


@dataclass(frozen=True, slots=True)
class PlayedCard:
    seat: int
    card: str


@dataclass(frozen=True, slots=True)
class TrickView:
    number: int
    cards: tuple[PlayedCard, ...]
    winner: int


@dataclass(frozen=True, slots=True)
class RoundView:
    number: int
    trump: str | None
    trump_suit: str | None
    leader: int | None
    turn: int | None
    trick: tuple[PlayedCard, ...]
    tricks_played: int
    last_trick: TrickView | None


@dataclass(frozen=True, slots=True)
class RoundResultView:
    number: int
    trump: str | None
    trump_suit: str | None
    reason: str
    winners: tuple[int, ...]
    points: tuple[int, ...]
    bosses_scored: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PassView:
    given: tuple[str, ...]
    received: tuple[str | None, ...]  # None until the exchange
    to: tuple[int, ...]  # the seat each given card goes to


@dataclass(frozen=True, slots=True)
class PublicView:
    players: int
    scoring: str
    variant: str
    status: str
    seats: tuple[SeatSummary, ...]
    round: RoundView | None
    scores: tuple[int, ...]
    rounds: tuple[RoundResultView, ...]
    winner: tuple[int, ...] | None
    seals: tuple[tuple[str, ...], ...] | None  # Seven Followers only
    clock: ClockView | None
    fairness: FairnessView | None  # None only before the game exists
    # A game left waiting for players too long that the service ended (GameExpired):
    # its status is "finished" (docs/api.md's statuses stay four), with no round and no winner.
    expired: bool
    visibility: str  # private (whoever has the link) or public (listed in the lobby)
    rematch: str | None  # the game that plays this finished one again
    rated: bool  # its result changes its players' ratings


@dataclass(frozen=True, slots=True)
class SeatView(PublicView):
    seat: int
    hand: tuple[str, ...]
    action: str | None
    legal: tuple[str, ...]
    pass_: PassView | None


@dataclass(frozen=True, slots=True)
class DealView:
    hands: tuple[tuple[str, ...], ...]
    trump: str | None


@dataclass(frozen=True, slots=True)
class OperatorView(PublicView):
    hands: tuple[tuple[str, ...], ...]
    passes: tuple[PassView | None, ...]
    lead_holder: int | None
    seed: int | None
    deals: tuple[DealView, ...] | None


# --- observe ------------------------------------------------------------------------


@overload
def observe(state: GameState, viewer: SeatViewer) -> SeatView: ...
@overload
def observe(state: GameState, viewer: OperatorViewer) -> OperatorView: ...
@overload
def observe(state: GameState, viewer: PublicViewer) -> PublicView: ...
def observe(state: GameState, viewer: Viewer) -> PublicView:
    """The view of ``state`` that ``viewer`` may have."""
    public = _public(state)
    r = state.round
    match viewer:
        case SeatViewer(seat):
            if not 0 <= seat < len(state.names):
                raise ValueError(f"seat {seat} is not a seat of this game")
            action = expected_action(state, seat)
            return SeatView(
                **_fields(public),
                seat=seat,
                hand=_ids(r.hands[seat]) if r is not None else (),
                action=action.value if action is not None else None,
                legal=_ids(legal_cards(state, seat)),
                pass_=_pass_view(state, r, seat) if r is not None else None,
            )
        case OperatorViewer():
            n = len(state.names)
            return OperatorView(
                **_fields(public),
                hands=tuple(_ids(h) for h in r.hands) if r is not None else (),
                passes=tuple(_pass_view(state, r, s) for s in range(n)) if r else (),
                lead_holder=state.lead_holder,
                seed=state.seed,
                deals=None if state.deals is None else tuple(_deal_view(d) for d in state.deals),
            )
    return public


def _fields(view: PublicView) -> dict[str, Any]:
    # The seat and operator views extend the public one; copy its fields across.
    return {name: getattr(view, name) for name in PublicView.__dataclass_fields__}


def _ids(cards: tuple[Card, ...]) -> tuple[str, ...]:
    return tuple(c.id for c in cards)


def _deal_view(d: PresetDeal) -> DealView:
    return DealView(tuple(_ids(h) for h in d.hands), d.trump.id if d.trump else None)


PUBLIC_STATUSES: tuple[str, ...] = tuple(
    p.value for p in Phase if p not in (Phase.NEW, Phase.DEALING, Phase.EXPIRED)
)
"""The statuses :func:`public_status` gives once a command is done (``new`` and
``dealing`` never outlast one, and an expired game is ``finished``)."""


def public_status(state: GameState) -> str:
    """The game's status as views show it ("dealing" only between a round's end and the
    next deal, which the service makes in the same command)."""
    if state.phase is Phase.NEW:
        return Phase.WAITING.value
    if state.phase is Phase.EXPIRED:
        return Phase.FINISHED.value
    return state.phase.value


def _public(state: GameState) -> PublicView:
    cfg = state.config
    if cfg is None:
        return PublicView(
            0,
            "",
            "",
            public_status(state),
            (),
            None,
            (),
            (),
            None,
            None,
            None,
            None,
            False,
            "",
            None,
            False,
        )
    r = state.round
    seats = tuple(
        SeatSummary(
            seat=s,
            name=state.names[s],
            team=cfg.side_of(s) if cfg.players == 4 else None,
            joined=state.names[s] is not None,
            passed=r is not None and (r.exchanged or r.given[s] is not None),
            hand_size=len(r.hands[s]) if r is not None else 0,
            tricks_won=r.tricks_won[s] if r is not None else 0,
            bosses=_ids(r.bosses[s]) if r is not None else (),
            bot=b.value if (b := state.bots[s]) is not None else None,
            reserved_for=state.reserved[s] if state.reserved else None,
            player_id=state.players[s] if state.players else None,
        )
        for s in range(cfg.players)
    )
    round_view = None
    if r is not None:
        last = r.last_trick
        round_view = RoundView(
            number=r.number,
            trump=r.trump.id if r.trump is not None else None,
            trump_suit=r.trump_suit.value if r.trump_suit is not None else None,
            leader=r.leader,
            turn=state.turn(),
            trick=tuple(PlayedCard(s, c.id) for s, c in r.trick),
            tricks_played=r.tricks_played,
            last_trick=None
            if last is None
            else TrickView(
                last.number, tuple(PlayedCard(s, c.id) for s, c in last.cards), last.winner
            ),
        )
    return PublicView(
        players=cfg.players,
        scoring=cfg.scoring.value,
        variant=cfg.variant.value,
        status=public_status(state),
        seats=seats,
        round=round_view,
        scores=state.scores,
        rounds=tuple(
            RoundResultView(
                number=x.number,
                trump=x.trump.id if x.trump is not None else None,
                trump_suit=x.trump_suit.value if x.trump_suit is not None else None,
                reason=x.reason.value,
                winners=x.winners,
                points=x.points,
                bosses_scored=_ids(x.bosses_scored),
            )
            for x in state.results
        ),
        winner=state.winners,
        seals=tuple(tuple(s.value for s in team) for team in state.seals)
        if cfg.seven_followers
        else None,
        clock=None
        if cfg.clock is None
        else ClockView(cfg.clock.turn_seconds, cfg.clock.on_timeout.value),
        fairness=_fairness_view(state),
        expired=state.phase is Phase.EXPIRED,
        visibility=cfg.visibility.value,
        rematch=state.rematch,
        rated=cfg.rated,
    )


def _fairness_view(state: GameState) -> FairnessView:
    f = state.fairness
    if f is not None:
        return FairnessView(SHUFFLE_ALGORITHM, f.commitment, state.client_seeds, state.server_seed)
    operator = state.seed is not None or state.deals is not None
    return FairnessView("operator" if operator else "unverified", None, None, None)


def _pass_view(state: GameState, r: RoundState, seat: int) -> PassView | None:
    given = r.given[seat]
    if given is None:
        return None
    assert state.config is not None
    return PassView(
        given=_ids(given),
        received=_ids(r.received[seat]) if r.received is not None else (None,) * len(given),
        to=state.config.pass_targets(seat),
    )


# --- events -------------------------------------------------------------------------


def redact(event: Event, viewer: Viewer) -> Event:
    """The copy of ``event`` that ``viewer`` may see: hidden cards become None."""
    if isinstance(viewer, OperatorViewer):
        return event
    seat = viewer.seat if isinstance(viewer, SeatViewer) else None
    match event:
        case RoundDealt(hands=hands):
            return replace(
                event, hands=tuple(h if i == seat else None for i, h in enumerate(hands))
            )
        case CardsPassed(seat=giver) if giver != seat:
            return replace(event, cards=None)
        case PassesExchanged(passes=passes):
            return replace(
                event,
                passes=tuple(
                    p if seat in (p.giver, p.receiver) else replace(p, card=None) for p in passes
                ),
            )
        case GameCreated(fairness=fairness):
            # The sealed server seed stays with the operators (and is useless without
            # the service's key); the commitment is public.
            sealed = None if fairness is None else replace(fairness, sealed=None)
            return replace(event, seed=None, deals=None, fairness=sealed)
    return event


__all__ = [
    "OPERATOR",
    "PUBLIC",
    "Action",
    "FairnessView",
    "OperatorView",
    "OperatorViewer",
    "PublicView",
    "PublicViewer",
    "SeatView",
    "SeatViewer",
    "Viewer",
    "observe",
    "public_status",
    "redact",
]
