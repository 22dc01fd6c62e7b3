"""The application's results as responses: views and feeds as JSON, with their ETag, or 304."""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from datetime import datetime
from enum import Enum
from typing import Any
from uuid import UUID

import marshmallow as ma
from flask import Response, jsonify

from service.application.results import Unchanged, Versioned
from service.web.conditional import etag_value


def rendered(versioned: Versioned[Any]) -> dict[str, Any]:
    """A game view as its response body: the game's id and version, then the view."""
    body: dict[str, Any] = json_ready(versioned.view)
    return {"id": str(versioned.game_id), "version": versioned.version, **body}


# Field names as the view schemas name them: a trailing underscore (``pass_``) only keeps
# a Python keyword out of the way.
_KEYS: dict[type, tuple[tuple[str, str], ...]] = {}


_LEAVES = frozenset({str, int, bool, float, type(None)})


def json_ready(value: Any) -> Any:
    """A view or a feed as the JSON its schema dumps: dataclasses as objects, tuples as
    lists, times in ISO 8601, enums as their values.

    Views and feeds are plain frozen dataclasses, so this walk gives what marshmallow
    gives (tests/web/test_render.py checks it on every view and feed of random games) in a
    fraction of the time: they are on every response of the hot paths, and the schemas
    stay the OpenAPI document.
    """
    kind = type(value)
    if kind in _LEAVES:
        return value
    if kind is tuple or kind is list:
        return [v if type(v) in _LEAVES else json_ready(v) for v in value]
    keys = _KEYS.get(kind)
    if keys is None:
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
        keys = _KEYS[kind] = tuple((f.name, f.name.rstrip("_")) for f in fields(value))
    return {key: json_ready(getattr(value, name)) for name, key in keys}


def json_response(
    schema: ma.Schema, body: Any, *, status: int = 200, version: int | None = None
) -> Response:
    response = jsonify(schema.dump(body))
    response.status_code = status
    if version is not None:
        response.headers["ETag"] = etag_value(version)
    return response


def view_response(view: Versioned[Any] | Unchanged, *, status: int = 200) -> Response:
    """A game view with its ETag, or 304 when the client already has this version."""
    if isinstance(view, Unchanged):
        response = Response(status=304)
        response.headers["ETag"] = etag_value(view.version)
        return response
    response = jsonify(rendered(view))
    response.status_code = status
    response.headers["ETag"] = etag_value(view.version)
    return response
