"""The stored JSON form of frozen dataclasses (the events'), derived from their fields.

An event is declared once, as its dataclass: :func:`record` reads its fields and type
hints into a :class:`Record` of :class:`Slot` (the key, the kind of value, the default),
from which come its encoding and decoding here and its OpenAPI schema in the web layer.

How each kind of value is stored: ``int``, ``str`` and ``bool`` as themselves, a
:class:`~service.rules.cards.Card` as its id, a ``StrEnum`` as its value,
``tuple[X, ...]`` as a list, ``X | None`` as X or null, a frozen dataclass as an object
of its fields. A field's key is its name unless its metadata names another
(:func:`stored_as`). A field equal to its default is left out of the object, unless its
metadata says it was always written (:data:`STORED_WHEN_DEFAULT`): so a field added with
a default leaves the data of every event without it, and the hash chain over that data,
as they were. On reading, a missing field takes its default; a field without a default
must be there.

Reading is strict: each value must have exactly its JSON type (``true`` is no integer,
``"4"`` none either) or :class:`StoredDataError` is raised; keys the record does not know
are ignored.

Why our own, and why compiled. Each record's two functions are generated once, at import,
into the code one would write by hand (as :mod:`dataclasses` generates ``__init__``): one
call of the class, each field's conversion written inline. Decoding runs on every replay
and on the hot path: a loop over the fields with the same conversions took 30% longer
over self-played games. Neither msgspec nor cattrs fits the events as they are: msgspec
renames keys and omits defaults for its own ``Struct`` classes only, cattrs turns ``"4"``
into 4 unless each of its hooks is replaced, and either would be the rules' first
dependency outside the standard library.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum, StrEnum
from operator import attrgetter
from types import MappingProxyType
from typing import Any

from service.rules.cards import Card, card

JSON = dict[str, Any]


class StoredDataError(ValueError):
    """A stored value that does not have the form its field's type gives it."""


_KEY = "stored_as"
_ALWAYS = "stored_when_default"


def stored_as(key: str) -> Mapping[str, str]:
    """A field's metadata: its key in the stored object, when that is not its name."""
    return MappingProxyType({_KEY: key})


STORED_WHEN_DEFAULT: Mapping[str, bool] = MappingProxyType({_ALWAYS: True})
"""A field's metadata: written even when it equals its default, as it always was."""


# --- what a field holds ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Scalar:
    """An ``int``, ``str`` or ``bool``, stored as itself."""

    type: type


@dataclass(frozen=True, slots=True)
class CardId:
    """A card, stored as its id."""


@dataclass(frozen=True, slots=True)
class Choice:
    """A member of a ``StrEnum``, stored as its value."""

    enum: type[StrEnum]


@dataclass(frozen=True, slots=True)
class Items:
    """A ``tuple[X, ...]``, stored as a list."""

    item: Kind


@dataclass(frozen=True, slots=True)
class Nullable:
    """An ``X | None``, stored as X or null."""

    inner: Kind


@dataclass(frozen=True, slots=True)
class Slot:
    """One field of a record: its name, its key in the stored object, what it holds."""

    name: str
    key: str
    kind: Kind
    default: Any  # dataclasses.MISSING: none, the key must be there
    stored_when_default: bool

    @property
    def required(self) -> bool:
        """Whether the stored object must have it (it has no default)."""
        return self.default is dataclasses.MISSING

    @property
    def always_written(self) -> bool:
        """Whether every stored object has it (else only when it is not its default)."""
        return self.required or self.stored_when_default


@dataclass(frozen=True, slots=True, eq=False)
class Record:
    """A frozen dataclass, stored as an object of its fields, and its compiled codec."""

    cls: type
    slots: tuple[Slot, ...]
    encode: Callable[[Any], JSON]
    decode: Callable[[Mapping[str, Any]], Any]


Kind = Scalar | CardId | Choice | Items | Nullable | Record

_RECORDS: dict[type, Record] = {}


def record(cls: type) -> Record:
    """The stored form of the frozen dataclass ``cls``, made once (``TypeError`` for a
    field whose type has none)."""
    found = _RECORDS.get(cls)
    if found is None:
        hints = typing.get_type_hints(cls)
        slots = tuple(_slot(f, hints[f.name]) for f in dataclasses.fields(cls))
        encode, decode = _compile(cls, slots)
        found = _RECORDS[cls] = Record(cls, slots, encode, decode)
    return found


def _slot(f: dataclasses.Field[Any], hint: Any) -> Slot:
    if not f.init or f.kw_only or f.default_factory is not dataclasses.MISSING:
        raise TypeError(f"{f.name}: only positional fields with plain defaults are stored")
    key = f.metadata.get(_KEY, f.name)
    return Slot(f.name, key, kind_of(hint), f.default, bool(f.metadata.get(_ALWAYS)))


def kind_of(hint: Any) -> Kind:
    """What a field of type ``hint`` holds (``TypeError`` for a type with no stored form)."""
    if hint in (int, str, bool):
        return Scalar(hint)
    if hint is Card:
        return CardId()
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (types.UnionType, typing.Union) and len(args) == 2 and type(None) in args:
        return Nullable(kind_of(args[0] if args[1] is type(None) else args[1]))
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return Items(kind_of(args[0]))
    if isinstance(hint, type) and issubclass(hint, StrEnum):
        return Choice(hint)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return record(hint)
    raise TypeError(f"no stored form for {hint!r}")


# --- reading: each value checked as it is read -------------------------------------------


def _int(value: Any) -> int:
    if type(value) is not int:
        raise StoredDataError(f"expected an integer, got {value!r}")
    return value


def _str(value: Any) -> str:
    if type(value) is not str:
        raise StoredDataError(f"expected a string, got {value!r}")
    return value


def _bool(value: Any) -> bool:
    if type(value) is not bool:
        raise StoredDataError(f"expected a boolean, got {value!r}")
    return value


def _card(value: Any) -> Card:
    return card(_str(value))


_SCALARS: dict[type, Callable[[Any], Any]] = {int: _int, str: _str, bool: _bool}


def _decoder(kind: Kind) -> Callable[[Any], Any]:
    """The function that reads a stored value of ``kind``."""
    match kind:
        case Scalar(scalar):
            return _SCALARS[scalar]
        case CardId():
            return _card
        case Choice(enum):
            return lambda value: enum(_str(value))
        case Items(item):
            read_item = _decoder(item)

            def read_items(value: Any) -> tuple[Any, ...]:
                if type(value) is not list:
                    raise StoredDataError(f"expected a list, got {value!r}")
                return tuple(map(read_item, value))

            return read_items
        case Nullable(inner):
            read_inner = _decoder(inner)
            return lambda value: None if value is None else read_inner(value)
        case Record(decode=decode):

            def read_object(value: Any) -> Any:
                if type(value) is not dict:
                    raise StoredDataError(f"expected an object, got {value!r}")
                return decode(value)

            return read_object


# --- writing -------------------------------------------------------------------------------

_ID = attrgetter("id")
_VALUE = attrgetter("value")


def _encoder(kind: Kind) -> Callable[[Any], Any] | None:
    """The function that stores a value of ``kind`` (None: stored as it is)."""
    match kind:
        case Scalar():
            return None
        case CardId():
            return _ID
        case Choice():
            return _VALUE
        case Items(item):
            write_item = _encoder(item)
            if write_item is None:
                return list
            return lambda value: list(map(write_item, value))
        case Nullable(inner):
            write_inner = _encoder(inner)
            if write_inner is None:
                return None
            return lambda value: None if value is None else write_inner(value)
        case Record(encode=encode):
            return encode


# --- the generated functions -------------------------------------------------------------


def _compile(
    cls: type, slots: tuple[Slot, ...]
) -> tuple[Callable[[Any], JSON], Callable[[Mapping[str, Any]], Any]]:
    """``encode(obj) -> dict`` and ``decode(dict) -> obj`` for one record, as source."""
    names: dict[str, Any] = {
        "cls": cls,
        "_card": _card,
        **{f.__name__: f for f in _SCALARS.values()},
    }

    def bind(value: Any) -> str:
        if value is None or isinstance(value, bool):
            return repr(value)
        name = f"_v{len(names)}"
        names[name] = value
        return name

    def read(kind: Kind, value: str) -> str:
        if isinstance(kind, Scalar):
            return f"{_SCALARS[kind.type].__name__}({value})"
        if isinstance(kind, Choice):
            return f"{bind(kind.enum)}(_str({value}))"
        if isinstance(kind, CardId):
            return f"_card({value})"
        return f"{bind(_decoder(kind))}({value})"

    def write(kind: Kind, value: str) -> str:
        if isinstance(kind, Scalar):
            return value
        if isinstance(kind, CardId | Choice):
            return f"{value}.{'id' if isinstance(kind, CardId) else 'value'}"
        encoder = _encoder(kind)
        return value if encoder is None else f"{bind(encoder)}({value})"

    arguments = []
    for s in slots:
        value = read(s.kind, f"d[{s.key!r}]")
        arguments.append(
            value if s.required else f"({value} if {s.key!r} in d else {bind(s.default)})"
        )
    # Keys in the fields' order: a display for the leading fields every object has, then
    # one statement a field (a field equal to its default is not written).
    display: list[str] = []
    statements: list[str] = []
    for s in slots:
        if s.always_written and not statements:
            display.append(f"{s.key!r}: {write(s.kind, 'o.' + s.name)}")
        elif s.always_written:
            statements.append(f"    d[{s.key!r}] = {write(s.kind, 'o.' + s.name)}")
        else:
            differs = "is not" if s.default is None or isinstance(s.default, bool | Enum) else "!="
            statements += [
                f"    v = o.{s.name}",
                f"    if v {differs} {bind(s.default)}:",
                f"        d[{s.key!r}] = {write(s.kind, 'v')}",
            ]
    source = "\n".join(
        [
            "def decode(d):",
            f"    return cls({', '.join(arguments)})",
            "def encode(o):",
            f"    d = {{{', '.join(display)}}}",
            *statements,
            "    return d",
        ]
    )
    exec(compile(source, f"<stored form of {cls.__qualname__}>", "exec"), names)
    return names["encode"], names["decode"]
