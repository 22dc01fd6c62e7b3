"""A record read back from its text, with the line of every part, so that errors name the line."""

from __future__ import annotations

import json
import re
from dataclasses import replace

from service import rules
from service.application.handrecords.model import (
    FORMAT,
    HIDDEN,
    HandRecord,
    Move,
    RecordError,
    Result,
    RoundRecord,
    Seat,
)
from service.application.handrecords.text import _TAG

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
