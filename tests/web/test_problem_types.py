"""The problem types (docs/api.md, "Problem details"): every code the service can answer
with has a human title and a page at its `type` URI, and the web layer's own 404 and 405
say what is wrong in the project's words. No database: nothing here reaches one."""

from __future__ import annotations

import ast
import re
import uuid
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from service.rules import Violation
from service.settings import Settings
from service.web import errors
from service.web.app import create_app
from service.web.problems.catalogue import PROBLEM_TYPES

ROOT = Path(__file__).resolve().parents[2]
CODE = re.compile(r"^[a-z]+(_[a-z]+)*$")

# Calls whose second positional argument is a problem code.
_CODE_SECOND = frozenset(
    {"RequestProblemError", "problem", "InvalidInputError", "RateLimitedError", "_refused"}
)


def _constant(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and CODE.match(node.value):
        return node.value
    return None


def raised_codes() -> dict[str, str]:
    """Every problem code written in the service's source, with where: an error class's
    ``code``, a ``code=`` argument, the code argument of the calls that take one."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / "service").rglob("*.py")):
        where = str(path.relative_to(ROOT))
        for node in ast.walk(ast.parse(path.read_text(), where)):
            codes: list[str | None] = []
            if isinstance(node, ast.ClassDef) and node.name.endswith("Error"):
                codes += [
                    _constant(st.value)
                    for st in node.body
                    if isinstance(st, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == "code" for t in st.targets)
                ]
            if isinstance(node, ast.Call):
                codes += [_constant(k.value) for k in node.keywords if k.arg == "code"]
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                if name in _CODE_SECOND and len(node.args) >= 2:
                    codes.append(_constant(node.args[1]))
            for code in codes:
                if code is not None:
                    found.setdefault(code, f"{where}:{getattr(node, 'lineno', 0)}")
    found.pop("error", None)  # ApplicationError's placeholder: every error raised has its own
    return found


def test_the_scan_finds_the_codes_it_should() -> None:
    """The scan itself reads each way a code is written (else the next test proves little)."""
    found = raised_codes()
    for code in ("malformed_json", "stale_version", "missing_token", "too_many_streams",
                 "illegal_move", "unknown_event", "seek_matched", "at_out_of_range"):  # fmt: skip
        assert code in found, code


def test_every_code_the_service_raises_has_a_problem_type() -> None:
    codes = {
        **raised_codes(),
        **{v.value: "service/rules/errors.py" for v in Violation},
        **dict.fromkeys(errors._HTTP_CODES.values(), "service/web/errors.py"),
        **{c: "service/web/errors.py" for c, _ in errors._UNKNOWN.values()},
        "http_error": "service/web/errors.py",
    }
    missing = {code: where for code, where in codes.items() if code not in PROBLEM_TYPES}
    assert not missing, f"codes without a problem type (catalogue.py): {missing}"


def test_every_code_of_the_contract_table_has_a_problem_type() -> None:
    text = (ROOT / "docs" / "api.md").read_text()
    table = text[text.index("### Problem details") : text.index("### Tokens")]
    rows = [line for line in table.splitlines() if re.match(r"^\| [0-9]{3} \|", line)]
    codes = {c for row in rows for c in re.findall(r"`([a-z_]+)`", row.split("|")[3])}
    codes |= set(re.findall(r"`([a-z_]+)`", table[table.index("Other HTTP errors") :]))
    codes -= {"errors", "bots"}  # a problem's member and a request's field, named in passing
    assert len(codes) > 60
    assert codes - PROBLEM_TYPES.keys() == set()


def test_titles_are_short_sentences_of_their_own() -> None:
    titles = [t.title for t in PROBLEM_TYPES.values()]
    assert len(set(titles)) == len(titles), "two codes share a title"
    for code, found in PROBLEM_TYPES.items():
        assert 8 <= len(found.title) <= 60, code
        assert found.title[0].isupper() and not found.title.endswith("."), code
        assert found.advice.endswith("."), code
    assert PROBLEM_TYPES["stale_version"].title == "The game changed since your copy"


@pytest.fixture(scope="module")
def client() -> FlaskClient:
    """The app on a database it never reaches (as `yokai openapi` builds it)."""
    settings = Settings(
        database_url="postgresql://nobody@localhost/nothing",
        rate_limit="",
        fairness_key="00" * 32,
        chain_key="00" * 32,
    )
    return create_app(settings).test_client()


@pytest.mark.parametrize("code", sorted(PROBLEM_TYPES))
def test_each_problem_type_uri_serves_its_page(client: FlaskClient, code: str) -> None:
    r = client.get(f"/problems/{code}")
    assert r.status_code == 200
    assert r.mimetype == "text/plain"
    text = r.get_data(as_text=True)
    assert text.startswith(PROBLEM_TYPES[code].title + "\n")
    assert PROBLEM_TYPES[code].advice in text
    assert code in text
    assert r.headers["Cache-Control"] == "no-cache"


def test_an_unknown_problem_code_has_no_page(client: FlaskClient) -> None:
    r = client.get("/problems/no_such_code")
    assert r.status_code == 404
    body = r.get_json(force=True)
    assert body["code"] == "not_found"
    assert body["title"] == PROBLEM_TYPES["not_found"].title
    assert client.get(body["type"]).status_code == 200  # the 404's own type resolves


def test_a_problem_carries_its_codes_title_and_a_type_that_resolves(
    client: FlaskClient,
) -> None:
    r = client.post("/v1/games", data=b"{", content_type="application/json")
    body = r.get_json(force=True)
    assert (r.status_code, body["code"]) == (400, "malformed_json")
    assert body["title"] == "The body is not valid JSON"
    page = client.get(body["type"])
    assert page.status_code == 200
    assert page.get_data(as_text=True).startswith(body["title"])


def test_a_404_says_what_is_not_there_in_the_projects_words(client: FlaskClient) -> None:
    r = client.get("/v1/nothing/here")
    body = r.get_json(force=True)
    assert (r.status_code, body["code"]) == (404, "not_found")
    assert body["detail"] == (
        "nothing is at /v1/nothing/here: the API's paths are in /v1/openapi.json"
    )
    assert "requested URL" not in body["detail"]  # not Werkzeug's stock sentence


def test_a_405_says_which_methods_the_resource_allows(client: FlaskClient) -> None:
    path = f"/v1/games/{uuid.uuid4()}"
    r = client.delete(path)
    body = r.get_json(force=True)
    assert (r.status_code, body["code"]) == (405, "method_not_allowed")
    allowed = [m.strip() for m in r.headers["Allow"].split(",")]
    assert "GET" in allowed and "DELETE" not in allowed
    assert body["detail"] == f"{path} does not take DELETE: it allows {', '.join(allowed)}"
    assert body["title"] == "This method is not allowed here"
