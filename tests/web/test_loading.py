"""The checks compiled from the routes' argument schemas (service/web/loading.py) accept
only what marshmallow accepts, and load it as marshmallow does: a request they refuse is
loaded by webargs and marshmallow, which give today's problem documents."""

from __future__ import annotations

import sys
from typing import Any, cast

import marshmallow as ma
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import validate
from werkzeug.datastructures import MultiDict

import service.web.app  # noqa: F401  (imports every route module)
from service.web.api import Blueprint
from service.web.games import routes as games
from service.web.games.feed_schemas import EventsQuerySchema
from service.web.games.schemas import PassSchema, PlaySchema
from service.web.loading import REFUSED, Loader, compiled
from service.web.players import routes as players
from service.web.players.schemas import InboxQuerySchema


def _loaders() -> list[Loader]:
    """The loaders of every route's ``arguments``."""
    blueprints = [
        m.blp
        for name, m in sys.modules.items()
        if name.startswith("service.web.") and isinstance(getattr(m, "blp", None), Blueprint)
    ]
    found = {id(x): x for blp in blueprints for _, loaders in blp._views.values() for x in loaders}
    return list(found.values())


LOADERS = _loaders()
COMPILED = [loader for loader in LOADERS if loader.check is not None]


def test_the_hot_routes_arguments_are_compiled() -> None:
    hot = {type(loader.schema) for loader in COMPILED}
    assert {PlaySchema, PassSchema, EventsQuerySchema, InboxQuerySchema} <= hot
    assert games.blp._views and players.blp._views


# Values near the schemas' edges: card ids, names of fields, bounds of ranges, digits
# that int() reads and marshmallow may not, other JSON types.
TEXT = st.one_of(
    st.sampled_from(["", "blue-13", "green-2", "x" * 16, "x" * 17, "active", "all", "finished"]),
    st.sampled_from(["0", "8", "60", "61", "100", "101", "1000", "1001", "2147483647"]),
    st.sampled_from(["-1", "+5", " 5", "5 ", "1_0", "\u0663", "\u00b2", "1e3", "0x10", "9" * 30]),
    st.text(max_size=20),
)
SCALAR = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-5, max_value=2**40), st.floats(), TEXT
)
VALUE = st.one_of(SCALAR, st.lists(SCALAR, max_size=5), st.lists(TEXT, min_size=0, max_size=70))


def _keys(loader: Loader) -> st.SearchStrategy[str]:
    """Mostly the schema's own fields, sometimes another's or none's."""
    own = st.sampled_from(list(loader.schema.fields))
    return st.one_of(own, own, own, st.sampled_from(["unknown", "card", "cards", "wait", "after"]))


def _edges(loader: Loader) -> list[Any]:
    """Values at the edges of the schema's validators: lengths and numbers just in and
    just out of their bounds, the choices and one more."""
    found: list[Any] = []
    for field in loader.schema.fields.values():
        inner = getattr(field, "inner", None)
        for v in [*field.validators, *(inner.validators if inner else ())]:
            if isinstance(v, validate.Length):
                for n in {v.min or 0, v.max or 0, v.equal or 0}:
                    for size in (n - 1, n, n + 1):
                        if size >= 0:
                            found += ["x" * size, ["blue-13"] * size]
            elif isinstance(v, validate.Range):
                for n in (v.min, v.max):
                    if n is not None:
                        found += [n - 1, n, n + 1, str(n - 1), str(n), str(n + 1)]
            elif isinstance(v, validate.OneOf):
                found += [*v.choices, "other"]
    return found


def _agree(loader: Loader, data: Any, raw: Any) -> None:
    assert loader.check is not None
    loaded = loader.check(raw)
    if loaded is REFUSED:
        return
    try:
        expected = loader.schema.load(data, unknown=cast(Any, loader.unknown))
    except ma.ValidationError as e:  # pragma: no cover - what the test is for
        raise AssertionError(f"accepted {data!r}, which marshmallow refuses: {e}") from None
    assert loaded == expected
    assert {k: type(v) for k, v in loaded.items()} == {k: type(v) for k, v in expected.items()}


@pytest.mark.parametrize("loader", COMPILED, ids=lambda x: type(x.schema).__name__)
@settings(max_examples=500, deadline=None)
@given(data=st.data())
def test_what_a_check_accepts_marshmallow_loads_alike(loader: Loader, data: Any) -> None:
    keys = _keys(loader)
    edges = st.sampled_from(_edges(loader) or [""])
    if loader.location == "query":
        text = st.one_of(TEXT, edges.map(str))
        pairs = data.draw(st.lists(st.tuples(keys, text), max_size=6))
        query = MultiDict(pairs)
        # webargs gives marshmallow a query's first value of each name (its fields are
        # not lists): what the check reads too.
        _agree(loader, {k: query.get(k) for k in query}, query)
    else:
        value = st.one_of(VALUE, edges, edges)
        body = data.draw(st.one_of(st.dictionaries(keys, value, max_size=4), value))
        _agree(loader, body, body)


def test_a_plain_valid_request_is_loaded_by_the_check() -> None:
    play = compiled(PlaySchema(), ma.RAISE)
    assert play is not None
    assert play({"card": "blue-13"}) == {"card": "blue-13"}
    events = compiled(EventsQuerySchema(), ma.EXCLUDE)
    assert events is not None
    assert events(MultiDict([("after", "8")])) == {"after": 8, "limit": 100, "wait": 0}


@pytest.mark.parametrize(
    "body",
    [{}, {"card": 7}, {"card": ""}, {"card": "x" * 17}, {"card": "blue-13", "x": 1}, [], None],
)
def test_anything_else_is_left_to_marshmallow(body: Any) -> None:
    play = compiled(PlaySchema(), ma.RAISE)
    assert play is not None
    assert play(body) is REFUSED
