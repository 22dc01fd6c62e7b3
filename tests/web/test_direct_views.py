"""Flask calls each API view itself, not flask-smorest's wrappers (service/web/api.py):
the decorators document it, and its arguments are loaded as webargs passed them."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
import pytest
from flask import Flask, Response, jsonify

from service.web import errors
from service.web.api import Api, Blueprint


class _Query(ma.Schema):
    after = ma.fields.Integer(load_default=0)


class _Body(ma.Schema):
    card = ma.fields.String(required=True)


def _toy_app(blp: Blueprint) -> Flask:
    app = Flask(__name__)
    app.config.update(API_TITLE="toy", API_VERSION="1", OPENAPI_VERSION="3.1.0")
    Api(app).register_blueprint(blp)
    errors.register(app)
    return app


def test_the_view_is_called_with_each_declarations_arguments_outer_first() -> None:
    blp = Blueprint("toy", __name__)

    def toy(query: dict[str, Any], body: dict[str, Any], n: int) -> Response:
        return jsonify(query=query, body=body, n=n)

    declarations = [
        blp.route("/toy/<int:n>", methods=["POST"]),
        blp.arguments(_Query(), location="query"),
        blp.arguments(_Body()),
        blp.response(200),
        blp.doc(summary="a toy"),
        blp.problems(404, 422),
    ]
    decorated: Any = toy
    for declare in reversed(declarations):  # as the decorators' syntax applies them
        decorated = declare(decorated)
    app = _toy_app(blp)
    view = app.view_functions["toy.toy"]
    assert not hasattr(view, "__wrapped__")  # none of flask-smorest's wrappers
    r = app.test_client().post("/toy/3?after=5", json={"card": "blue-13"})
    assert r.get_json() == {"query": {"after": 5}, "body": {"card": "blue-13"}, "n": 3}
    refused = app.test_client().post("/toy/3", json={})
    assert refused.status_code == 422
    assert refused.get_json()["errors"] == {"json": {"card": ["Missing data for required field."]}}


def test_a_view_without_arguments_is_itself_the_endpoint() -> None:
    blp = Blueprint("toy", __name__)

    def plain() -> Response:
        return jsonify(ok=True)

    blp.route("/plain")(blp.response(200)(blp.problems(404)(plain)))
    app = _toy_app(blp)
    assert app.view_functions["toy.plain"] is plain
    assert app.test_client().get("/plain").get_json() == {"ok": True}


def test_a_view_declared_to_return_anything_but_a_response_is_refused() -> None:
    blp = Blueprint("toy", __name__)

    def toy() -> dict[str, int]:
        return {}

    with pytest.raises(TypeError, match="must return a Response"):
        blp.route("/toy")(blp.response(200)(toy))


def test_every_api_view_flask_calls_is_unwrapped(app: Flask) -> None:
    api_views = [
        view
        for endpoint, view in app.view_functions.items()
        if endpoint.split(".")[0] not in ("static", "client", "api-docs")
    ]
    assert len(api_views) > 50
    assert not [v for v in api_views if hasattr(v, "__wrapped__")]
