"""The application's results as responses: views and feeds as JSON, with their ETag, or 304.

Views, feeds and the inbox are on every response of the hot paths. They are plain frozen
dataclasses, written by orjson (its ``default`` gives each dataclass's fields, named as
the schemas name them), in the very bytes Flask's ``jsonify`` wrote for them: keys
sorted, compact, ASCII only, a newline at the end. Where orjson would write other bytes
than the standard library (a character beyond ASCII or DEL, which ``json`` escapes, or
a value orjson refuses), the standard library writes the answer. The schemas stay the
OpenAPI document; tests/web/test_render.py holds the two to the same JSON on every view
and feed of random games, and on the inbox.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields, is_dataclass
from datetime import datetime
from enum import Enum
from operator import attrgetter
from typing import Any
from uuid import UUID

import marshmallow as ma
import orjson
from flask import Response, current_app, jsonify

from service.application.results import Unchanged, Versioned
from service.web.conditional import etag_value, if_none_match_tags


def rendered(versioned: Versioned[Any]) -> dict[str, Any]:
    """A game view as its response body: the game's id and version, then the view."""
    body: dict[str, Any] = json_ready(versioned.view)
    return {"id": str(versioned.game_id), "version": versioned.version, **body}


# How each dataclass answers: its keys, and a getter of the values under them (one C
# call for all). Keys are the schemas' names: a field's trailing underscore (``pass_``)
# only keeps a Python keyword out of the way.
Shape = tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]]
_SHAPES: dict[type, Shape] = {}


def _values(*names: str) -> Callable[[Any], tuple[Any, ...]]:
    if len(names) == 1:
        (name,) = names
        return lambda value: (getattr(value, name),)
    return attrgetter(*names) if names else lambda value: ()


def _shape(kind: type) -> Shape:
    names = [f.name for f in fields(kind)]
    shape = _SHAPES[kind] = (tuple(n.rstrip("_") for n in names), _values(*names))
    return shape


# Fields whose dump of a plain value (str, int, bool, None, a tuple of them, a UUID or a
# time, which orjson writes as marshmallow dumps them) leaves it as it is.
_AS_IS = (
    ma.fields.String,
    ma.fields.Integer,
    ma.fields.Boolean,
    ma.fields.UUID,
    ma.fields.DateTime,
    ma.fields.Raw,
    ma.fields.List,
    ma.fields.Nested,
)


def _computed(field: ma.fields.Function, name: str) -> Callable[[Any], Any]:
    return lambda value: field.serialize(name, value)


def shaped_by(kind: type, schema: ma.Schema) -> None:
    """Instances of the dataclass ``kind`` answer as ``schema`` dumps them: the schema's
    fields only, each the attribute of its name as it is, or what a Function field
    computes (a Nested field's objects need a shape of their own)."""
    plain: dict[str, str] = {}
    computed: dict[str, Callable[[Any], Any]] = {}
    for name, field in schema.fields.items():
        if isinstance(field, ma.fields.Function):
            computed[name] = _computed(field, name)
        elif type(field) in _AS_IS and field.data_key is None:
            plain[name] = field.attribute or name
        else:
            raise TypeError(f"{type(schema).__name__}.{name}: not a field answered as it is")
    attributes = _values(*plain.values())
    extra = tuple(computed.values())
    _SHAPES[kind] = (
        (*plain, *computed),
        lambda value: (*attributes(value), *[compute(value) for compute in extra]),
    )


_LEAVES = frozenset({str, int, bool, float, type(None)})


def json_ready(value: Any) -> Any:
    """A view or a feed as the JSON its schema dumps: dataclasses as objects, tuples as
    lists, times in ISO 8601, enums as their values (what streams send, and what the
    standard library writes when orjson cannot)."""
    kind = type(value)
    if kind in _LEAVES:
        return value
    if kind is tuple or kind is list:
        return [v if type(v) in _LEAVES else json_ready(v) for v in value]
    shape = _SHAPES.get(kind)
    if shape is None:
        if isinstance(value, UUID):
            return str(value)
        if isinstance(value, datetime):
            return value.isoformat()
        if isinstance(value, Enum):
            return value.value
        if isinstance(value, dict):
            return {k: json_ready(v) for k, v in value.items()}
        if not is_dataclass(value) or isinstance(value, type):
            return value
        shape = _shape(kind)
    keys, values = shape
    return {key: json_ready(v) for key, v in zip(keys, values(value), strict=True)}


def _object(value: Any) -> dict[str, Any]:
    """orjson's ``default``: a dataclass as the object its schema names (orjson writes
    UUIDs, times and enums as json_ready does)."""
    shape = _SHAPES.get(type(value))
    if shape is None:
        if not is_dataclass(value) or isinstance(value, type):
            raise TypeError(f"{type(value).__name__} is not JSON")
        shape = _shape(type(value))
    keys, values = shape
    return dict(zip(keys, values(value), strict=True))


_ORJSON = orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_APPEND_NEWLINE


def json_body(value: Any) -> bytes:
    """``value`` as the bytes ``jsonify(json_ready(value))`` makes (Flask's defaults)."""
    try:
        body = orjson.dumps(value, default=_object, option=_ORJSON)
        if body.isascii() and b"\x7f" not in body:
            return body
    except orjson.JSONEncodeError:
        pass
    text = current_app.json.dumps(json_ready(value), separators=(",", ":"))
    return f"{text}\n".encode()


def json_answer(value: Any, *, status: int = 200, version: int | None = None) -> Response:
    """``value`` as a JSON response, with the ETag of ``version`` if given."""
    response = Response(json_body(value), status, content_type="application/json")
    if version is not None:
        response.headers["ETag"] = etag_value(version)
    return response


def json_response(
    schema: ma.Schema, body: Any, *, status: int = 200, version: int | None = None
) -> Response:
    response = jsonify(schema.dump(body))
    response.status_code = status
    if version is not None:
        response.headers["ETag"] = etag_value(version)
    return response


def tagged_response(schema: ma.Schema, etag: str, body: Callable[[], Any]) -> Response:
    """A read's answer with its opaque ``etag``: 304 when If-None-Match names it (or
    ``*``), else ``body()`` as JSON."""
    unless = if_none_match_tags()
    if etag in unless or "*" in unless:
        response = Response(status=304)
    else:
        response = json_response(schema, body())
    response.headers["ETag"] = f'"{etag}"'
    return response


def view_response(view: Versioned[Any] | Unchanged, *, status: int = 200) -> Response:
    """A game view with its ETag, or 304 when the client already has this version."""
    if isinstance(view, Unchanged):
        response = Response(status=304)
        response.headers["ETag"] = etag_value(view.version)
        return response
    body = {"id": view.game_id, "version": view.version, **_object(view.view)}
    return json_answer(body, status=status, version=view.version)
