"""Signing in over HTTP against a real OpenID provider process (docs/api.md "Accounts",
issue 28): the service fetches the provider's discovery document and keys over HTTP on
127.0.0.1, as it would a real issuer's; the provider signs real tokens. Nothing of the
verifier is replaced. Also link codes, which move a session to a device without a
provider."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any
from uuid import uuid4

import pytest
from cryptography.hazmat.primitives import serialization
from jwt.algorithms import RSAAlgorithm
from werkzeug.test import TestResponse

from tests.support.api import OPERATOR, Api, bearer
from tests.support.oidc import Provider, oidc_provider
from tests.support.postgres import MakeApp

AUDIENCE = "yokai-web"


@pytest.fixture(scope="module")
def provider() -> Iterator[Provider]:
    with oidc_provider() as running:
        yield running


@pytest.fixture
def signing(make_app: MakeApp, provider: Provider) -> Api:
    """A process of the service that trusts the provider."""
    if not provider.running:
        provider.start()
    app = make_app(oidc_issuers=(provider.url,), oidc_audiences=(AUDIENCE,))
    return app.api()


def id_token(provider: Provider, subject: str, **claims: Any) -> str:
    return provider.mint(provider.claims(sub=subject, aud=AUDIENCE, **claims))


def sign_in(api: Api, token: str, *, player: str | None = None, **body: Any) -> TestResponse:
    headers = {"Idempotency-Key": str(uuid4()) * 2, **(bearer(player) if player else {})}
    return api.client.post("/v1/sessions", json={"id_token": token, **body}, headers=headers)


def signed_in(response: TestResponse) -> dict[str, Any]:
    assert response.status_code == 201, response.get_json()
    body: dict[str, Any] = response.get_json()
    return body


def test_one_identity_is_one_player_on_every_device(signing: Api, provider: Provider) -> None:
    subject = f"alice-{uuid4()}"
    laptop = signed_in(sign_in(signing, id_token(provider, subject, name="Alice\u200b Liddell")))
    assert laptop["new_player"] is True
    assert laptop["player"]["name"] == "Alice Liddell"  # cleaned to the name rule
    phone = signed_in(sign_in(signing, id_token(provider, subject)))
    assert phone["new_player"] is False
    assert phone["player"] == laptop["player"] and phone["token"] != laptop["token"]
    # The same games and inbox from both.
    game_id = signing.create(3)["id"]
    r = signing.post(f"/v1/games/{game_id}/seats/0", {}, **bearer(laptop["token"]))
    assert r.status_code == 201
    inboxes = [
        signing.get("/v1/me/games", **bearer(t)).get_json()["games"]
        for t in (laptop["token"], phone["token"])
    ]
    assert inboxes[0] == inboxes[1] and [g["game_id"] for g in inboxes[0]] == [game_id]
    listed = signing.get("/v1/me/tokens", **bearer(phone["token"])).get_json()["tokens"]
    assert {(t["id"], t["via"], t["current"]) for t in listed} == {
        (laptop["token_id"], "oidc", False),
        (phone["token_id"], "oidc", True),
    }


def test_a_new_players_name_is_the_requests_then_the_tokens(
    signing: Api, provider: Provider
) -> None:
    chosen = signed_in(sign_in(signing, id_token(provider, str(uuid4()), name="X"), name="Mio"))
    assert chosen["player"]["name"] == "Mio"
    preferred = id_token(provider, str(uuid4()), preferred_username="mio_k")
    assert signed_in(sign_in(signing, preferred))["player"]["name"] == "mio_k"
    unnamed = signed_in(sign_in(signing, id_token(provider, str(uuid4()), name="\u202e\u200b")))
    assert unnamed["player"]["name"] == "Player"


def test_an_anonymous_player_signs_in_and_keeps_their_games(
    signing: Api, provider: Provider
) -> None:
    r = signing.post("/v1/players", {"name": "Ren"})
    ren = r.get_json()
    game_id = signing.create(3)["id"]
    assert (
        signing.post(f"/v1/games/{game_id}/seats/1", {}, **bearer(ren["token"])).status_code == 201
    )
    subject = f"ren-{uuid4()}"
    linked = signed_in(sign_in(signing, id_token(provider, subject), player=ren["token"]))
    assert (linked["player"]["id"], linked["new_player"]) == (ren["id"], False)
    elsewhere = signed_in(sign_in(signing, id_token(provider, subject)))
    assert elsewhere["player"]["id"] == ren["id"]
    games = signing.get("/v1/me/games", **bearer(elsewhere["token"])).get_json()["games"]
    assert [g["game_id"] for g in games] == [game_id]
    # Signing in again with the player's own token changes nothing.
    again = signed_in(sign_in(signing, id_token(provider, subject), player=ren["token"]))
    assert again["player"]["id"] == ren["id"]
    # The identity is Ren's: another player cannot take it.
    other = signing.post("/v1/players", {"name": "Bo"}).get_json()["token"]
    r = sign_in(signing, id_token(provider, subject), player=other)
    assert (r.status_code, r.get_json()["code"]) == (409, "identity_in_use")
    # A seat's own token is no player's.
    game = signing.start(3)
    r = sign_in(signing, id_token(provider, f"s-{uuid4()}"), player=game.tokens[0])
    assert (r.status_code, r.get_json()["code"]) == (403, "forbidden")


def refusal(response: TestResponse) -> str:
    assert response.status_code == 401, response.get_json()
    problem = response.get_json()
    assert problem["code"] == "invalid_id_token"
    detail: str = problem["detail"]
    return detail


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda p: p.mint(p.claims(aud=AUDIENCE), alg="none"), "unsigned"),
        (lambda p: p.mint(p.claims(aud=AUDIENCE), alg="HS256", secret="s3cret"), "algorithm"),
        (lambda p: p.mint(p.claims(aud=AUDIENCE), key="foreign"), "signature"),
        (lambda p: p.mint(p.claims(aud=AUDIENCE), kid="no-such-key"), "JWKS"),
        (lambda p: p.mint(p.claims(aud="another-app")), "(aud)"),
        (lambda p: p.mint(p.claims(aud=AUDIENCE, iss="https://evil.example")), "issuer"),
        (lambda p: p.mint(p.claims(aud=AUDIENCE, exp=1_000_000_000)), "expired"),
        (lambda p: p.mint(p.claims(aud=AUDIENCE, sub=None)), "sub"),
        (lambda p: "not.a.token", "malformed"),
    ],
)
def test_a_token_that_does_not_hold_is_refused_saying_which_check_failed(
    signing: Api, provider: Provider, make: Any, says: str
) -> None:
    token = make(provider)
    detail = refusal(sign_in(signing, token))
    assert says.lower() in detail.lower(), detail
    assert token not in detail


def test_hmac_signed_with_the_providers_public_key_is_refused(
    signing: Api, provider: Provider
) -> None:
    """The classic attack: HS256 with the RSA public key (from the JWKS) as the secret."""
    jwk = next(k for k in provider.jwks()["keys"] if k["kty"] == "RSA")
    public = RSAAlgorithm.from_jwk(jwk)
    pem = public.public_bytes(  # type: ignore[union-attr]
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode()
    token = provider.mint(provider.claims(aud=AUDIENCE), alg="HS256", secret=pem, kid=jwk["kid"])
    assert "algorithm" in refusal(sign_in(signing, token)).lower()


def test_a_rotated_key_is_accepted(signing: Api, provider: Provider) -> None:
    signed_in(sign_in(signing, id_token(provider, str(uuid4()))))  # the keys are fetched
    provider.rotate()
    signed_in(sign_in(signing, id_token(provider, str(uuid4()))))


def test_a_provider_that_is_down_is_503_and_nothing_else_is_affected(
    make_app: MakeApp, provider: Provider
) -> None:
    provider.stop()
    try:
        api = make_app(oidc_issuers=(provider.url,), oidc_audiences=(AUDIENCE,)).api()
        r = api.client.post("/v1/sessions", json={"id_token": "a.b.c"})
        assert r.status_code in (401, 503)  # malformed before any fetch, or the keys
        token_shape = "eyJhbGciOiJSUzI1NiIsImtpZCI6ImsifQ.eyJpc3MiOiIifQ.c2ln"
        r = api.client.post("/v1/sessions", json={"id_token": token_shape})
        assert r.status_code == 401  # its iss is no configured issuer: no fetch at all
        r = api.client.post(
            "/v1/sessions", json={"id_token": _unsigned_from(provider.url, AUDIENCE)}
        )
        assert (r.status_code, r.get_json()["code"]) == (503, "provider_unavailable")
        assert r.headers["Retry-After"]
        assert api.create(3)["id"]  # the rest of the service is as it was
    finally:
        provider.start()


def _unsigned_from(issuer: str, audience: str) -> str:
    """A well-formed RS256 token naming the issuer (its signature need not hold: the
    keys are fetched before it is checked)."""

    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")

    claims = {"iss": issuer, "aud": audience, "sub": "x", "iat": 0, "exp": 4_000_000_000}
    return f"{part({'alg': 'RS256', 'kid': 'k1'})}.{part(claims)}.c2ln"


def together(*calls: Callable[[], TestResponse]) -> list[TestResponse]:
    """The calls, each in a thread of its own, let go at the same moment."""
    start = threading.Barrier(len(calls))

    def run(call: Callable[[], TestResponse]) -> TestResponse:
        start.wait(10)
        return call()

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(run, calls, timeout=60))


def test_two_first_sign_ins_at_once_make_one_player(make_app: MakeApp, provider: Provider) -> None:
    settings = {"oidc_issuers": (provider.url,), "oidc_audiences": (AUDIENCE,)}
    apis = [make_app(**settings).api(), make_app(**settings).api()]
    for round_ in range(5):
        token = id_token(provider, f"race-{round_}-{uuid4()}")
        answers = [signed_in(r) for r in together(*(partial(sign_in, api, token) for api in apis))]
        assert answers[0]["player"]["id"] == answers[1]["player"]["id"]
        assert sorted(a["new_player"] for a in answers) == [False, True]


def test_the_token_reaches_no_log(
    signing: Api, provider: Provider, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("DEBUG")
    token = id_token(provider, str(uuid4()))
    signed_in(sign_in(signing, token))
    expired = provider.mint(provider.claims(aud=AUDIENCE, exp=1_000_000_000))
    refusal(sign_in(signing, expired))
    for record in caplog.records:
        text = record.getMessage() + str(record.__dict__)
        assert token not in text and expired not in text


# --- link codes -----------------------------------------------------------------------


def new_player(api: Api, name: str = "Mio") -> str:
    token: str = api.post("/v1/players", {"name": name}).get_json()["token"]
    return token


def redeem(api: Api, code: str) -> TestResponse:
    return api.client.post(
        "/v1/sessions", json={"link_code": code}, headers={"Idempotency-Key": str(uuid4()) * 2}
    )


def test_a_link_code_moves_a_session_to_another_device_once(api: Api) -> None:
    mio = new_player(api)
    r = api.client.post("/v1/me/link-codes", headers=bearer(mio))
    assert r.status_code == 201, r.get_json()
    code = r.get_json()["code"]
    assert len(code.replace("-", "")) == 10 and r.get_json()["expires_at"]
    other = signed_in(redeem(api, code.lower().replace("-", " ")))  # typed any way
    me = api.get("/v1/me", **bearer(mio)).get_json()
    assert other["player"] == me and other["new_player"] is False
    listed = api.get("/v1/me/tokens", **bearer(other["token"])).get_json()["tokens"]
    assert [t["via"] for t in listed if t["current"]] == ["link"]
    for again in (code, "ZZZZZ-ZZZZZ"):  # used, unknown: the same answer
        r = redeem(api, again)
        problem = r.get_json()
        assert (r.status_code, problem["code"]) == (401, "invalid_link_code")
        assert problem["detail"] == "this link code is unknown, used or expired"
    assert api.client.post("/v1/me/link-codes").status_code == 401
    r = api.client.post("/v1/sessions", json={"link_code": "X", "id_token": "Y"})
    assert (r.status_code, r.get_json()["code"]) == (422, "invalid_request")


def test_two_redemptions_of_one_code_at_once_give_one_token(make_app: MakeApp) -> None:
    apis = [make_app().api(), make_app().api()]
    mio = new_player(apis[0])
    for _ in range(5):
        code = apis[0].client.post("/v1/me/link-codes", headers=bearer(mio)).get_json()["code"]
        statuses = [r.status_code for r in together(*(partial(redeem, api, code) for api in apis))]
        assert sorted(statuses) == [201, 401]


def test_link_codes_and_sign_ins_have_limits_of_their_own(make_app: MakeApp) -> None:
    api = make_app(link_code_limit="2 per hour", sign_in_limit="3 per hour").api()
    mio = new_player(api)
    made = [api.client.post("/v1/me/link-codes", headers=bearer(mio)) for _ in range(3)]
    assert [r.status_code for r in made] == [201, 201, 429]
    assert made[2].get_json()["code"] == "rate_limited"
    tries = [redeem(api, f"AAAAA-AAAA{n}").status_code for n in range(4)]
    assert tries == [401, 401, 401, 429]


def test_a_suspended_player_cannot_sign_in(signing: Api, provider: Provider) -> None:
    subject = f"troll-{uuid4()}"
    first = signed_in(sign_in(signing, id_token(provider, subject)))
    code = signing.client.post("/v1/me/link-codes", headers=bearer(first["token"]))
    r = signing.post(f"/v1/players/{first['player']['id']}/suspend", {"reason": "x"}, **OPERATOR)
    assert r.status_code == 200
    r = sign_in(signing, id_token(provider, subject))
    assert (r.status_code, r.get_json()["code"]) == (403, "player_suspended")
    r = redeem(signing, code.get_json()["code"])
    assert (r.status_code, r.get_json()["code"]) == (403, "player_suspended")
