"""A game state as plain JSON data and back: what a stored snapshot holds.

A snapshot is a cache of a fold: disposable, and versioned by :data:`SNAPSHOT_VERSION`
(bump it whenever the shape of :class:`GameState` or anything in it changes; snapshots
of another version are ignored and the game is folded from its events instead).

Encoding walks the state's frozen dataclasses by their type hints, so a new field needs
no code here: cards are their ids, enums their values, tuples lists, dataclasses objects
(fields that are derived, ``init=False``, are left out and derived again).
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from typing import Any

from service.rules.cards import Card, card
from service.rules.state import GameState

SNAPSHOT_VERSION = 9  # 2: bots, clock; 3: fairness; 4: visibility; 5: reservations; 6: rematch;
# 7: rated; 8: the seats' players; 9: those players kept past a round's first card (the
# fold of version 8 dropped them there, and its snapshots hold the loss)

JSON = Any


def to_data(state: GameState) -> dict[str, JSON]:
    data: dict[str, JSON] = _encode(state)
    return data


def from_data(data: dict[str, JSON]) -> GameState:
    state: GameState = _decode(GameState, data)
    return state


def _encode(value: Any) -> JSON:
    if isinstance(value, Card):
        return value.id
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return [_encode(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _encode(getattr(value, f.name)) for f in _init_fields(type(value))}
    return value


def _decode(kind: Any, data: JSON) -> Any:
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(kind)
        if data is None and type(None) in options:
            return None
        (chosen,) = [o for o in options if o is not type(None)]
        return _decode(chosen, data)
    if origin is tuple:
        args = typing.get_args(kind)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], v) for v in data)
        return tuple(_decode(a, v) for a, v in zip(args, data, strict=True))
    if kind is Card:
        return card(data)
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return kind(data)
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        hints = _hints(kind)
        fields = _init_fields(kind)
        return kind(**{f.name: _decode(hints[f.name], data[f.name]) for f in fields})
    return data


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(kind: type) -> dict[str, Any]:
    found = _HINTS.get(kind)
    if found is None:
        found = _HINTS[kind] = typing.get_type_hints(kind)
    return found


def _init_fields(kind: type) -> tuple[dataclasses.Field[Any], ...]:
    return tuple(f for f in dataclasses.fields(kind) if f.init)
