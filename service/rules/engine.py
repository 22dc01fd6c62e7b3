"""The rules: ``decide`` (command -> events), ``evolve`` (state + event -> state), and the
legal actions of a seat. Pure and deterministic: no I/O, no clock, no randomness.

Longer than this project's 400 lines on purpose: one ``decide`` function per command and
one ``evolve`` function per event, side by side, so that a rule reads in one place from
the command that asks for it to the state it leaves (what cards are, how a view is made
and how Seven Followers seals are counted are modules of their own)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import replace
from enum import StrEnum

from service.rules.cards import (
    BLUE_13,
    POINTS_3P,
    STARS,
    SUITS,
    SUPER_TRUMP,
    Card,
    Suit,
    sort_cards,
)
from service.rules.commands import (
    Command,
    CreateGame,
    DealRound,
    DeclineSeat,
    EraseSeat,
    Expire,
    JoinSeat,
    Leave,
    PassCards,
    PlayCard,
    Rematch,
    Resign,
    RevealSeed,
    TimeOut,
)
from service.rules.config import (
    MAX_TURN_SECONDS,
    PLAYER_COUNTS,
    GameConfig,
    OnTimeout,
    Scoring,
    client_seed_problem,
)
from service.rules.errors import InvalidEventError, RuleViolationError, Violation
from service.rules.events import (
    CardPlayed,
    CardsPassed,
    Event,
    GameCreated,
    GameEnded,
    GameExpired,
    PassedCard,
    PassesExchanged,
    PresetDeal,
    Rematched,
    RoundDealt,
    RoundEnded,
    RoundEndReason,
    SeatDeclined,
    SeatErased,
    SeatJoined,
    SeatLeft,
    SeatResigned,
    SeedRevealed,
    SuitSealed,
    TrickTaken,
    TurnTimedOut,
)
from service.rules.state import (
    INITIAL,
    CompletedTrick,
    GameState,
    Phase,
    RoundResult,
    RoundState,
    new_game_state,
    new_round_state,
)

PASS_SIZE = 3


class Action(StrEnum):
    PASS = "pass"
    PLAY = "play"
    JOIN = "join"  # a seat reserved for a player waits for them (never a seat's own action)


# --- questions about a state -------------------------------------------------------


def expected_action(state: GameState, seat: int) -> Action | None:
    """What ``seat`` may do now: pass, play, or nothing."""
    r = state.round
    if r is None or state.config is None or not 0 <= seat < state.config.players:
        return None
    if state.phase is Phase.PASSING:
        return Action.PASS if r.given[seat] is None else None
    if state.phase is Phase.PLAYING and state.turn() == seat:
        return Action.PLAY
    return None


def legal_cards(state: GameState, seat: int) -> tuple[Card, ...]:
    """The cards ``seat`` may pass or play now (R-3.2, R-4.1, R-4.2); empty if none."""
    action = expected_action(state, seat)
    if action is None:
        return ()
    r = state.round
    assert r is not None
    hand = r.hands[seat]
    if action is Action.PASS or not r.trick:
        return hand
    led = r.trick[0][1].suit
    following = tuple(c for c in hand if c.suit is led)
    return following or hand


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


# --- decide -------------------------------------------------------------------------


def decide(state: GameState, command: Command) -> tuple[Event, ...]:
    """The events that ``command`` causes in ``state``, or :class:`RuleViolationError`."""
    match command:
        case PlayCard():
            return _play(state, command)
        case PassCards():
            return _pass(state, command)
        case JoinSeat():
            return _join(state, command)
        case DealRound():
            return _deal(state, command)
        case CreateGame():
            return _create(state, command)
        case TimeOut():
            return _timeout(state, command)
        case Leave():
            return _leave(state, command)
        case EraseSeat():
            return _erase(state, command)
        case Resign():
            return _resign(state, command)
        case RevealSeed():
            return _reveal(state, command)
        case DeclineSeat():
            return _decline(state, command)
        case Rematch():
            return _rematch(state, command)
        case Expire():
            if state.phase is not Phase.WAITING:
                raise _refuse(Violation.WRONG_PHASE, "only a game waiting for players expires")
            return (GameExpired(),)
    raise TypeError(f"not a command: {command!r}")  # pragma: no cover


def _refuse(code: Violation, detail: str) -> RuleViolationError:
    return RuleViolationError(code, detail)


def _config(state: GameState) -> GameConfig:
    if state.config is None:
        raise _refuse(Violation.WRONG_PHASE, "the game has not been created")
    return state.config


def _check_seat(cfg: GameConfig, seat: int) -> None:
    if not 0 <= seat < cfg.players:
        raise _refuse(Violation.UNKNOWN_SEAT, f"seat {seat} does not exist in this game")


def _create(state: GameState, cmd: CreateGame) -> tuple[Event, ...]:
    if state.phase is not Phase.NEW:
        raise _refuse(Violation.WRONG_PHASE, "the game already exists")
    if cmd.players not in PLAYER_COUNTS:
        raise _refuse(Violation.INVALID_OPTIONS, "a game has 3 or 4 players")
    cfg = GameConfig(cmd.players, cmd.scoring, cmd.variant)
    if cfg.seven_followers and cmd.players != 4:
        raise _refuse(Violation.INVALID_OPTIONS, f"{cmd.variant} is a four-player variant")
    if cmd.clock is not None and not 1 <= cmd.clock.turn_seconds <= MAX_TURN_SECONDS:
        raise _refuse(
            Violation.INVALID_OPTIONS, f"turn_seconds must be between 1 and {MAX_TURN_SECONDS}"
        )
    if cmd.reserved is not None:
        held = [p for p in cmd.reserved if p is not None]
        if len(cmd.reserved) != cmd.players or len(set(held)) != len(held):
            raise _refuse(
                Violation.INVALID_OPTIONS, "a seat is reserved for one player, a player gets one"
            )
    if cmd.rated and (cmd.seed is not None or cmd.deals is not None):
        raise _refuse(Violation.INVALID_OPTIONS, "a rated game takes no seed and no deals")
    for i, d in enumerate(cmd.deals or (), start=1):
        problem = deal_problem(cfg, d.hands, d.trump)
        if problem:
            raise _refuse(Violation.INVALID_DEAL, f"deal {i}: {problem}")
    if cmd.fairness is not None:
        # Dealt from its sealed seed; or, imported from a record (sealed None), from the
        # recorded deals, which the revealed seed must then give (rules/fairness.py).
        if cmd.seed is not None or (cmd.deals is None) != (cmd.fairness.sealed is not None):
            raise _refuse(
                Violation.INVALID_OPTIONS, "a game with a seed or preset deals is not dealt fairly"
            )
        if not _is_sha256(cmd.fairness.commitment):
            raise _refuse(Violation.INVALID_OPTIONS, "a commitment is a SHA-256 in hex")
    return (
        GameCreated(
            cmd.players,
            cmd.scoring,
            cmd.variant,
            cmd.seed,
            cmd.deals,
            cmd.clock,
            cmd.fairness,
            cmd.visibility,
            cmd.reserved,
            cmd.rated,
        ),
    )


def _is_sha256(text: str) -> bool:
    return len(text) == 64 and all(ch in "0123456789abcdef" for ch in text)


def _join(state: GameState, cmd: JoinSeat) -> tuple[Event, ...]:
    cfg = _config(state)
    _check_seat(cfg, cmd.seat)
    if state.phase is Phase.EXPIRED:
        raise _refuse(Violation.GAME_OVER, "the game expired waiting for players")
    if state.names[cmd.seat] is not None:
        raise _refuse(Violation.SEAT_TAKEN, f"seat {cmd.seat} is taken")
    reserved = _reserved_for(state, cmd.seat)
    if reserved is not None and cmd.player != reserved:
        raise _refuse(Violation.SEAT_RESERVED, f"seat {cmd.seat} is reserved for another player")
    if state.phase is not Phase.WAITING:  # pragma: no cover - every seat is taken then
        raise _refuse(Violation.WRONG_PHASE, "the game has started")
    rated = _config(state).rated
    if rated and cmd.player is None and cmd.bot is None:
        raise _refuse(Violation.PLAYERS_ONLY, "a rated game's seats are for players")
    seed = cmd.client_seed
    if state.fairness is None:
        seed = None  # only a fair game's deals take client seeds
    elif seed is None:
        raise _refuse(Violation.INVALID_CLIENT_SEED, "a fair game's seat needs a client seed")
    elif (problem := client_seed_problem(seed)) is not None:
        raise _refuse(Violation.INVALID_CLIENT_SEED, problem)
    # The player is recorded only where it decides something (a seat reserved for them,
    # a rated game's seat), so other joins' data is as it always was.
    player = cmd.player if reserved is not None or rated else None
    return (SeatJoined(cmd.seat, cmd.name, cmd.bot, seed, player),)


def _reserved_for(state: GameState, seat: int) -> str | None:
    return state.reserved[seat] if state.reserved else None


def _decline(state: GameState, cmd: DeclineSeat) -> tuple[Event, ...]:
    cfg = _config(state)
    _check_seat(cfg, cmd.seat)
    if state.phase is not Phase.WAITING:
        raise _refuse(Violation.WRONG_PHASE, "only a game waiting for players has seats to decline")
    reserved = _reserved_for(state, cmd.seat)
    if reserved is None:
        raise _refuse(Violation.NOT_RESERVED, f"seat {cmd.seat} is reserved for nobody")
    if reserved != cmd.player:
        raise _refuse(Violation.SEAT_RESERVED, f"seat {cmd.seat} is reserved for another player")
    return (SeatDeclined(cmd.seat, cmd.player),)


def _rematch(state: GameState, cmd: Rematch) -> tuple[Event, ...]:
    if state.phase is not Phase.FINISHED:
        detail = (
            "the game expired before it was played"
            if state.phase is Phase.EXPIRED
            else "a game is played again once it is finished"
        )
        raise _refuse(Violation.NOT_FINISHED, detail)
    if state.rematch is not None:
        raise _refuse(Violation.REMATCHED, f"the game is played again as {state.rematch}")
    return (Rematched(cmd.game_id),)


def _reveal(state: GameState, cmd: RevealSeed) -> tuple[Event, ...]:
    """docs/fairness.md: a fair game's server seed is revealed once it is finished."""
    fairness = state.fairness
    if fairness is None:
        raise _refuse(Violation.WRONG_PHASE, "the game was not dealt fairly: no seed to reveal")
    if state.phase is not Phase.FINISHED:
        raise _refuse(Violation.WRONG_PHASE, "the seed is revealed when the game is over")
    if state.server_seed is not None:
        raise _refuse(Violation.WRONG_PHASE, "the seed is revealed already")
    if not _reveals(cmd.server_seed, fairness.commitment):
        raise _refuse(Violation.INVALID_OPTIONS, "the seed does not match the commitment")
    return (SeedRevealed(cmd.server_seed),)


def _reveals(seed_hex: str, commitment: str) -> bool:
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        return False
    return seed.hex() == seed_hex and hashlib.sha256(seed).hexdigest() == commitment


def _playing_seat(state: GameState, seat: int, doing: str) -> GameConfig:
    """The config of a game in progress whose ``seat`` a person holds (not a bot)."""
    cfg = _config(state)
    _check_seat(cfg, seat)
    if state.phase in (Phase.FINISHED, Phase.EXPIRED):
        raise _refuse(Violation.GAME_OVER, f"the game is over: nobody may {doing}")
    if state.names[seat] is None:
        raise _refuse(Violation.SEAT_EMPTY, f"nobody holds seat {seat}")
    if state.bots[seat] is not None:
        raise _refuse(Violation.BOT_SEAT, f"a bot plays seat {seat}")
    return cfg


def _leave(state: GameState, cmd: Leave) -> tuple[Event, ...]:
    """A seat's player leaves: a bot plays the seat from now on, and the game goes on."""
    _playing_seat(state, cmd.seat, "leave")
    return (SeatLeft(cmd.seat, cmd.bot),)


ERASED_NAME = "erased player"
"""What an erased player's seats are called (docs/privacy.md)."""


def _erase(state: GameState, cmd: EraseSeat) -> tuple[Event, ...]:
    """Record that the seat's player was erased. A person still playing the seat leaves
    first (the caller makes the seat a bot's): the record changes no play."""
    cfg = _config(state)
    _check_seat(cfg, cmd.seat)
    name = state.names[cmd.seat]
    if name is None or name == ERASED_NAME:
        raise _refuse(Violation.SEAT_EMPTY, f"no player's name to erase on seat {cmd.seat}")
    under_way = state.phase not in (Phase.WAITING, Phase.FINISHED, Phase.EXPIRED)
    if under_way and state.bots[cmd.seat] is None:
        raise _refuse(Violation.WRONG_PHASE, f"a person plays seat {cmd.seat}: it leaves first")
    return (SeatErased(cmd.seat),)


def _on_erased(state: GameState, e: SeatErased) -> GameState:
    seat = e.seat
    _expect(0 <= seat < len(state.names) and state.names[seat] is not None, "seat held")
    if state.phase is Phase.WAITING:  # the seat is free again
        players = state.players
        if players:
            players = (*players[:seat], None, *players[seat + 1 :])
        return replace(
            state,
            names=(*state.names[:seat], None, *state.names[seat + 1 :]),
            bots=(*state.bots[:seat], None, *state.bots[seat + 1 :]),
            client_seeds=(*state.client_seeds[:seat], None, *state.client_seeds[seat + 1 :]),
            players=players,
        )
    return replace(state, names=(*state.names[:seat], ERASED_NAME, *state.names[seat + 1 :]))


def _resign(state: GameState, cmd: Resign) -> tuple[Event, ...]:
    """A seat gives up: the round and the game end, the seat's side losing."""
    _playing_seat(state, cmd.seat, "resign")
    if state.phase is Phase.WAITING:
        raise _refuse(Violation.NOT_STARTED, "the game has not started: there is nothing to resign")
    resigned = SeatResigned(cmd.seat)
    return (resigned, *_forfeit_end(state, (cmd.seat,), RoundEndReason.RESIGN))


def _timeout(state: GameState, cmd: TimeOut) -> tuple[Event, ...]:
    """Seats whose turn clock ran out: each must still be due to act. With ``autoplay``
    the caller then makes their moves; with ``forfeit`` the round and game end, every
    side with a late seat losing (should every side have one, nobody wins)."""
    cfg = _config(state)
    if not cmd.seats or len(set(cmd.seats)) != len(cmd.seats):
        raise _refuse(Violation.INVALID_OPTIONS, "name each late seat once")
    for seat in cmd.seats:
        _check_seat(cfg, seat)
        if expected_action(state, seat) is None:
            raise _refuse(Violation.NOT_YOUR_TURN, f"seat {seat} has nothing to do now")
    late = tuple(TurnTimedOut(seat, cmd.outcome) for seat in sorted(cmd.seats))
    if cmd.outcome is OnTimeout.AUTOPLAY:
        return late
    return (*late, *_forfeit_end(state, cmd.seats, RoundEndReason.FORFEIT))


def _forfeit_end(
    state: GameState, losing: Iterable[int], reason: RoundEndReason
) -> tuple[RoundEnded, GameEnded]:
    """The round in progress ends unscored and the game with it; the sides of the
    ``losing`` seats lose, the others win."""
    cfg = state.config
    r = state.round
    assert cfg is not None and r is not None
    losers = {cfg.side_of(seat) for seat in losing}
    winners = tuple(side for side in range(cfg.sides) if side not in losers)
    ended = RoundEnded(r.number, reason, winners, (0,) * cfg.sides, ())
    return ended, GameEnded(winners)


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
    after = evolve(state, passed)
    return (passed, _exchange(after))


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
    s = evolve(state, played)
    rs = s.round
    assert rs is not None
    taken = TrickTaken(rs.tricks_played + 1, trick_winner(rs.trick, rs.trump_suit))
    events.append(taken)
    s = evolve(s, taken)
    if cfg.seven_followers:
        events.extend(_seven_followers_after_trick(s, taken.winner))
    else:
        events.extend(_standard_after_trick(s))
    return tuple(events)


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


# --- evolve -------------------------------------------------------------------------


def evolve(state: GameState, event: Event) -> GameState:
    """The state after ``event``. Raises :class:`InvalidEventError` if it cannot follow."""
    match event:
        case CardPlayed():
            return _on_played(state, event)
        case TrickTaken():
            return _on_trick(state, event)
        case CardsPassed():
            return _on_passed(state, event)
        case PassesExchanged():
            return _on_exchanged(state, event)
        case RoundDealt():
            return _on_dealt(state, event)
        case SeatJoined():
            return _on_joined(state, event)
        case SeatDeclined():
            _expect(
                state.phase is Phase.WAITING and _reserved_for(state, event.seat) is not None,
                "a seat reserved in a waiting game is declined",
            )
            return replace(state, reserved=_unreserved(state.reserved, event.seat))
        case SuitSealed():
            return _on_sealed(state, event)
        case RoundEnded():
            return _on_round_ended(state, event)
        case GameEnded():
            return _on_game_ended(state, event)
        case GameCreated():
            return _on_created(state, event)
        case SeatLeft():
            return _on_left(state, event)
        case SeatErased():
            return _on_erased(state, event)
        case TurnTimedOut():
            _expect(expected_action(state, event.seat) is not None, "a timed-out seat was due")
            return state
        case SeatResigned():
            _expect(state.phase in _UNDER_WAY, "a seat resigns from a game under way")
            return state
        case GameExpired():
            _expect(state.phase is Phase.WAITING, "only a waiting game expires")
            return replace(state, phase=Phase.EXPIRED)
        case Rematched():
            _expect(
                state.phase is Phase.FINISHED and state.rematch is None,
                "a finished game is played again once",
            )
            return replace(state, rematch=event.game_id)
        case SeedRevealed():
            _expect(
                state.phase is Phase.FINISHED
                and state.fairness is not None
                and state.server_seed is None
                and _reveals(event.server_seed, state.fairness.commitment),
                "a finished fair game's seed, revealed once, matching its commitment",
            )
            return replace(state, server_seed=event.server_seed)
    raise TypeError(f"not an event: {event!r}")  # pragma: no cover


def fold(events: Iterable[Event], state: GameState = INITIAL) -> GameState:
    """Apply events in order (replay)."""
    for e in events:
        state = evolve(state, e)
    return state


def _expect(condition: bool, what: str) -> None:
    if not condition:
        raise InvalidEventError(what)


def _round(state: GameState, phase: Phase) -> tuple[GameConfig, RoundState]:
    _expect(state.phase is phase, f"expected phase {phase}, the game is {state.phase}")
    assert state.config is not None and state.round is not None
    return state.config, state.round


def _on_created(state: GameState, e: GameCreated) -> GameState:
    _expect(state.phase is Phase.NEW, "the game exists already")
    _expect(e.players in PLAYER_COUNTS, "a game has 3 or 4 players")
    cfg = GameConfig(e.players, e.scoring, e.variant, e.clock, e.visibility, e.rated)
    return replace(
        state,
        config=cfg,
        phase=Phase.WAITING,
        names=(None,) * cfg.players,
        bots=(None,) * cfg.players,
        scores=(0,) * cfg.sides,
        seals=((), ()) if cfg.seven_followers else (),
        seed=e.seed,
        deals=e.deals,
        fairness=e.fairness,
        client_seeds=(None,) * cfg.players,
        reserved=e.reserved if e.reserved is not None else (),
    )


def _on_joined(state: GameState, e: SeatJoined) -> GameState:
    _expect(state.phase is Phase.WAITING, "seats are joined only while waiting")
    _expect(0 <= e.seat < len(state.names) and state.names[e.seat] is None, "seat not free")
    names = (*state.names[: e.seat], e.name, *state.names[e.seat + 1 :])
    bots = (*state.bots[: e.seat], e.bot, *state.bots[e.seat + 1 :])
    seeds = state.client_seeds
    if e.client_seed is not None:
        _expect(state.fairness is not None, "client seeds belong to fair games")
        seeds = (*seeds[: e.seat], e.client_seed, *seeds[e.seat + 1 :])
    phase = Phase.DEALING if all(n is not None for n in names) else Phase.WAITING
    reserved = _unreserved(state.reserved, e.seat)
    players = state.players
    if e.player is not None:
        players = players or (None,) * len(names)
        players = (*players[: e.seat], e.player, *players[e.seat + 1 :])
    return replace(
        state,
        names=names,
        bots=bots,
        phase=phase,
        client_seeds=seeds,
        reserved=reserved,
        players=players,
    )


def _unreserved(reserved: tuple[str | None, ...], seat: int) -> tuple[str | None, ...]:
    if not reserved:
        return reserved
    return (*reserved[:seat], None, *reserved[seat + 1 :])


_UNDER_WAY = (Phase.PASSING, Phase.PLAYING)


def _on_left(state: GameState, e: SeatLeft) -> GameState:
    _expect(state.phase is not Phase.FINISHED, "nobody leaves a finished game")
    _expect(0 <= e.seat < len(state.names) and state.names[e.seat] is not None, "seat held")
    _expect(state.bots[e.seat] is None, "a person held the seat")
    bots = (*state.bots[: e.seat], e.bot, *state.bots[e.seat + 1 :])
    return replace(state, bots=bots)


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


def _on_passed(state: GameState, e: CardsPassed) -> GameState:
    _, r = _round(state, Phase.PASSING)
    _expect(e.cards is not None and r.given[e.seat] is None, "a pass is given once")
    given = (*r.given[: e.seat], e.cards, *r.given[e.seat + 1 :])
    return replace(state, round=replace(r, given=given))


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
