"""flask-smorest wired for this service: problem-details errors and a lenient JSON parser."""

from __future__ import annotations

import http
import json
from typing import Any, NoReturn

import flask_smorest
import marshmallow as ma
from flask import Request
from flask_smorest.utils import prepare_response
from webargs import core
from webargs.flaskparser import FlaskParser
from werkzeug.routing import UUIDConverter

from service.settings import MAX_BODY_BYTES
from service.web.errors import PROBLEM_JSON, RequestProblemError
from service.web.fields import ENUM_COMPONENTS, ProblemSchema


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


class Blueprint(flask_smorest.Blueprint):  # type: ignore[misc]
    ARGUMENTS_PARSER = _Parser()

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
