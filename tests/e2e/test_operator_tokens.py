"""Several operator tokens, each named in the audit: from the settings
(YOKAI_OPERATOR_TOKEN is ``operator``, YOKAI_OPERATOR_TOKENS gives more), or made in the
database by `yokai operator create NAME` and revoked by `yokai operator revoke NAME`."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from service import cli
from service.adapters import migrate
from service.application.identity.bearer import token_digest
from service.bootstrap import build, operator_tokens
from service.settings import ConfigurationError, Settings
from tests.support.api import OPERATOR, OPERATOR_TOKEN, Api, bearer
from tests.support.postgres import MakeApp, new_database

ALICE = "alice-token-" + "a" * 32
BOB = "bob-token-" + "b" * 32


def creator(api: Api, headers: dict[str, str]) -> dict[str, Any]:
    """Who the audit says created a game made with ``headers``."""
    r = api.post("/v1/games", {"players": 3, "seed": 1}, **headers)
    assert r.status_code == 201, r.get_json()
    trail = api.get(f"/v1/games/{r.get_json()['id']}/audit", **OPERATOR).get_json()
    actor: dict[str, Any] = trail["events"][0]["actor"]
    return actor


def test_each_operator_token_of_the_settings_is_named_in_the_audit(make_app: MakeApp) -> None:
    api = make_app(operator_tokens=f"alice:{ALICE}, bob:{BOB}").api()
    assert creator(api, bearer(ALICE)) == {"kind": "operator", "seat": None, "id": "alice"}
    assert creator(api, bearer(BOB))["id"] == "bob"
    assert creator(api, OPERATOR)["id"] == "operator"  # YOKAI_OPERATOR_TOKEN still works
    assert api.get("/v1/games", **bearer(ALICE + "x")).status_code == 401


@pytest.mark.parametrize(
    ("tokens", "message"),
    [
        (f"alice:{'a' * 31}", "the token of operator 'alice' has 31 characters"),
        (f"alice:{ALICE},alice:{BOB}", "operator 'alice' is given twice"),
        (f"operator:{ALICE}", "operator 'operator' is given twice"),
        (f"alice:{ALICE},bob:{ALICE}", "the same token"),
        (ALICE, "name:token"),
        (f"Alice:{ALICE}", "name:token"),
        (f"cli:{ALICE}", "name:token"),
    ],
)
def test_bad_operator_tokens_refuse_to_start(settings: Settings, tokens: str, message: str) -> None:
    """(Strictly: a short token is only warned of without YOKAI_STRICT_SECRETS=1.)"""
    with pytest.raises(ConfigurationError, match=message):
        build(replace(settings, operator_tokens=tokens, strict_secrets=True))


def test_without_yokai_operator_token_the_named_ones_suffice(settings: Settings) -> None:
    named = operator_tokens(replace(settings, operator_token=None, operator_tokens=f"bob:{BOB}"))
    assert named == {"bob": BOB}
    assert operator_tokens(settings) == {"operator": OPERATOR_TOKEN}


def yokai_operator(*args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli.main(["operator", *args])
    captured = capsys.readouterr()
    return code, captured.out.strip(), captured.err


@pytest.fixture
def as_owner(database_url: str, app_database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`yokai operator` runs as the tables' owner; the service as its own role."""
    monkeypatch.setenv("DATABASE_URL", app_database_url)
    monkeypatch.setenv("YOKAI_MIGRATION_DATABASE_URL", database_url)


def test_an_operator_made_in_the_database_acts_until_revoked(
    api: Api, sql: Any, as_owner: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, token, _ = yokai_operator("create", "night-shift", capsys=capsys)
    assert code == 0
    assert token.startswith("yop_") and len(token) >= 32
    (row,) = sql("SELECT token_sha256, revoked_at FROM operators WHERE name = 'night-shift'")
    assert row == (token_digest(token), None)  # only its digest is kept
    assert creator(api, bearer(token)) == {"kind": "operator", "seat": None, "id": "night-shift"}

    code, out, _ = yokai_operator("list", capsys=capsys)
    assert code == 0 and "night-shift\tcreated" in out and "\tactive" in out

    code, out, _ = yokai_operator("revoke", "night-shift", capsys=capsys)
    assert (code, out) == (0, "operator night-shift: revoked")
    r = api.get("/v1/games", **bearer(token))
    assert r.status_code == 401  # at once: database tokens are looked up every time

    code, _, err = yokai_operator("create", "night-shift", capsys=capsys)
    assert code == 2 and "never reused" in err
    code, _, err = yokai_operator("revoke", "night-shift", capsys=capsys)
    assert code == 2 and "no active operator" in err
    code, out, _ = yokai_operator("list", capsys=capsys)
    assert "night-shift\tcreated" in out and "\trevoked " in out


def test_an_empty_operator_list_says_so(
    server_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not silence, which reads as a command that did nothing; on stderr, so the listing
    a script reads stays empty."""
    url = new_database(server_url, "yokai_no_operators")
    migrate.upgrade(url)
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.delenv("YOKAI_MIGRATION_DATABASE_URL", raising=False)
    code, out, err = yokai_operator("list", capsys=capsys)
    assert (code, out) == (0, "")
    assert "no operators in the database" in err


@pytest.mark.parametrize("name", ["operator", "cli", "Bad Name", "_x", "x" * 64])
def test_an_operator_name_that_could_be_confused_is_refused(
    name: str, as_owner: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = yokai_operator("create", name, capsys=capsys)
    assert (code, out) == (2, "")
    assert "a name of lowercase letters" in err


def test_a_made_up_operator_token_is_refused(api: Api) -> None:
    r = api.get("/v1/games", **bearer("yop_" + "x" * 43))
    assert r.status_code == 401
