"""A hand review as data: each decision's options and loss, and each seat's summary.

The thresholds are the contract's (API.md Part 4): a mistake loses at least 0.10 of the
seat's side's expected share of the round, a blunder at least 0.25. Accuracy follows
lichess's curve of a move's loss in winning chances (``100 · e^(-4.354 · loss)``, its
scale without its offset, so that no loss is exactly 100), averaged over the seat's
decisions that had a choice (a forced card says nothing of the player).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

MISTAKE = 0.10
BLUNDER = 0.25
_CURVE = 4.354


Cards = str | tuple[str, ...]
"""An option: a card id (a play) or a sorted triple of card ids (a pass)."""


@dataclass(frozen=True, slots=True)
class Option:
    cards: Cards
    value: float  # the seat's side's expected share of the round, in [0, 1]


@dataclass(frozen=True, slots=True)
class Decision:
    """One reviewed pass or play: ``seq`` is its ``CardsPassed`` or ``CardPlayed``
    event's; ``trick`` counts from 1 within the round (None for a pass)."""

    seq: int
    round: int
    trick: int | None
    seat: int
    kind: str  # "pass" | "play"
    chosen: Cards
    best: Cards
    options: tuple[Option, ...]
    loss: float  # value(best) - value(chosen), >= 0


@dataclass(frozen=True, slots=True)
class SeatSummary:
    seat: int
    decisions: int
    mistakes: int  # losing >= MISTAKE, blunders included
    blunders: int  # losing >= BLUNDER
    accuracy: float  # in [0, 100], 100 with no loss


def decided(
    seq: int,
    round_: int,
    trick: int | None,
    seat: int,
    kind: str,
    chosen: Cards,
    options: Sequence[Option],
) -> Decision:
    """The decision with its best option (the highest value; the first of equals, the
    chosen one being put first by the caller when it is among them) and its loss."""
    best = max(options, key=lambda o: o.value)  # max keeps the first of equals
    mine = next(o for o in options if o.cards == chosen)
    if mine.value >= best.value:
        best = mine
    loss = round(max(0.0, best.value - mine.value), 6)
    return Decision(seq, round_, trick, seat, kind, chosen, best.cards, tuple(options), loss)


def summary(players: int, decisions: Sequence[Decision]) -> list[SeatSummary]:
    """One summary per seat, in seat order."""
    found = []
    for seat in range(players):
        mine = [d for d in decisions if d.seat == seat]
        chances = [100 * math.exp(-_CURVE * d.loss) for d in mine if len(d.options) > 1]
        accuracy = round(sum(chances) / len(chances), 1) if chances else 100.0
        found.append(
            SeatSummary(
                seat,
                len(mine),
                sum(1 for d in mine if d.loss >= MISTAKE),
                sum(1 for d in mine if d.loss >= BLUNDER),
                accuracy,
            )
        )
    return found


def as_json(d: Decision) -> dict[str, object]:
    """A decision as the API gives it (and the store keeps it)."""
    return {
        "seq": d.seq,
        "round": d.round,
        "trick": d.trick,
        "seat": d.seat,
        "kind": d.kind,
        "chosen": _cards_json(d.chosen),
        "best": _cards_json(d.best),
        "options": [{"cards": _cards_json(o.cards), "value": o.value} for o in d.options],
        "loss": d.loss,
    }


def from_json(raw: dict[str, Any]) -> Decision:
    """A decision as :func:`as_json` wrote it."""
    return Decision(
        seq=raw["seq"],
        round=raw["round"],
        trick=raw["trick"],
        seat=raw["seat"],
        kind=raw["kind"],
        chosen=_cards(raw["chosen"]),
        best=_cards(raw["best"]),
        options=tuple(Option(_cards(o["cards"]), o["value"]) for o in raw["options"]),
        loss=raw["loss"],
    )


def summary_json(s: SeatSummary) -> dict[str, object]:
    return {
        "seat": s.seat,
        "decisions": s.decisions,
        "mistakes": s.mistakes,
        "blunders": s.blunders,
        "accuracy": s.accuracy,
    }


def _cards_json(cards: Cards) -> str | list[str]:
    return cards if isinstance(cards, str) else list(cards)


def _cards(raw: str | list[str]) -> Cards:
    return raw if isinstance(raw, str) else tuple(raw)
