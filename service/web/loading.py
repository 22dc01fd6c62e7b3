"""Request bodies and queries loaded by checks compiled once from their schemas.

A route's ``@blp.arguments`` schema is its contract (the OpenAPI document) and its
validation. Loading it through webargs and marshmallow costs dozens of calls on every
request; most requests are valid and plain (``{"card": "blue-13"}``, ``?after=8``), so
each schema whose fields are all of plain kinds (strings, integers, lists of strings,
with Length, Range and OneOf validators) is also compiled, once, into a check of those
same declarations. A request the check accepts is loaded as marshmallow loads it; any
other (a wrong type, a missing field, an unknown key, a value out of range, anything
the check does not know) is loaded by webargs and marshmallow as before, so every
refusal is the very problem document it was. The check may refuse what marshmallow
accepts, never the reverse (tests/web/test_loading.py holds it to that).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import marshmallow as ma
from flask import request
from marshmallow import fields, validate
from webargs import core
from webargs.flaskparser import FlaskParser

from service.web.fields import JsonInteger

REFUSED: Any = object()
"""What a field's check gives for a value it does not accept: marshmallow decides."""

Check = Callable[[Any], Any]
"""A field's check: the value as marshmallow loads it, or REFUSED."""


class Loader:
    """Loads a route's arguments from one location of the request (``json`` or
    ``query``): by the compiled check when it accepts them, else by the parser."""

    def __init__(self, parser: FlaskParser, schema: ma.Schema, location: str) -> None:
        self.parser = parser
        self.schema = schema
        self.location = location
        self.unknown = parser.DEFAULT_UNKNOWN_BY_LOCATION.get(location) or schema.unknown
        self.check = compiled(schema, self.unknown) if location in ("json", "query") else None

    def __call__(self) -> Any:
        check = self.check
        if check is not None:
            if self.location == "json":
                data = self.parser.load_json(request, self.schema)
                loaded = check({} if data is core.missing else data)
            else:
                loaded = check(request.args)
            if loaded is not REFUSED:
                return loaded
        return self.parser.parse(self.schema, request, location=self.location)


def compiled(schema: ma.Schema, unknown: str) -> Callable[[Any], Any] | None:
    """The check of a whole request's data against ``schema`` (a mapping of the loaded
    values, or REFUSED); None when a field, a hook or an option is beyond the plain
    kinds (the parser loads every request then)."""
    if any(schema._hooks.values()) or schema.many or schema.partial or unknown == ma.INCLUDE:
        return None
    checks: list[tuple[str, Check, bool, Any]] = []
    for name, field in schema.fields.items():
        check = _field_check(field)
        if check is None or field.data_key is not None or field.attribute is not None:
            return None
        checks.append((name, check, field.required, field.load_default))
    names = frozenset(schema.fields)
    refuse_unknown = unknown == ma.RAISE

    def check_all(data: Any) -> Any:
        if not isinstance(data, Mapping):
            return REFUSED
        if refuse_unknown and not names.issuperset(data):
            return REFUSED
        loaded: dict[str, Any] = {}
        for name, check, required, default in checks:
            value = data.get(name, ma.missing)
            if value is ma.missing:
                if required:
                    return REFUSED
                if default is not ma.missing:
                    loaded[name] = default() if callable(default) else default
                continue
            value = check(value)
            if value is REFUSED:
                return REFUSED
            loaded[name] = value
        return loaded

    return check_all


def _field_check(field: ma.fields.Field[Any]) -> Check | None:
    if field.dump_only:
        return None
    kind = type(field)
    if kind is fields.String:
        return _bounded(str, field.validators)
    if kind is JsonInteger:
        return _bounded(int, field.validators)
    if kind is fields.Integer:
        return _integer(field.validators, strict=field.strict)  # type: ignore[attr-defined]
    if kind is fields.List:
        inner = field.inner  # type: ignore[attr-defined]
        if type(inner) is not fields.String or inner.dump_only:
            return None
        item = _bounded(str, inner.validators)
        whole = _bounded(list, field.validators)
        if item is None or whole is None:
            return None
        return lambda value: (
            value
            if whole(value) is not REFUSED and all(item(v) is not REFUSED for v in value)
            else REFUSED
        )
    return None


def _integer(validators: list[Any], *, strict: bool) -> Check | None:
    """An integer field: a JSON integer, or (not strict) a query's decimal digits."""
    within = _bounded(int, validators)
    if within is None:
        return None
    if strict:
        return within

    def check(value: Any) -> Any:
        if type(value) is str:
            # int() takes more ("+1", " 1", "1_0", other scripts' digits): marshmallow judges those.
            if not (value.isascii() and value.isdigit() and len(value) <= 18):
                return REFUSED
            value = int(value)
        return within(value)

    return check


def _bounded(kind: type, validators: list[Any]) -> Check | None:
    """Values of exactly ``kind`` (never a subclass: ``True`` is no integer) that pass
    ``validators``, each a Length, Range or OneOf."""
    tests: list[Callable[[Any], bool]] = []
    for v in validators:
        if type(v) is validate.Length:
            tests.append(_length(v))
        elif type(v) is validate.Range:
            tests.append(_range(v))
        elif type(v) is validate.OneOf:
            try:
                choices = frozenset(v.choices)
            except TypeError:
                return None
            tests.append(choices.__contains__)
        else:
            return None

    def check(value: Any) -> Any:
        if type(value) is not kind:
            return REFUSED
        for test in tests:
            if not test(value):
                return REFUSED
        return value

    return check


def _length(v: validate.Length) -> Callable[[Any], bool]:
    if v.equal is not None:
        return lambda value: len(value) == v.equal
    low = 0 if v.min is None else v.min
    high = float("inf") if v.max is None else v.max
    return lambda value: low <= len(value) <= high


def _range(v: validate.Range) -> Callable[[Any], bool]:
    def within(value: Any) -> bool:
        if v.min is not None and (value < v.min if v.min_inclusive else value <= v.min):
            return False
        return v.max is None or (value <= v.max if v.max_inclusive else value < v.max)

    return within
