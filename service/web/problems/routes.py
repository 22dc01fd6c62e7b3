"""``GET /problems/<code>``: the page a problem's ``type`` URI names, as text: the code's
title and what to do about it (service/web/problems/catalogue.py)."""

from __future__ import annotations

from flask import Response

from service.application.errors import NotFoundError
from service.web.api import Blueprint
from service.web.problems.catalogue import page

blp = Blueprint(
    "problems",
    __name__,
    description="The pages of problem types: what each problem `code` means",
)


@blp.route("/problems/<code>", methods=["GET"])
@blp.doc(
    responses={
        "200": {
            "description": "the code's title, then what to do about it (plain text)",
            "content": {"text/plain": {"schema": {"type": "string"}}},
        }
    },
)
@blp.problems(404, 429)
def problem_page(code: str) -> Response:
    """The page of a problem `type`: the code's title and what to do, as text.

    404 `not_found` for a code the service does not have."""
    text = page(code)
    if text is None:
        raise NotFoundError(f"no problem code {code[:64]!r}")
    return Response(text, mimetype="text/plain")
