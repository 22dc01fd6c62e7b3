"""Hand records: a game as a readable, parseable text (docs/record-format.md) and as JSON.

A record is built from a game's events for one viewer and holds only what that viewer
may see (API.md "Hand records": before the end a seat sees its own hands and passes, the
public none; after it, and for operators, everything). It is rendered as text or JSON,
and parsed back from text; :func:`commands_of` turns a complete record into the rules'
commands that replay it (the import).

Our own format because there is none for this game; it follows PGN's shape (tags, then
the moves) so that it reads like a card-game record. Every line names a line kind, so a
parser (ours or anyone's) needs no lookahead.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from service import rules
from service.rules.events import (
    CardPlayed,
    CardsPassed,
    Event,
    GameCreated,
    PassesExchanged,
    RoundDealt,
    RoundEnded,
    SeatJoined,
    SeatLeft,
    SeatResigned,
    SeedRevealed,
    TrickTaken,
    TurnTimedOut,
)

FORMAT = "yokai-record-1"
HIDDEN = "?"
NAME_MAX = 40  # as a join takes it (service/web/schemas.py)


@dataclass(frozen=True, slots=True)
class Move:
    """One command of a round, in play order. ``kind``: pass, play, leave, resign or
    timeout; ``cards``: a pass's three (None where hidden) or a play's one; ``option``:
    a leave's bot level or a timeout's outcome. ``line``: where a parsed record had it."""

    kind: str
    seats: tuple[int, ...]
    cards: tuple[str | None, ...] = ()
    option: str | None = None
    line: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class Result:
    reason: str
    winners: tuple[int, ...]
    points: tuple[int, ...]
    bosses: tuple[str, ...]
    line: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class RoundRecord:
    number: int
    hands: tuple[tuple[str, ...] | None, ...]  # by seat, as dealt; None: hidden
    trump: str | None
    moves: tuple[Move, ...] = ()
    tricks: tuple[int, ...] = ()  # the winner of each trick taken, in order
    result: Result | None = None
    line: int = field(default=0, compare=False)
    hand_lines: tuple[int, ...] = field(default=(), compare=False)


@dataclass(frozen=True, slots=True)
class Seat:
    name: str | None
    bot: str | None = None  # the bot that took the seat when joined or before the first deal
    client_seed: str | None = None


@dataclass(frozen=True, slots=True)
class HandRecord:
    players: int
    scoring: str
    variant: str
    clock: tuple[int, str] | None
    seats: tuple[Seat, ...]
    fairness: str  # yokai-shuffle-v1, operator or unverified
    commitment: str | None
    server_seed: str | None
    status: str
    winners: tuple[int, ...] | None
    scores: tuple[int, ...]
    rounds: tuple[RoundRecord, ...]
    lines: dict[str, int] = field(default_factory=dict, compare=False)  # tag -> line


class RecordError(ValueError):
    """Text that is not a record (or not a complete one), naming the line."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


# --- building -------------------------------------------------------------------------


def build(events: Sequence[Event], state: rules.GameState, viewer: rules.Viewer) -> HandRecord:
    """The record of the game these events make (``state`` is their fold) as ``viewer``
    may see it."""
    cfg = state.config
    assert cfg is not None
    finished = state.phase is rules.Phase.FINISHED
    everything = finished or isinstance(viewer, rules.OperatorViewer)
    me = viewer.seat if isinstance(viewer, rules.SeatViewer) else None
    created = events[0]
    assert isinstance(created, GameCreated)
    seats: list[Seat] = [Seat(None)] * cfg.players
    rounds: list[RoundRecord] = []
    server_seed = None

    def visible(seat: int) -> bool:
        return everything or seat == me

    exchanged = _exchanged_passes(events)
    for i, e in enumerate(events):
        match e:
            case SeatJoined(seat, name, bot, client_seed):
                seats[seat] = Seat(name, bot.value if bot else None, client_seed)
            case RoundDealt(number, hands, trump):
                shown = tuple(
                    tuple(c.id for c in h) if h is not None and visible(s) else None
                    for s, h in enumerate(hands)
                )
                rounds.append(RoundRecord(number, shown, trump.id if trump else None))
            case CardsPassed(seat, cards):
                assert cards is not None
                targets = cfg.pass_targets(seat)
                shown_cards = tuple(
                    c.id if visible(seat) or (i in exchanged and targets[k] == me) else None
                    for k, c in enumerate(cards)
                )
                _add(rounds, Move("pass", (seat,), shown_cards))
            case CardPlayed(seat, c):
                _add(rounds, Move("play", (seat,), (c.id,)))
            case SeatLeft(seat, bot) if not rounds:
                # Left before the first deal: the bot plays the seat from the start, as
                # if it had taken the seat when it was joined (a `Bot` tag).
                seats[seat] = replace(seats[seat], bot=bot.value)
            case SeatLeft(seat, bot):
                _add(rounds, Move("leave", (seat,), (), bot.value))
            case SeatResigned(seat):
                _add(rounds, Move("resign", (seat,)))
            case TurnTimedOut(seat, outcome):
                before = events[i - 1]
                last = rounds[-1].moves[-1] if rounds[-1].moves else None
                if (
                    isinstance(before, TurnTimedOut)
                    and before.outcome is outcome
                    and last is not None
                    and seat not in last.seats
                ):
                    # One command times out every late seat: its events come together.
                    grown = replace(last, seats=(*last.seats, seat))
                    rounds[-1] = replace(rounds[-1], moves=(*rounds[-1].moves[:-1], grown))
                else:
                    _add(rounds, Move("timeout", (seat,), (), outcome.value))
            case TrickTaken(_, winner):
                rounds[-1] = replace(rounds[-1], tricks=(*rounds[-1].tricks, winner))
            case RoundEnded(_, reason, winners, points, bosses):
                result = Result(reason.value, winners, points, tuple(c.id for c in bosses))
                rounds[-1] = replace(rounds[-1], result=result)
            case SeedRevealed(seed):
                server_seed = seed
    view = rules.observe(state, rules.PUBLIC)
    assert view.fairness is not None
    clock = None if cfg.clock is None else (cfg.clock.turn_seconds, cfg.clock.on_timeout.value)
    return HandRecord(
        players=cfg.players,
        scoring=cfg.scoring.value,
        variant=cfg.variant.value,
        clock=clock,
        seats=tuple(seats),
        fairness=view.fairness.algorithm,
        commitment=view.fairness.commitment,
        server_seed=server_seed,
        status=view.status,
        winners=state.winners,
        scores=state.scores,
        rounds=tuple(rounds),
    )


def _add(rounds: list[RoundRecord], move: Move) -> None:
    rounds[-1] = replace(rounds[-1], moves=(*rounds[-1].moves, move))


def _exchanged_passes(events: Sequence[Event]) -> set[int]:
    """The indices of the CardsPassed events whose round has exchanged its passes: only
    then does a receiver know the cards it got."""
    done: set[int] = set()
    pending: list[int] = []
    for i, e in enumerate(events):
        if isinstance(e, CardsPassed):
            pending.append(i)
        elif isinstance(e, PassesExchanged):
            done.update(pending)
            pending.clear()
    return done


# --- text ----------------------------------------------------------------------------

_TAG = re.compile(r'^\[([A-Za-z][A-Za-z0-9]*) ("(?:[^"\\]|\\.)*")\]$')


def _tag(name: str, value: str) -> str:
    return f"[{name} {json.dumps(value, ensure_ascii=False)}]"


def _ints(values: Iterable[int]) -> str:
    return " ".join(str(v) for v in values)


def _card_text(c: str | None) -> str:
    return HIDDEN if c is None else c


def to_text(record: HandRecord) -> str:
    out = [
        _tag("Format", FORMAT),
        _tag("Players", str(record.players)),
        _tag("Scoring", record.scoring),
        _tag("Variant", record.variant),
    ]
    if record.clock is not None:
        out.append(_tag("Clock", f"{record.clock[0]} {record.clock[1]}"))
    for i, seat in enumerate(record.seats):
        if seat.name is not None:
            out.append(_tag(f"Seat{i}", seat.name))
        if seat.bot is not None:
            out.append(_tag(f"Bot{i}", seat.bot))
    out.append(_tag("Fairness", record.fairness))
    if record.commitment is not None:
        out.append(_tag("Commitment", record.commitment))
    for i, seat in enumerate(record.seats):
        if seat.client_seed is not None:
            out.append(_tag(f"ClientSeed{i}", seat.client_seed))
    if record.server_seed is not None:
        out.append(_tag("ServerSeed", record.server_seed))
    out.append(_tag("Status", record.status))
    if record.winners is not None:
        out.append(_tag("Winners", _ints(record.winners)))
    out.append(_tag("Scores", _ints(record.scores)))
    for r in record.rounds:
        out += ["", f"Round {r.number}"]
        for number, hand in enumerate(r.hands):
            out.append(f"Deal {number}: {HIDDEN if hand is None else ' '.join(hand)}")
        out.append(f"Trump: {r.trump or 'none'}")
        out += _move_lines(r)
        if r.result is not None:
            x = r.result
            out.append(
                f"Result: {x.reason}; winners {_ints(x.winners)}; points {_ints(x.points)}; "
                f"bosses {' '.join(x.bosses)}".rstrip()
            )
    return "\n".join(out) + "\n"


def _item(m: Move) -> str:
    match m.kind:
        case "play":
            return f"{m.seats[0]} {_card_text(m.cards[0])}"
        case "leave":
            return f"Leave {m.seats[0]} {m.option}"
        case "resign":
            return f"Resign {m.seats[0]}"
        case "timeout":
            return f"Timeout {_ints(m.seats)} {m.option}"
    raise ValueError(m.kind)  # pragma: no cover - passes are never inside a trick


def _line(m: Move) -> str:
    match m.kind:
        case "pass":
            return f"Pass {m.seats[0]}: {' '.join(_card_text(c) for c in m.cards)}"
        case "leave":
            return f"Leave {m.seats[0]}: {m.option}"
        case "resign":
            return f"Resign {m.seats[0]}"
        case "timeout":
            return f"Timeout {_ints(m.seats)}: {m.option}"
    raise ValueError(m.kind)  # pragma: no cover - plays are always in a trick line


def _move_lines(r: RoundRecord) -> list[str]:
    """Moves outside a trick get a line each; a trick's plays, and what happened between
    them, share the trick's line."""
    lines: list[str] = []
    trick: list[str] = []
    plays = 0
    number = 0
    for m in r.moves:
        if m.kind == "play":
            if not trick:
                number += 1
            trick.append(_item(m))
            plays += 1
            if plays == len(r.hands):
                winner = r.tricks[number - 1] if number <= len(r.tricks) else None
                lines.append(_trick_line(number, trick, winner))
                trick, plays = [], 0
        elif trick:
            trick.append(_item(m))
        else:
            lines.append(_line(m))
    if trick:
        lines.append(_trick_line(number, trick, None))
    return lines


def _trick_line(number: int, items: list[str], winner: int | None) -> str:
    end = "" if winner is None else f"; won by {winner}"
    return f"Trick {number}: {', '.join(items)}{end}"


# --- JSON ----------------------------------------------------------------------------


def _move_json(m: Move) -> dict[str, Any]:
    match m.kind:
        case "pass":
            return {"type": "pass", "seat": m.seats[0], "cards": list(m.cards)}
        case "play":
            return {"type": "play", "seat": m.seats[0], "card": m.cards[0]}
        case "leave":
            return {"type": "leave", "seat": m.seats[0], "bot": m.option}
        case "resign":
            return {"type": "resign", "seat": m.seats[0]}
    return {"type": "timeout", "seats": list(m.seats), "outcome": m.option}


def to_json(record: HandRecord) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "players": record.players,
        "scoring": record.scoring,
        "variant": record.variant,
        "clock": None
        if record.clock is None
        else {"turn_seconds": record.clock[0], "on_timeout": record.clock[1]},
        "seats": [
            {"name": s.name, "bot": s.bot, "client_seed": s.client_seed} for s in record.seats
        ],
        "fairness": {
            "algorithm": record.fairness,
            "commitment": record.commitment,
            "server_seed": record.server_seed,
        },
        "status": record.status,
        "winners": None if record.winners is None else list(record.winners),
        "scores": list(record.scores),
        "rounds": [
            {
                "number": r.number,
                "hands": [None if h is None else list(h) for h in r.hands],
                "trump": r.trump,
                "moves": [_move_json(m) for m in r.moves],
                "tricks": list(r.tricks),
                "result": None
                if r.result is None
                else {
                    "reason": r.result.reason,
                    "winners": list(r.result.winners),
                    "points": list(r.result.points),
                    "bosses": list(r.result.bosses),
                },
            }
            for r in record.rounds
        ],
    }


# --- parsing -------------------------------------------------------------------------

_SEAT_TAG = re.compile(r"^(Seat|Bot|ClientSeed)(\d)$")
_KNOWN_TAGS = {
    "Format",
    "Players",
    "Scoring",
    "Variant",
    "Clock",
    "Fairness",
    "Commitment",
    "ServerSeed",
    "Status",
    "Winners",
    "Scores",
}


def _int(text: str, line: int, what: str) -> int:
    if not re.fullmatch(r"\d{1,9}", text):
        raise RecordError(line, f"{what} is not a number: {text!r}")
    return int(text)


def _int_list(text: str, line: int, what: str) -> tuple[int, ...]:
    return tuple(_int(t, line, what) for t in text.split())


def _card_id(text: str, line: int) -> str | None:
    if text == HIDDEN:
        return None
    try:
        return rules.card(text).id
    except rules.UnknownCardError:
        raise RecordError(line, f"unknown card {text!r}") from None


def parse(text: str) -> HandRecord:
    """A record from its text (:class:`RecordError` naming the first bad line)."""
    tags: dict[str, str] = {}
    lines_of: dict[str, int] = {}
    rounds: list[RoundRecord] = []
    lines = text.splitlines()
    if not lines or not lines[0].startswith("["):
        raise RecordError(1, 'a record starts with its tags, e.g. [Format "yokai-record-1"]')
    for n, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("["):
            if rounds:
                raise RecordError(n, "tags come before the first round")
            m = _TAG.match(line)
            if m is None:
                raise RecordError(n, 'a tag is [Name "value"]')
            name = m.group(1)
            if name not in _KNOWN_TAGS and not _SEAT_TAG.match(name):
                raise RecordError(n, f"unknown tag {name}")
            if name in tags:
                raise RecordError(n, f"tag {name} is given twice")
            try:
                value = json.loads(m.group(2))
            except json.JSONDecodeError:
                raise RecordError(n, "a tag's value is a quoted string") from None
            tags[name], lines_of[name] = value, n
            continue
        kind, _, rest = line.partition(" ")
        if kind == "Round":
            number = _int(rest, n, "a round number")
            if number != len(rounds) + 1:
                raise RecordError(n, f"round {len(rounds) + 1} comes next, not {number}")
            rounds.append(RoundRecord(number, (), None, line=n))
            continue
        if not rounds:
            raise RecordError(n, f"{kind!r} before the first round")
        rounds[-1] = _round_line(rounds[-1], kind, rest, n)
    return _with_tags(tags, lines_of, tuple(rounds), len(lines))


def _round_line(r: RoundRecord, kind: str, rest: str, n: int) -> RoundRecord:
    head, colon, body = rest.partition(":")
    body = body.strip()
    match kind:
        case "Deal":
            seat = _int(head, n, "a seat")
            if seat != len(r.hands):
                raise RecordError(n, f"the deal of seat {len(r.hands)} comes next")
            hand = None if body == HIDDEN else tuple(_card_id(c, n) or "" for c in body.split())
            if hand is not None and "" in hand:
                raise RecordError(n, "a hand is all shown or all hidden ('?')")
            return replace(r, hands=(*r.hands, hand), hand_lines=(*r.hand_lines, n))
        case "Trump:":
            return replace(r, trump=None if rest.strip() == "none" else _card_id(rest.strip(), n))
        case "Pass":
            cards = tuple(_card_id(c, n) for c in body.split())
            return _with_move(r, Move("pass", (_int(head, n, "a seat"),), cards, line=n))
        case "Leave":
            return _with_move(r, Move("leave", (_int(head, n, "a seat"),), (), body, line=n))
        case "Resign":
            return _with_move(r, Move("resign", (_int(rest, n, "a seat"),), line=n))
        case "Timeout":
            return _with_move(r, Move("timeout", _int_list(head, n, "a seat"), (), body, line=n))
        case "Trick":
            return _trick(r, head, body, n) if colon else _bad(n, "a trick is 'Trick N: ...'")
        case "Result:":
            return replace(r, result=_result(rest, n))
    raise RecordError(n, f"unknown line {kind!r}")


def _bad(n: int, reason: str) -> RoundRecord:
    raise RecordError(n, reason)


def _with_move(r: RoundRecord, move: Move) -> RoundRecord:
    return replace(r, moves=(*r.moves, move))


def _trick(r: RoundRecord, head: str, body: str, n: int) -> RoundRecord:
    number = _int(head, n, "a trick number")
    if number != len(r.tricks) + 1:
        raise RecordError(n, f"trick {len(r.tricks) + 1} comes next, not {number}")
    items, _, won = body.partition(";")
    moves = list(r.moves)
    for item in (i.strip() for i in items.split(",")):
        words = item.split()
        if len(words) == 2 and words[0].isdigit():
            moves.append(
                Move("play", (_int(words[0], n, "a seat"),), (_card_id(words[1], n),), line=n)
            )
        elif words and words[0] == "Leave" and len(words) == 3:
            moves.append(Move("leave", (_int(words[1], n, "a seat"),), (), words[2], line=n))
        elif words and words[0] == "Resign" and len(words) == 2:
            moves.append(Move("resign", (_int(words[1], n, "a seat"),), line=n))
        elif words and words[0] == "Timeout" and len(words) >= 3:
            seats = tuple(_int(w, n, "a seat") for w in words[1:-1])
            moves.append(Move("timeout", seats, (), words[-1], line=n))
        else:
            raise RecordError(n, f"not a play: {item!r}")
    tricks = r.tricks
    won = won.strip()
    if won:
        if not won.startswith("won by "):
            raise RecordError(n, "a trick ends with '; won by SEAT'")
        tricks = (*tricks, _int(won.removeprefix("won by "), n, "a seat"))
    return replace(r, moves=tuple(moves), tricks=tricks)


def _result(text: str, n: int) -> Result:
    parts = [p.strip() for p in text.split(";")]
    if len(parts) != 4:
        raise RecordError(n, "a result is 'REASON; winners ...; points ...; bosses ...'")
    reason, winners, points, bosses = parts
    fields_ = {"winners": winners, "points": points, "bosses": bosses}
    for key, value in fields_.items():
        if not value.startswith(key):
            raise RecordError(n, f"expected '{key} ...' in the result")
    return Result(
        reason,
        _int_list(winners.removeprefix("winners"), n, "a winner"),
        _int_list(points.removeprefix("points"), n, "points"),
        tuple(_card_id(c, n) or "" for c in bosses.removeprefix("bosses").split()),
        line=n,
    )


def _with_tags(
    tags: dict[str, str], lines_of: dict[str, int], rounds: tuple[RoundRecord, ...], end: int
) -> HandRecord:
    def need(name: str) -> str:
        if name not in tags:
            raise RecordError(end, f"the tag {name} is missing")
        return tags[name]

    if need("Format") != FORMAT:
        raise RecordError(lines_of["Format"], f"this reads {FORMAT} records")
    players = _int(need("Players"), lines_of["Players"], "Players")
    if players not in (3, 4):
        raise RecordError(lines_of["Players"], "a game has 3 or 4 players")
    clock = None
    if "Clock" in tags:
        seconds, _, outcome = tags["Clock"].partition(" ")
        clock = (_int(seconds, lines_of["Clock"], "the clock's seconds"), outcome)
    seats = tuple(
        Seat(tags.get(f"Seat{s}"), tags.get(f"Bot{s}"), tags.get(f"ClientSeed{s}"))
        for s in range(players)
    )
    winners = None
    if "Winners" in tags:
        winners = _int_list(tags["Winners"], lines_of["Winners"], "a winner")
    return HandRecord(
        players=players,
        scoring=need("Scoring"),
        variant=need("Variant"),
        clock=clock,
        seats=seats,
        fairness=need("Fairness"),
        commitment=tags.get("Commitment"),
        server_seed=tags.get("ServerSeed"),
        status=need("Status"),
        winners=winners,
        scores=_int_list(need("Scores"), lines_of["Scores"], "a score"),
        rounds=rounds,
        lines=lines_of | {"end": end},
    )


# --- import --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Replay:
    """The rules' commands that play a complete record again, each with its line."""

    create: rules.CreateGame
    joins: tuple[rules.JoinSeat, ...]
    moves: tuple[tuple[int, rules.Command], ...]
    reveal: rules.RevealSeed | None


def replay_of(record: HandRecord) -> Replay:
    """The commands of a complete record (a finished game, every card shown), or
    :class:`RecordError` naming the line that makes it incomplete or unreadable."""
    lines = record.lines
    end = lines.get("end", 1)
    if record.status != "finished":
        raise RecordError(lines.get("Status", end), "only a finished game's record is complete")
    try:
        scoring = rules.Scoring(record.scoring)
    except ValueError:
        raise RecordError(
            lines.get("Scoring", end), f"unknown scoring {record.scoring!r}"
        ) from None
    try:
        variant = rules.Variant(record.variant)
    except ValueError:
        raise RecordError(
            lines.get("Variant", end), f"unknown variant {record.variant!r}"
        ) from None
    clock = None
    if record.clock is not None:
        outcome = _choice(rules.OnTimeout, record.clock[1], lines.get("Clock", end), "on_timeout")
        clock = rules.TurnClock(record.clock[0], outcome)
    if not record.rounds:
        raise RecordError(end, "the record has no round")
    deals = []
    for r in record.rounds:
        for seat, hand in enumerate(r.hands):
            if hand is None:
                line = r.hand_lines[seat] if seat < len(r.hand_lines) else r.line
                raise RecordError(line, "a hand is hidden: import takes a record that shows all")
        hands = tuple(tuple(rules.card(c) for c in h or ()) for h in r.hands)
        deals.append(rules.PresetDeal(hands, rules.card(r.trump) if r.trump else None))
    fairness = None
    reveal = None
    if record.fairness == rules.SHUFFLE_ALGORITHM:
        if record.commitment is None or record.server_seed is None:
            raise RecordError(end, "a fair game's record gives its Commitment and ServerSeed")
        if any(s.client_seed is None for s in record.seats):
            raise RecordError(end, "a fair game's record gives every seat's ClientSeed")
        fairness = rules.FairShuffle(record.commitment, None)
        reveal = rules.RevealSeed(record.server_seed)
    elif record.fairness not in ("operator", "unverified"):
        raise RecordError(lines.get("Fairness", end), f"unknown fairness {record.fairness!r}")
    create = rules.CreateGame(record.players, scoring, variant, None, tuple(deals), clock, fairness)
    joins = []
    for seat, s in enumerate(record.seats):
        if s.name is None:
            raise RecordError(end, f"the tag Seat{seat} is missing")
        if not 1 <= len(s.name) <= NAME_MAX or not s.name.strip() or not s.name.isprintable():
            line = record.lines.get(f"Seat{seat}", end)
            raise RecordError(line, f"a seat's name is 1 to {NAME_MAX} printable characters")
        bot = None if s.bot is None else _choice(rules.BotLevel, s.bot, end, "bot")
        joins.append(rules.JoinSeat(seat, s.name, bot, s.client_seed if fairness else None))
    moves: list[tuple[int, rules.Command]] = []
    for r in record.rounds:
        for m in r.moves:
            moves.append((m.line, _command(m)))
    return Replay(create, tuple(joins), tuple(moves), reveal)


def _choice(kind: Any, value: str, line: int, what: str) -> Any:
    try:
        return kind(value)
    except ValueError:
        raise RecordError(line, f"unknown {what} {value!r}") from None


def _command(m: Move) -> rules.Command:
    if any(c is None for c in m.cards):
        raise RecordError(m.line, "a card is hidden: import takes a record that shows all")
    cards = tuple(rules.card(c) for c in m.cards if c is not None)
    match m.kind:
        case "pass":
            return rules.PassCards(m.seats[0], cards)
        case "play":
            return rules.PlayCard(m.seats[0], cards[0])
        case "leave":
            return rules.Leave(m.seats[0], _choice(rules.BotLevel, m.option or "", m.line, "bot"))
        case "resign":
            return rules.Resign(m.seats[0])
    outcome = _choice(rules.OnTimeout, m.option or "", m.line, "outcome")
    return rules.TimeOut(m.seats, outcome)


def mismatch(record: HandRecord, replayed: HandRecord) -> RecordError | None:
    """Where a record says something its replay does not (trick winners, round results,
    the final tags), or None when they agree."""
    end = record.lines.get("end", 1)
    for mine, theirs in zip(record.rounds, replayed.rounds, strict=False):
        if mine.tricks != theirs.tricks:
            return RecordError(
                mine.line,
                f"round {mine.number}: the tricks were won by "
                f"{_ints(theirs.tricks)}, not {_ints(mine.tricks)}",
            )
        if mine.result is None and theirs.result is not None:  # cut off before it
            line = max((m.line for m in mine.moves), default=mine.line)
            return RecordError(line, f"round {mine.number} ends here, but the record has no Result")
        if mine.result != theirs.result:
            line = mine.result.line if mine.result is not None else mine.line
            return RecordError(line, f"round {mine.number} ends otherwise under the rules")
    if len(record.rounds) != len(replayed.rounds):
        return RecordError(
            end, f"the game has {len(replayed.rounds)} rounds, not {len(record.rounds)}"
        )
    for tag, want, got in (
        ("Winners", record.winners, replayed.winners),
        ("Scores", record.scores, replayed.scores),
    ):
        if want != got:
            return RecordError(record.lines.get(tag, end), f"{tag} is {got} under the rules")
    return None
