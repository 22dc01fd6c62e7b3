"""A complete record turned into the rules' commands that play it again (the import),
and the check that the game they make has the record it came from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service import rules
from service.application.handrecords.model import HandRecord, Move, RecordError
from service.application.handrecords.text import _ints
from service.application.identity.names import NAME_MAX, valid_name


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
        if not valid_name(s.name):
            line = record.lines.get(f"Seat{seat}", end)
            raise RecordError(
                line, f"a seat's name is 1 to {NAME_MAX} printable characters, not only spaces"
            )
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
