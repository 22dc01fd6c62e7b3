"""A route's arguments, loaded from the request as its ``@blp.arguments`` declares them."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from flask import request
from webargs.flaskparser import FlaskParser


class Loader:
    """Loads a route's arguments from one location of the request, as webargs'
    ``use_args`` did (the parser's problems are the route's 400 and 422 documents)."""

    def __init__(self, parser: FlaskParser, schema: ma.Schema, location: str) -> None:
        self.parser = parser
        self.schema = schema
        self.location = location

    def __call__(self) -> Any:
        return self.parser.parse(self.schema, request, location=self.location)
