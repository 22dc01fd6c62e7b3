"""The schema of each event type's ``data``, derived from the event's declaration.

Each event's dataclass gives its stored form (:mod:`service.rules.fieldcodec`): which
keys, which kinds of value, which are left out at their default. The same record gives
its schema here, so the contract says what ``to_data`` writes: a key every object has is
required, a key left out at its default is not (and is never null when there), and a
value a viewer may not see (other seats' hands and passed cards, the dealing plan) is
nullable, as its type is. The schemas are documentation: feeds send ``to_data``'s
objects as they are (tests/web/test_event_schemas.py holds the two together).
"""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields

from service.rules.events import EVENT_CLASSES
from service.rules.fieldcodec import (
    CardId,
    Choice,
    Items,
    Kind,
    Nullable,
    Record,
    Scalar,
    Slot,
    record,
)
from service.web.fields import _card, _enum

_SCALARS: dict[type, type[fields.Field[Any]]] = {
    int: fields.Integer,
    str: fields.String,
    bool: fields.Boolean,
}
_SCHEMAS: dict[type, type[ma.Schema]] = {}


def data_schema(cls: type) -> type[ma.Schema]:
    """The schema of ``cls``'s stored object, named ``<class>Data`` in the contract."""
    found = _SCHEMAS.get(cls)
    if found is None:
        made = {s.name: _slot_field(s) for s in record(cls).slots}
        found = _SCHEMAS[cls] = ma.Schema.from_dict(made, name=f"{cls.__name__}DataSchema")
    return found


def _slot_field(slot: Slot) -> fields.Field[Any]:
    kind = slot.kind
    if not slot.always_written and isinstance(kind, Nullable) and slot.default is None:
        kind = kind.inner  # left out when None: never null when there
    return _field(kind, required=slot.always_written, data_key=slot.key)


def _field(kind: Kind, **options: Any) -> fields.Field[Any]:
    match kind:
        case Scalar(scalar):
            return _SCALARS[scalar](**options)
        case CardId():
            return _card(**options)
        case Choice(enum):
            return _enum(enum, **options)
        case Items(item):
            return fields.List(_field(item), **options)
        case Nullable(inner):
            return _field(inner, allow_none=True, **options)
        case Record(cls=cls):
            return fields.Nested(data_schema(cls), **options)


DATA_SCHEMAS: dict[str, type[ma.Schema]] = {c.TYPE: data_schema(c) for c in EVENT_CLASSES}
"""Each event type's data schema, by type."""
