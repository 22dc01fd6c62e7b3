"""Property-based random playouts of the rules engine (docs/architecture.md, Tests).

Hypothesis drives every choice of a game (who passes first, which cards are passed,
which legal card is played, and the seeds of the shuffles), so a failing game shrinks.
At every step a :class:`Playout` checks the engine against the independent
:class:`tests.rules.oracle.Model` and asserts:

1. every card is in exactly one place (R-1.1, R-3.1, R-7.1);
2. a command is accepted iff it is legal (R-3.2, R-4.1, R-4.2), refused commands change
   nothing and their messages name no card the actor may not see;
3. each trick goes to the seat the oracle names (R-4.3, R-7.5);
4. a round ends exactly when, and why, the oracle says (R-5, R-7.7);
5. only round winners score and scores never decrease (R-6, R-7.6 - R-7.8);
6. every game ends within a bound of rounds;
7. replaying the events (fold, the JSON codec, ``replay_checked``) gives the same state;
8. no view or redacted event shows a seat a card it may not know (docs/architecture.md, Hidden
   information).

The Seven Followers variants (R-7) run through the same harness with their own checks
(the trump suit set by the first card, one passed card to each other seat, seals by
team and the end of the game the moment a team has enough seals).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, is_dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.bots.selfplay import dealer_command
from service.rules import (
    INITIAL,
    OPERATOR,
    PUBLIC,
    SEVEN_FOLLOWERS_DECK,
    STANDARD_DECK,
    Action,
    Card,
    Command,
    CreateGame,
    DealRound,
    Event,
    GameConfig,
    GameState,
    JoinSeat,
    PassCards,
    Phase,
    PlayCard,
    PresetDeal,
    PublicView,
    RoundEndReason,
    RuleViolationError,
    Scoring,
    SeatView,
    SeatViewer,
    Suit,
    Variant,
    deal_shuffled,
    decide,
    expected_action,
    fold,
    from_data,
    legal_cards,
    observe,
    redact,
    replay_checked,
    to_data,
    trick_winner,
)
from service.rules.events import (
    CardPlayed,
    CardsPassed,
    GameCreated,
    GameEnded,
    PassesExchanged,
    RoundDealt,
    RoundEnded,
    SeatJoined,
    SuitSealed,
    TrickTaken,
)
from tests.rules import oracle
from tests.rules.oracle import Model

ALL_IDS: frozenset[str] = frozenset(c.id for c in SEVEN_FOLLOWERS_DECK)
CARD_TOKEN = re.compile(r"\b[a-z]+-\d+b?\b")
MAX_STEPS = 20_000

# in basic scoring every round gives one side (4 players) or at least one player
# (3 players) a point, and the game ends at 2 points: these bounds are exact.
# Advanced rounds may score 0 and Seven Followers rounds may seal nothing, so their bound
# is only a generous one for random play.
ROUND_BOUND: dict[tuple[int, Scoring, Variant], int] = {
    (4, Scoring.BASIC, Variant.STANDARD): 3,
    (3, Scoring.BASIC, Variant.STANDARD): 4,
}
GENEROUS_ROUND_BOUND = 60

Viewer = int | None  # a seat, or None for the public

PLAYOUT_SETTINGS = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def card_ids(obj: object) -> set[str]:
    """Every card id anywhere in a view, an event or decoded JSON."""
    found: set[str] = set()
    stack: list[object] = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            if x in ALL_IDS:
                found.add(x)
        elif isinstance(x, Card):
            found.add(x.id)
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list | tuple | set | frozenset):
            stack.extend(x)
        elif is_dataclass(x) and not isinstance(x, type):
            stack.extend(getattr(x, f.name) for f in fields(x))
    return found


def view_ids_now(view: PublicView) -> set[str]:
    """The card ids of a view outside its results of earlier rounds."""
    return card_ids([getattr(view, f.name) for f in fields(view) if f.name != "rounds"])


def by_id(cards: Sequence[Card] | frozenset[Card] | set[Card]) -> list[Card]:
    return sorted(cards, key=lambda c: c.id)


def ids(cards: Sequence[Card] | frozenset[Card] | set[Card]) -> set[str]:
    return {c.id for c in cards}


@dataclass
class Playout:
    """One game: the engine's state and events, the oracle's model, what each viewer may
    know in each round, and the checks made after every command."""

    players: int
    scoring: Scoring
    variant: Variant
    choices: random.Random  # hypothesis-driven: the game's choices (shrinkable)
    probes: random.Random  # seeded by hypothesis: the extra commands tried at each step
    deal_seed: int
    state: GameState = INITIAL
    events: list[Event] = field(default_factory=list)
    model: Model | None = None
    # knowledge[viewer][round]: the card ids the viewer may know in that round
    knowledge: dict[Viewer, dict[int, set[str]]] = field(default_factory=dict)
    current_round: int = 0
    round_start_scores: tuple[int, ...] = ()
    boundaries: list[tuple[int, GameState]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.cfg = GameConfig(self.players, self.scoring, self.variant)
        self.viewers: tuple[Viewer, ...] = (*range(self.players), None)
        self.knowledge = {v: {0: set()} for v in self.viewers}

    # --- driving the game ----------------------------------------------------------

    def run(self, preset: bool) -> None:
        deals: tuple[PresetDeal, ...] | None = None
        if preset:
            first = deal_shuffled(self.cfg, f"{self.deal_seed}".encode(), b"preset")
            deals = (PresetDeal(first.hands, first.trump),)
        self.step(
            CreateGame(
                self.players,
                self.scoring,
                self.variant,
                seed=self.deal_seed if preset else None,
                deals=deals,
            )
        )
        seats = list(range(self.players))
        self.choices.shuffle(seats)
        for seat in seats:
            self.step(JoinSeat(seat, f"player {seat}"))
        bound = ROUND_BOUND.get((self.players, self.scoring, self.variant), GENEROUS_ROUND_BOUND)
        for _ in range(MAX_STEPS):
            if self.state.phase is Phase.FINISHED:
                break
            assert len(self.state.results) <= bound, f"no end after {bound} rounds"
            self.step(self.next_command())
        else:
            pytest.fail(f"no end after {MAX_STEPS} commands")
        assert len(self.state.results) <= bound, f"no end after {bound} rounds"
        self.check_replay()

    def next_command(self) -> Command:
        state = self.state
        number = len(state.results) + 1
        deal = dealer_command(state, random.Random(f"{self.deal_seed}/{number}"))
        if deal is not None:
            return deal
        model = self.model
        assert model is not None
        if model.phase == "passing":
            waiting = [s for s in range(self.players) if model.action(s) == "pass"]
            seat = self.choices.choice(waiting)
            chosen = self.choices.sample(by_id(model.legal(seat)), 3)
            return PassCards(seat, tuple(chosen))
        seat_to_play = model.turn()
        assert seat_to_play is not None, f"nobody may act in phase {model.phase}"
        return PlayCard(seat_to_play, self.choices.choice(by_id(model.legal(seat_to_play))))

    def step(self, command: Command) -> None:
        before = self.state
        if self.model is not None:
            self.probe(before)
        operator_before = observe(before, OPERATOR)
        events = decide(before, command)
        assert observe(before, OPERATOR) == operator_before, "decide changed the state"
        state = fold(events, before)
        self.state = state
        self.events.extend(events)
        self.boundaries.append((len(self.events), state))
        self.check_events(command, events)
        self.check_state(before, events)
        self.check_hidden(events)

    # --- 2. accepted iff legal -----------------------------------------------------

    def try_command(self, state: GameState, command: PlayCard | PassCards) -> bool:
        """Whether the engine accepts ``command``; a refusal names no card the actor may
        not see (docs/architecture.md, Hidden information)."""
        refusal: RuleViolationError | None = None
        try:
            events = decide(state, command)
        except RuleViolationError as exc:
            refusal = exc
        if refusal is not None:
            named = {command.card.id} if isinstance(command, PlayCard) else ids(command.cards)
            viewer: Viewer = command.seat if 0 <= command.seat < self.players else None
            mentioned = set(CARD_TOKEN.findall(refusal.detail)) & ALL_IDS
            allowed = self.known(viewer) | named
            assert mentioned <= allowed, f"the refusal {refusal.detail!r} names hidden cards"
            return False
        if isinstance(command, PlayCard):
            assert events[0] == CardPlayed(command.seat, command.card)
        else:
            assert events[0] == CardsPassed(command.seat, command.cards)
        return True

    def probe(self, state: GameState) -> None:
        """R-3.2, R-4.1, R-4.2: for every seat (and two that do not exist), cards legal and
        not: the engine accepts a command exactly when the oracle says it is legal."""
        model = self.model
        assert model is not None
        rng = self.probes
        deck = list(self.cfg.deck)
        operator_before = observe(state, OPERATOR)
        hash_before = hash(state)
        for seat in (-1, *range(self.players), self.players):
            action = model.action(seat)
            legal = model.legal(seat)
            hand = model.hands[seat] if 0 <= seat < self.players else set()
            want = {"pass": Action.PASS, "play": Action.PLAY, None: None}[action]
            assert expected_action(state, seat) is want, f"R-4.1: action of seat {seat}"
            assert set(legal_cards(state, seat)) == legal, f"R-4.1/R-4.2: legal of {seat}"

            # Any card of either deck: a Seven Followers card is foreign to a standard game.
            candidates = rng.sample(SEVEN_FOLLOWERS_DECK, 3)
            if legal:
                candidates.append(rng.choice(by_id(legal)))
            if hand:
                candidates.append(rng.choice(by_id(hand)))
            for c in candidates:
                accepted = self.try_command(state, PlayCard(seat, c))
                assert accepted == (action == "play" and c in legal), (
                    f"R-4.1: PlayCard({seat}, {c.id}) accepted={accepted}, "
                    f"action={action}, legal={by_id(legal)}"
                )

            if action == "pass":
                sorted_legal = by_id(legal)
                good = rng.sample(sorted_legal, 3)
                assert self.try_command(state, PassCards(seat, tuple(good))), "R-3.2: pass"
                outside = [c for c in deck if c not in legal]
                bad = [*rng.sample(sorted_legal, 2), rng.choice(outside)]
                rng.shuffle(bad)
                for cards in (
                    bad,
                    [good[0], good[0], good[1]],  # not distinct
                    good[:2],  # too few
                    rng.sample(sorted_legal, 4),  # too many
                ):
                    assert not self.try_command(state, PassCards(seat, tuple(cards))), (
                        f"R-3.2: PassCards({seat}, {cards}) accepted"
                    )
            else:
                cards = rng.sample(by_id(hand), 3) if len(hand) >= 3 else rng.sample(deck, 3)
                assert not self.try_command(state, PassCards(seat, tuple(cards))), (
                    f"R-3.2: PassCards({seat}, {cards}) accepted while {action=}"
                )
        assert hash(state) == hash_before, "a refused command changed the state"
        assert observe(state, OPERATOR) == operator_before, "a refused command changed the state"

    # --- 3., 4., 5.: the events are the rules' own ---------------------------------

    def check_events(self, command: Command, events: tuple[Event, ...]) -> None:
        match command:
            case CreateGame():
                assert events == (
                    GameCreated(
                        command.players,
                        command.scoring,
                        command.variant,
                        command.seed,
                        command.deals,
                    ),
                )
                self.model = Model(command.players, command.scoring, command.variant)
                self.round_start_scores = self.model_scores()
            case JoinSeat():
                assert events == (SeatJoined(command.seat, command.name),)
            case DealRound():
                model = self.require_model()
                assert events == (RoundDealt(model.round_number + 1, command.hands, command.trump),)
                model.deal(command.hands, command.trump)
                self.round_start_scores = self.state.scores
            case PassCards():
                self.check_pass_events(command, events)
            case PlayCard():
                self.check_play_events(command, events)

    def require_model(self) -> Model:
        assert self.model is not None
        return self.model

    def model_scores(self) -> tuple[int, ...]:
        return tuple(self.require_model().scores)

    def check_pass_events(self, command: PassCards, events: tuple[Event, ...]) -> None:
        model = self.require_model()
        exchange = model.pass_cards(command.seat, command.cards)
        assert events[0] == CardsPassed(command.seat, command.cards)
        if exchange is None:
            assert len(events) == 1, f"R-3.2: cards moved before every seat chose: {events}"
            return
        assert len(events) == 2, events
        exchanged = events[1]
        assert isinstance(exchanged, PassesExchanged), events
        moves = [(p.giver, p.receiver, p.card) for p in exchanged.passes]
        assert len(moves) == 3 * self.players
        assert set(moves) == exchange.moves, "R-3.2/R-7.2: the passes move the chosen cards"
        for giver in range(self.players):
            receivers = sorted(r for g, r, _ in moves if g == giver)
            if self.cfg.seven_followers:  # one card to each other seat
                assert receivers == [s for s in range(self.players) if s != giver], (
                    f"R-7.2: seat {giver} passes to {receivers}"
                )
            else:  # partner (4 players) or left (3 players)
                target = (giver + 2) % 4 if self.players == 4 else (giver + 1) % 3
                assert receivers == [target] * 3, f"R-3.2: seat {giver} passes to {receivers}"
        assert exchanged.leader == exchange.leader, "R-3.3/R-3.4/R-7.3: the leader"

    def check_play_events(self, command: PlayCard, events: tuple[Event, ...]) -> None:
        model = self.require_model()
        first_of_round = model.tricks_played == 0 and not model.trick
        outcome = model.play(command.seat, command.card)
        assert events[0] == CardPlayed(command.seat, command.card)
        r = self.state.round
        assert r is not None
        if self.cfg.seven_followers and first_of_round:
            assert r.trump_suit is command.card.suit, "R-7.4: the first card sets the trump"
        if outcome is None:
            assert len(events) == 1, f"R-4.3: a trick taken before it is complete: {events}"
            return
        taken = events[1]
        assert isinstance(taken, TrickTaken), events
        assert taken.number == outcome.number
        assert taken.winner == outcome.winner, (
            f"R-4.3/R-7.5: trick {outcome.number} {r.last_trick} trump {r.trump_suit}: "
            f"engine says seat {taken.winner}, the rules say seat {outcome.winner}"
        )
        rest = events[2:]
        kinds = [type(e).__name__ for e in rest]
        expected_kinds = ["SuitSealed"] * len(outcome.seals)
        if outcome.round_end is not None:
            expected_kinds.append("RoundEnded")
        if outcome.game_winners is not None:
            expected_kinds.append("GameEnded")
        assert kinds == expected_kinds, (
            f"R-5/R-6/R-7.6-R-7.8 after trick {outcome.number}: engine {kinds}, "
            f"rules {expected_kinds} ({outcome})"
        )
        sealed = {(e.team, e.suit.value) for e in rest if isinstance(e, SuitSealed)}
        assert sealed == outcome.seals, "R-7.6/R-7.8: the suits sealed"
        end = outcome.round_end
        for e in rest:
            if isinstance(e, RoundEnded):
                assert end is not None
                assert e.number == model.round_number
                assert e.reason is end.reason, f"R-5/R-7.7: reason {e.reason} != {end.reason}"
                assert e.winners == end.winners, f"R-5: winners {e.winners} != {end.winners}"
                assert e.points == end.points, f"R-6: points {e.points} != {end.points}"
                assert ids(e.bosses_scored) == ids(end.bosses), "R-5.2/R-6.3: bosses scored"
                assert len(e.bosses_scored) == len(end.bosses)
            elif isinstance(e, GameEnded):
                assert e.winners == outcome.game_winners, "R-6.2/R-6.3/R-6.5/R-7.7: winner"

    # --- 1., 5., 6. and the model against the state --------------------------------

    def check_state(self, before: GameState, events: tuple[Event, ...]) -> None:
        state = self.state
        model = self.require_model()
        assert state.phase.value == model.phase or (
            state.phase is Phase.WAITING and model.phase == "dealing"
        ), f"phase {state.phase} vs the rules' {model.phase}"
        r = state.round
        if r is not None:
            # 1.: every card in exactly one place.
            places: list[Card] = [c for h in r.hands for c in h]
            places += [c for _, c in r.trick]
            places += [c for pile in r.captured for c in pile]
            if r.trump is not None:
                places.append(r.trump)
            counts = Counter(c.id for c in places)
            assert len(places) == model.deck_size == len(self.cfg.deck)
            assert set(counts) == ids(self.cfg.deck) and max(counts.values()) == 1, (
                f"cards out of place: {[k for k, v in counts.items() if v > 1]}"
            )
            # The engine's table is the rules' table.
            for seat in range(self.players):
                assert ids(r.hands[seat]) == ids(model.hands[seat]), f"hand of seat {seat}"
                assert set(r.bosses[seat]) == set(model.bosses_captured(seat)), "R-4.4"
            assert [(s, c.id) for s, c in r.trick] == [(s, c.id) for s, c in model.trick]
            assert state.turn() == model.turn(), "R-4.1/R-4.4: whose turn"
            assert r.tricks_played == model.tricks_played
            assert list(r.tricks_won) == model.tricks_won
            trump_suit = r.trump_suit.value if r.trump_suit is not None else None
            assert trump_suit == model.trump_suit, "R-3.1/R-7.4: the trump suit"

        # 5. Scores only grow, and only for the sides that win a round.
        assert list(state.scores) == model.scores, f"scores {state.scores} != {model.scores}"
        assert all(a <= b for a, b in zip(before.scores, state.scores, strict=False))
        ended = [e for e in events if isinstance(e, RoundEnded)]
        if self.cfg.seven_followers:
            seals = [frozenset(s.value for s in team) for team in state.seals]
            assert seals == model.seals, "R-7.6: seals by team"
            assert list(state.scores) == [len(s) for s in seals], "R-7.7: score = seals"
            target = oracle.seven_followers_target(self.variant)
            if self.variant is Variant.SEVEN_FOLLOWERS_SHORT:
                assert not seals[0] & seals[1], "R-7.8: a suit sealed by both teams"
            reached = [t for t in (0, 1) if len(seals[t]) >= target]
            if reached:  # the game ends the moment a team has enough seals
                assert state.phase is Phase.FINISHED and state.winners == tuple(reached)
                assert any(isinstance(e, GameEnded) for e in events)
            for e in ended:
                gained = [t for t in (0, 1) if state.scores[t] > self.round_start_scores[t]]
                assert list(e.winners) == gained, "only the teams that sealed win the round"
                assert list(e.points) == [
                    state.scores[t] - self.round_start_scores[t] for t in (0, 1)
                ]
        else:
            old = before.scores or (0,) * len(state.scores)
            gained = [b - a for a, b in zip(old, state.scores, strict=True)]
            if not ended:
                assert not any(gained), f"scores changed without a round end: {gained}"
            for e in ended:
                assert gained == list(e.points), "R-6.1: the round's points are added"
                assert all(p == 0 for side, p in enumerate(e.points) if side not in e.winners)
                assert all(p >= 0 for p in e.points)

        # 6. A finished game is final; a game ends only with a winner.
        if state.phase is Phase.FINISHED:
            assert state.winners is not None and len(state.winners) == 1
            assert model.winners == state.winners

    # --- 8. hidden information -----------------------------------------------------

    def known(self, viewer: Viewer) -> set[str]:
        return self.knowledge[viewer].setdefault(self.current_round, set())

    def learn(self, event: Event) -> None:
        """What each viewer may know once ``event`` happened (from the full event)."""
        match event:
            case RoundDealt(number, hands, trump):
                self.current_round = number
                public = {trump.id} if trump is not None else set()
                self.knowledge[None][number] = set(public)
                for seat in range(self.players):
                    hand = hands[seat]
                    assert hand is not None
                    self.knowledge[seat][number] = public | ids(hand)
            case PassesExchanged(passes):
                for p in passes:
                    assert p.card is not None
                    self.known(p.receiver).add(p.card.id)
            case CardPlayed(_, c):
                for v in self.viewers:
                    self.known(v).add(c.id)
            case RoundEnded(bosses_scored=bosses):
                for v in self.viewers:
                    self.known(v).update(ids(bosses))
            case _:
                pass

    def check_hidden(self, events: tuple[Event, ...]) -> None:
        for e in events:
            self.learn(e)
            for v in self.viewers:
                red = redact(e, PUBLIC if v is None else SeatViewer(v))
                data = to_data(red)
                leaked = card_ids(data) - self.known(v)
                assert not leaked, f"{type(e).__name__} shows viewer {v} hidden cards {leaked}"
                assert from_data(e.TYPE, data) == red, "a redacted copy round-trips"
                if isinstance(red, GameCreated):
                    assert red.seed is None and red.deals is None, "the dealing plan is hidden"
        state = self.state
        r = state.round
        in_hands = {c.id for h in r.hands for c in h} if r is not None else set()
        for v in self.viewers:
            view: PublicView
            if v is None:
                view = observe(state, PUBLIC)
                assert not (view_ids_now(view) & in_hands), "the public view shows hand cards"
            else:
                view = observe(state, SeatViewer(v))
                assert isinstance(view, SeatView)
                self.check_seat_view(view, v)
            self.check_table_view(view)
            leaked = view_ids_now(view) - self.known(v)
            assert not leaked, f"the view of {v} shows hidden cards {leaked}"
            for result in view.rounds:
                old = self.knowledge[v].get(result.number, set())
                leaked = card_ids(result) - old
                assert not leaked, f"round {result.number} result shows {v} {leaked}"

    def check_table_view(self, view: PublicView) -> None:
        """The table every viewer sees is the rules' table."""
        model = self.require_model()
        state = self.state
        assert view.status == state.phase.value
        assert view.scores == tuple(model.scores)
        assert len(view.rounds) == model.rounds_ended
        assert view.winner == model.winners
        if self.cfg.seven_followers:
            assert view.seals is not None
            assert [frozenset(team) for team in view.seals] == model.seals, "R-7.6"
        else:
            assert view.seals is None
        if state.round is None:
            assert view.round is None
            return
        rv = view.round
        assert rv is not None
        assert rv.number == model.round_number
        assert rv.trump == (model.trump.id if model.trump is not None else None), "R-3.1"
        assert rv.trump_suit == model.trump_suit, "R-3.1/R-7.4"
        assert rv.leader == model.leader, "R-3.3/R-3.4/R-4.4: the leader"
        assert rv.turn == model.turn()
        assert [(p.seat, p.card) for p in rv.trick] == [(s, c.id) for s, c in model.trick]
        assert rv.tricks_played == model.tricks_played
        for seat, summary in enumerate(view.seats):
            assert summary.hand_size == len(model.hands[seat])
            assert summary.tricks_won == model.tricks_won[seat]
            assert set(summary.bosses) == ids(model.bosses_captured(seat)), "R-4.4"
            assert summary.passed == (model.given[seat] is not None)
            assert summary.team == (oracle.side_of(4, seat) if self.players == 4 else None)

    def check_seat_view(self, view: SeatView, seat: int) -> None:
        model = self.require_model()
        assert view.seat == seat
        if self.state.round is not None:
            assert set(view.hand) == ids(model.hands[seat]), "a seat sees its own hand"
        assert set(view.legal) == ids(model.legal(seat)), "a seat sees its legal cards"
        assert view.action == model.action(seat)
        given = model.given[seat] if self.state.round is not None else None
        if given is None or model.round_number == 0:
            assert view.pass_ is None
        else:
            assert view.pass_ is not None
            assert view.pass_.given == tuple(c.id for c in given)
            if model.phase == "passing":
                assert view.pass_.received == (None, None, None), "received before exchange"
            else:
                assert sorted(x for x in view.pass_.received if x is not None) == sorted(
                    ids(model.received[seat])
                )

    # --- 7. replay ------------------------------------------------------------------

    def check_replay(self) -> None:
        final = self.state
        events = self.events
        assert fold(events) == final, "fold(events) != the final state"
        decoded = [from_data(e.TYPE, to_data(e)) for e in events]
        assert decoded == events, "to_data/from_data round trip"
        assert fold(decoded) == final
        assert replay_checked(events) == final
        # A history cut between two commands replays to the state at that point.
        cut, state_then = self.probes.choice(self.boundaries)
        assert replay_checked(events[:cut]) == state_then
        assert fold(events[:cut]) == state_then


def play_out(data: st.DataObject, players: int, scoring: Scoring, variant: Variant) -> Playout:
    playout = Playout(
        players=players,
        scoring=scoring,
        variant=variant,
        choices=data.draw(st.randoms(use_true_random=False, note_method_calls=False)),
        probes=random.Random(data.draw(st.integers(0, 2**32 - 1), label="probe seed")),
        deal_seed=data.draw(st.integers(0, 2**32 - 1), label="deal seed"),
    )
    playout.run(preset=data.draw(st.booleans(), label="preset first deal"))
    return playout


# --- the standard game ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "scoring"),
    [(3, Scoring.BASIC), (3, Scoring.ADVANCED), (4, Scoring.BASIC), (4, Scoring.ADVANCED)],
)
@PLAYOUT_SETTINGS
@given(data=st.data())
def test_random_playouts_standard_keep_every_invariant(
    players: int, scoring: Scoring, data: st.DataObject
) -> None:
    """R-1 - R-6 at every step of random games: the eight properties of the module."""
    playout = play_out(data, players, scoring, Variant.STANDARD)
    assert playout.state.phase is Phase.FINISHED


# --- Seven Followers (R-7) ------------------------------------------------------------


@pytest.mark.parametrize("variant", [Variant.SEVEN_FOLLOWERS, Variant.SEVEN_FOLLOWERS_SHORT])
@settings(PLAYOUT_SETTINGS, max_examples=25)
@given(data=st.data())
def test_R_7_random_playouts_seven_followers_keep_every_invariant(
    variant: Variant, data: st.DataObject
) -> None:
    """R-7 at every step of random games, with the eight properties of the module."""
    playout = play_out(data, 4, Scoring.BASIC, variant)
    state = playout.state
    assert state.phase is Phase.FINISHED
    target = oracle.seven_followers_target(variant)
    assert state.winners is not None
    (team,) = state.winners
    assert len(state.seals[team]) >= target, "R-7.7/R-7.8: the winner has enough seals"
    assert state.results[-1].reason is RoundEndReason.SEALED


# --- on arbitrary tricks -------------------------------------------------


@st.composite
def tricks(draw: st.DrawFn, deck: tuple[Card, ...]) -> tuple[list[tuple[int, Card]], Suit | None]:
    players = draw(st.sampled_from([3, 4]) if deck is STANDARD_DECK else st.just(4))
    cards = draw(st.lists(st.sampled_from(deck), min_size=players, max_size=players, unique=True))
    leader = draw(st.integers(0, players - 1))
    trump = draw(st.none() | st.sampled_from(list(Suit)))
    return [((leader + i) % players, c) for i, c in enumerate(cards)], trump


@settings(max_examples=300, deadline=None)
@given(trick=tricks(STANDARD_DECK))
def test_R_4_3_trick_winner_matches_the_rules(
    trick: tuple[list[tuple[int, Card]], Suit | None],
) -> None:
    cards, trump = trick
    assert trick_winner(cards, trump) == oracle.trick_winner(cards, trump)


@settings(max_examples=300, deadline=None)
@given(trick=tricks(SEVEN_FOLLOWERS_DECK))
def test_R_7_5_trick_winner_matches_the_rules(
    trick: tuple[list[tuple[int, Card]], Suit | None],
) -> None:
    cards, trump = trick
    assert trick_winner(cards, trump) == oracle.trick_winner(cards, trump)


@pytest.mark.parametrize(
    ("played", "trump", "winner"),
    [
        # the A beats everything, even led by another suit under a trump.
        ("red-9 red-12 green-1 blue-8", Suit.BLUE, 2),
        # the highest trump, else the highest card of the led suit.
        ("red-9 red-12 blue-7 blue-8", Suit.BLUE, 3),
        ("red-9 red-12 pink-9 yellow-10", Suit.BLUE, 1),
        # two 7s of one suit decide: the first played wins.
        ("black-7b black-7 black-5 red-12", Suit.BLACK, 0),
        ("red-12 black-7 black-7b black-5", Suit.BLACK, 1),
        ("red-12 black-7b black-7 red-6", Suit.BLACK, 1),
        ("blue-7 blue-7b green-5 red-12", Suit.PINK, 0),
    ],
)
def test_R_4_3_R_7_5_worked_tricks(played: str, trump: Suit, winner: int) -> None:
    by_name = {c.id: c for c in SEVEN_FOLLOWERS_DECK}
    trick = [(seat, by_name[i]) for seat, i in enumerate(played.split())]
    assert oracle.trick_winner(trick, trump) == winner
    assert trick_winner(trick, trump) == winner


# --- rare cases the random playouts seldom reach ------------------------------------------


def apply(state: GameState, command: Command) -> tuple[GameState, tuple[Event, ...]]:
    events = decide(state, command)
    return fold(events, state), events


def started(players: int, scoring: Scoring) -> GameState:
    state, _ = apply(INITIAL, CreateGame(players, scoring, Variant.STANDARD))
    for seat in range(players):
        state, _ = apply(state, JoinSeat(seat, f"player {seat}"))
    return state


def by_name(names: str) -> list[Card]:
    deck = {c.id: c for c in SEVEN_FOLLOWERS_DECK}
    return [deck[n] for n in names.split()]


def pass_all(state: GameState, passes: dict[int, list[Card]]) -> tuple[GameState, PassesExchanged]:
    exchanged: PassesExchanged | None = None
    for seat, chosen in passes.items():
        state, events = apply(state, PassCards(seat, tuple(chosen)))
        for e in events:
            if isinstance(e, PassesExchanged):
                exchanged = e
    assert exchanged is not None
    return state, exchanged


def test_R_3_3_the_holder_of_the_A_after_the_exchange_leads() -> None:
    deck = list(STANDARD_DECK)
    hands = tuple(tuple(deck[12 * s : 12 * s + 12]) for s in range(4))
    state, _ = apply(started(4, Scoring.BASIC), DealRound(hands, deck[48]))
    assert by_name("green-1")[0] in hands[0]
    passes = {s: list(hands[s][:3]) for s in range(4)}  # seat 0 passes the A to seat 2
    state, exchanged = pass_all(state, passes)
    assert exchanged.leader == 2 == oracle.first_leader(state.round.hands, deck[48])  # type: ignore[union-attr]


def test_R_3_3_when_the_A_is_the_trump_card_the_holder_of_blue_13_leads() -> None:
    a, blue13 = by_name("green-1 blue-13")
    deck = [c for c in STANDARD_DECK if c is not a]
    hands = tuple(tuple(deck[12 * s : 12 * s + 12]) for s in range(4))
    assert blue13 in hands[3]
    state, _ = apply(started(4, Scoring.BASIC), DealRound(hands, a))
    # Seat 3 keeps blue-13 (its last card); seat 1 passes to seat 3 as well.
    state, exchanged = pass_all(state, {s: list(hands[s][:3]) for s in range(4)})
    assert exchanged.leader == 3
    assert oracle.first_leader(state.round.hands, a) == 3  # type: ignore[union-attr]
    # Seat 3 then passes blue-13 to its partner in a game where seat 1 holds it.
    hands2 = (hands[0], hands[3], hands[2], hands[1])
    state, _ = apply(started(4, Scoring.BASIC), DealRound(hands2, a))
    passes = {s: list(hands2[s][:3]) for s in range(4)}
    passes[1] = list(hands2[1][-3:])  # blue-11 … blue-13 go to seat 3
    state, exchanged = pass_all(state, passes)
    assert exchanged.leader == 3


def seven_tricks_round(state: GameState) -> tuple[GameState, list[Event]]:
    """Deal three players so that seat 2 takes the first seven tricks with the A and six
    trumps while capturing fewer than three bosses (R-5.2), and play the round out."""
    trump = by_name("pink-3")[0]
    taker = by_name("green-1 pink-4 pink-5 pink-6 pink-7 pink-8 pink-9")
    rest = [c for c in STANDARD_DECK if c not in taker and c is not trump]
    junk = [c for c in rest if not c.is_boss][:9]
    others = [c for c in rest if c not in junk]
    hands = (tuple(others[:16]), tuple(others[16:32]), tuple(taker + junk))
    state, dealt_events = apply(state, DealRound(hands, trump))
    events: list[Event] = list(dealt_events)
    r = state.round
    assert r is not None
    passes = {s: [c for c in r.hands[s] if not c.is_boss and c not in taker][:3] for s in (0, 1, 2)}
    state, exchanged = pass_all(state, passes)
    events.append(exchanged)
    assert exchanged.leader == 2
    while state.phase is Phase.PLAYING:
        seat = state.turn()
        assert seat is not None
        legal = legal_cards(state, seat)
        if seat == 2:
            choice = max(
                (c for c in legal if c in taker), key=lambda c: (c.id == "green-1", c.rank)
            )
        else:
            choice = next((c for c in legal if not c.is_boss), legal[0])
        state, played = apply(state, PlayCard(seat, choice))
        events.extend(played)
    return state, events


@pytest.mark.parametrize(("scoring", "rounds"), [(Scoring.BASIC, 2), (Scoring.ADVANCED, 3)])
def test_R_6_5_a_three_player_tie_goes_to_the_left_of_the_seven_trick_taker(
    scoring: Scoring, rounds: int
) -> None:
    state = started(3, scoring)
    for number in range(1, rounds + 1):
        state, events = seven_tricks_round(state)
        (ended,) = [e for e in events if isinstance(e, RoundEnded)]
        assert ended.reason is RoundEndReason.SEVEN_TRICKS, "R-5.2"
        assert ended.winners == (0, 1) and ended.bosses_scored == ()
        assert ended.points == ((1, 1, 0) if scoring is Scoring.BASIC else (3, 3, 0)), "R-6.4"
        assert (state.phase is Phase.FINISHED) == (number == rounds)
    assert state.scores[0] == state.scores[1] > state.scores[2]
    end = oracle.StandardEnd(RoundEndReason.SEVEN_TRICKS, (0, 1), 2)
    assert oracle.standard_game_winner(3, scoring, state.scores, end) == (0,)
    assert state.winners == (0,), "R-6.5: the player on the left of seat 2 wins"
