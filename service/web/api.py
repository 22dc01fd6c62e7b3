"""flask-smorest wired for this service: problem-details errors, a lenient JSON parser,
and views that Flask calls without flask-smorest's wrappers.

flask-smorest's decorators (``arguments``, ``response``, ``alt_response``, ``doc``) both
document a view and wrap it: each wrapper looks the app up and calls the next, nine to
twelve deep on a command. Here they document it as before (the OpenAPI document is made
from the same declarations), while Flask is given the view itself, called with its
arguments as each ``arguments`` declaration loads them (service/web/loading.py). A view
returns its Response (mypy holds it to its annotation, and a view declared otherwise is
refused at import), so flask-smorest's response wrapper had nothing to do.
"""

from __future__ import annotations

import http
import json
from collections.abc import Callable
from typing import Any, NoReturn

import flask_smorest
import marshmallow as ma
from flask import Request, Response
from flask_smorest.utils import prepare_response
from webargs import core
from webargs.flaskparser import FlaskParser
from werkzeug.routing import UUIDConverter

from service.settings import MAX_BODY_BYTES
from service.web.errors import PROBLEM_JSON, RequestProblemError
from service.web.fields import ENUM_COMPONENTS, ProblemSchema
from service.web.loading import Loader


class _Parser(FlaskParser):
    """Reads a JSON body whatever its Content-Type says, and reports problems our way."""

    def _raw_load_json(self, req: Request) -> Any:
        data = req.get_data(cache=True)
        if not data.strip():
            return core.missing
        try:
            return core.parse_json(data)
        except RecursionError:
            raise RequestProblemError(400, "malformed_json", "the body nests too deeply") from None
        except json.JSONDecodeError:
            raise  # webargs turns it into _handle_invalid_json_error
        except ValueError:  # e.g. an integer beyond the interpreter's digit limit
            raise RequestProblemError(
                400, "malformed_json", "the body holds a value that cannot be read"
            ) from None

    def _handle_invalid_json_error(
        self, error: Any, req: Request, *args: Any, **kwargs: Any
    ) -> NoReturn:
        raise RequestProblemError(400, "malformed_json", "the request body is not valid JSON")

    def handle_error(
        self,
        error: ma.ValidationError,
        req: Request,
        schema: ma.Schema,
        *,
        error_status_code: int | None,
        error_headers: Any,
    ) -> NoReturn:
        messages = error.messages if isinstance(error.messages, dict) else {"_": error.messages}
        raise RequestProblemError(
            422, "invalid_request", "the request has invalid content", errors=messages
        )


BEARER: list[dict[str, list[str]]] = [{"bearer": []}]
"""The security requirement of endpoints that take a bearer token."""


class IdConverter(UUIDConverter):
    """`<id:game_id>`: a path segment that is a UUID, passed on as text. Anything else
    matches no route (404), so `/v1/games/import` is never a game's id, and the contract
    says `format: uuid` (flask-smorest documents UUIDConverter's subclasses so)."""

    def to_python(self, value: str) -> str:  # type: ignore[override]
        return value


_PARSING_OPTIONS = frozenset(
    {"unknown", "validate", "as_kwargs", "arg_name", "error_status_code", "error_headers"}
)


class Blueprint(flask_smorest.Blueprint):  # type: ignore[misc]
    ARGUMENTS_PARSER = _Parser()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # A decorated view -> the view itself and the loaders of its arguments, in order.
        self._views: dict[Callable[..., Any], tuple[Callable[..., Any], tuple[Loader, ...]]] = {}

    def _documenting(self, decorate: Callable[[Any], Any], *loaders: Loader) -> Any:
        """``decorate`` (one of flask-smorest's) as documentation only: Flask will call
        the view it decorates, with ``loaders``' arguments before those of the view's
        other ``arguments`` declarations (the outer one first, as webargs passes them)."""

        def decorator(func: Any) -> Any:
            documented = decorate(func)
            view, inner = self._views.get(func, (func, ()))
            self._views[documented] = (view, (*loaders, *inner))
            return documented

        return decorator

    def arguments(self, schema: Any, *, location: str = "json", **kwargs: Any) -> Any:
        if _PARSING_OPTIONS & kwargs.keys():
            raise TypeError(f"not supported here: {sorted(_PARSING_OPTIONS & kwargs.keys())}")
        loader = Loader(self.ARGUMENTS_PARSER, schema, location)
        return self._documenting(super().arguments(schema, location=location, **kwargs), loader)

    def response(self, *args: Any, **kwargs: Any) -> Any:
        return self._documenting(super().response(*args, **kwargs))

    def alt_response(self, *args: Any, **kwargs: Any) -> Any:
        return self._documenting(super().alt_response(*args, **kwargs))

    def doc(self, **kwargs: Any) -> Any:  # flask-smorest's is a staticmethod
        return self._documenting(flask_smorest.Blueprint.doc(**kwargs))

    def add_url_rule(
        self,
        rule: str,
        endpoint: str | None = None,
        view_func: Any = None,
        provide_automatic_options: bool | None = None,
        **options: Any,
    ) -> None:
        """Routes ``view_func``'s documentation as flask-smorest does, and Flask to the
        view itself (with its arguments loaded) rather than to its wrappers."""
        if view_func in self._views:
            view_func = self._direct(view_func, *self._views[view_func])
        super().add_url_rule(rule, endpoint, view_func, provide_automatic_options, **options)

    @staticmethod
    def _direct(
        documented: Any, view: Callable[..., Any], loaders: tuple[Loader, ...]
    ) -> Callable[..., Any]:
        if view.__annotations__.get("return") not in ("Response", Response):
            raise TypeError(f"{view.__qualname__} must return a Response (it is sent as is)")
        if not loaders:
            direct = view
        elif len(loaders) == 1:
            (load,) = loaders

            def direct(**view_args: Any) -> Any:
                return view(load(), **view_args)
        else:

            def direct(**view_args: Any) -> Any:
                return view(*[load() for load in loaders], **view_args)

        # flask-smorest documents the route from the function it is given.
        direct.__name__, direct.__doc__ = view.__name__, view.__doc__
        direct._apidoc = documented._apidoc  # type: ignore[attr-defined]
        return direct

    def _store_endpoint_docs(
        self, endpoint: str, obj: Any, parameters: Any, tags: Any, **options: Any
    ) -> None:
        """Each operation's `operationId` is its view's name (unless a `doc` gives one):
        what generated clients call their functions and what OpenAPI links point at."""
        super()._store_endpoint_docs(endpoint, obj, parameters, tags, **options)
        for method, doc in self._docs[endpoint].items():
            if method != "parameters":
                manual = doc.setdefault("manual_doc", {})
                manual.setdefault("operationId", endpoint)

    def problems(self, *statuses: int) -> Any:
        """Document the problem-details responses of an endpoint."""

        def decorate(func: Any) -> Any:
            for status in statuses:
                func = self.alt_response(status, response=http.HTTPStatus(status).name)(func)
            return func

        return decorate


_DESCRIPTIONS = {
    # A size in bytes, which no JSON Schema keyword counts (maxLength counts characters).
    http.HTTPStatus.REQUEST_ENTITY_TOO_LARGE: f"Content Too Large: the body is over "
    f"{MAX_BODY_BYTES:,} bytes (64 KiB), whatever its content type (`body_too_large`)",
}


class Api(flask_smorest.Api):  # type: ignore[misc]
    ERROR_SCHEMA = ProblemSchema

    def init_app(self, app: Any, *args: Any, **kwargs: Any) -> None:
        app.url_map.converters["id"] = IdConverter  # before any blueprint's routes
        super().init_app(app, *args, **kwargs)
        for name, schema in ENUM_COMPONENTS.items():
            self.spec.components.schema(name, schema)

    def _register_error_handlers(self) -> None:
        """Errors are rendered by service.web.errors, not by flask-smorest."""

    def _register_responses(self) -> None:
        """Document every error response as application/problem+json."""
        for status in http.HTTPStatus:
            response: dict[str, Any] = {"description": _DESCRIPTIONS.get(status, status.phrase)}
            if not 100 <= status < 200 and status not in (204, 304):
                response["schema"] = self.ERROR_SCHEMA
            prepare_response(response, self.spec, PROBLEM_JSON)
            self.spec.components.response(status.name, response, lazy=True)
        response = {"description": "Default error response", "schema": self.ERROR_SCHEMA}
        prepare_response(response, self.spec, PROBLEM_JSON)
        self.spec.components.response("DEFAULT_ERROR", response, lazy=True)
