"""A record as text (docs/record-format.md): our own format, shaped like PGN (tags, then
the moves), every line naming its kind so that a parser needs no lookahead."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from service.application.handrecords.model import FORMAT, HIDDEN, HandRecord, Move, RoundRecord

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
