"""The test OpenID provider (tests/support/oidc_provider.py, issue 28) is a real one: a
process serving discovery and a JWKS on 127.0.0.1 whose tokens PyJWT verifies with its
keys, that comes back on the same port with the same keys, and that the helper kills at
the end even when the test fails; and the authorization code flow with PKCE a browser
signs in with (its sign-in page, its codes, its token endpoint called cross-origin)."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from email.message import Message
from html.parser import HTMLParser
from typing import Any

import jwt
import pytest

from service.adapters.identity.oidc import OidcVerifier
from tests.support.oidc import Provider, Stats, oidc_provider
from tests.support.oidc_provider import subject_of


def _get(url: str) -> dict[str, object]:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=10) as answer:
        document: dict[str, object] = json.loads(answer.read())
        return document


def test_it_serves_discovery_and_a_jwks_whose_keys_verify_its_tokens() -> None:
    with oidc_provider() as provider:
        assert provider.url.startswith("http://127.0.0.1:")
        discovery = _get(provider.url + "/.well-known/openid-configuration")
        assert discovery["issuer"] == provider.url
        assert discovery["jwks_uri"] == provider.url + "/jwks"
        jwks = jwt.PyJWKSet.from_dict(provider.jwks())
        assert {key.algorithm_name for key in jwks} == {"RS256", "ES256", "EdDSA"}
        for alg in ("RS256", "ES256", "EdDSA"):
            token = provider.mint(provider.claims(aud="x"), alg=alg)
            key = jwks[jwt.get_unverified_header(token)["kid"]]
            claims = jwt.decode(token, key, algorithms=[alg], audience="x")
            assert claims["iss"] == provider.url
        assert provider.stats() == Stats(discovery=1, jwks=1)


def test_it_comes_back_on_the_same_port_with_the_same_keys() -> None:
    with oidc_provider() as provider:
        url, jwks = provider.url, provider.jwks()
        provider.stop()
        assert not provider.running
        with pytest.raises(urllib.error.URLError):
            _get(url + "/jwks")
        provider.start()
        assert provider.url == url
        assert provider.jwks() == jwks
        assert provider.stats() == Stats(discovery=0, jwks=1)  # counted from the restart


def test_the_process_is_killed_when_the_test_fails() -> None:
    kept: list[Provider] = []

    def failing_test() -> None:
        with oidc_provider() as provider:
            kept.append(provider)
            raise RuntimeError("the test failed")

    with pytest.raises(RuntimeError):
        failing_test()
    assert not kept[0].running
    with pytest.raises(urllib.error.URLError):
        _get(kept[0].url + "/stats")


def test_a_provider_may_state_another_issuer() -> None:
    with oidc_provider(issuer="https://elsewhere.example") as provider:
        discovery = _get(provider.url + "/.well-known/openid-configuration")
        assert discovery["issuer"] == "https://elsewhere.example"


# --- the authorization code flow with PKCE, over HTTP as a browser makes it -----------

CLIENT = "yokai-web"
FRONT = "http://127.0.0.1:9/"  # the front end's page: only ever a URL here, never called
ORIGIN = "http://127.0.0.1:9"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None  # the 302 is the answer under test


_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())


@dataclass
class _Answer:
    status: int
    headers: Message
    body: bytes

    def json(self) -> dict[str, Any]:
        found: dict[str, Any] = json.loads(self.body)
        return found


def _http(
    method: str, url: str, form: dict[str, str] | None = None, headers: dict[str, str] | None = None
) -> _Answer:
    data = None if form is None else urllib.parse.urlencode(form).encode()
    sent = dict(headers or {})
    if form is not None:
        sent.setdefault("Content-Type", "application/x-www-form-urlencoded")
    request = urllib.request.Request(url, data=data, method=method, headers=sent)
    try:
        with _OPENER.open(request, timeout=10) as answer:
            return _Answer(answer.status, answer.headers, answer.read())
    except urllib.error.HTTPError as error:
        with error:
            return _Answer(error.code, error.headers, error.read())


def _pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _authorization(challenge: str, **overrides: str) -> dict[str, str]:
    return {
        "response_type": "code",
        "client_id": CLIENT,
        "redirect_uri": FRONT,
        "scope": "openid profile",
        "state": "state-" + secrets.token_hex(8),
        "nonce": "nonce-" + secrets.token_hex(8),
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        **overrides,
    }


def _returned(answer: _Answer) -> dict[str, str]:
    """The query a 302 sends the browser back with."""
    assert answer.status == 302, answer.body
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(answer.headers["Location"]).query))


def _code(provider: Provider, parameters: dict[str, str], user: str) -> str:
    """Sign ``user`` in through the provider's page: its form, posted back."""
    page = _http("GET", f"{provider.url}/authorize?{urllib.parse.urlencode(parameters)}")
    assert page.status == 200
    assert page.headers.get_content_type() == "text/html"
    form = _Form()
    form.feed(page.body.decode())
    assert form.action == "/authorize" and form.method == "post"
    assert "user" in form.fields and form.button == "Sign in"
    assert {k: v for k, v in form.fields.items() if k != "user"} == parameters
    answer = _http("POST", provider.url + form.action, {**form.fields, "user": user})
    location = urllib.parse.urlsplit(answer.headers["Location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == parameters["redirect_uri"]
    returned = _returned(answer)
    assert returned["state"] == parameters["state"]
    return returned["code"]


class _Form(HTMLParser):
    """The sign-in page's form: its action, method, fields and button."""

    def __init__(self) -> None:
        super().__init__()
        self.action = self.method = self.button = ""
        self.fields: dict[str, str] = {}
        self._in_button = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.action, self.method = found.get("action", ""), found.get("method", "")
        elif tag == "input":
            self.fields[found["name"]] = found.get("value", "")
        elif tag == "button":
            self._in_button = True

    def handle_endtag(self, tag: str) -> None:
        self._in_button = self._in_button and tag != "button"

    def handle_data(self, data: str) -> None:
        if self._in_button:
            self.button += data


def _exchange(provider: Provider, code: str, verifier: str, **overrides: str) -> _Answer:
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": FRONT,
        "client_id": CLIENT,
        "code_verifier": verifier,
        **overrides,
    }
    return _http("POST", provider.url + "/token", form, {"Origin": ORIGIN})


def test_a_browser_signs_in_with_the_code_flow_and_pkce() -> None:
    with oidc_provider() as provider:
        discovery = _get(provider.url + "/.well-known/openid-configuration")
        assert discovery["authorization_endpoint"] == provider.url + "/authorize"
        assert discovery["token_endpoint"] == provider.url + "/token"
        assert discovery["code_challenge_methods_supported"] == ["S256"]

        verifier, challenge = _pkce()
        parameters = _authorization(challenge)
        code = _code(provider, parameters, "Alice Liddell")

        # The browser's preflight, then the exchange from the front end's origin.
        preflight = _http(
            "OPTIONS",
            provider.url + "/token",
            headers={
                "Origin": ORIGIN,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type",
            },
        )
        assert preflight.status == 204
        assert preflight.headers["Access-Control-Allow-Origin"] == ORIGIN
        assert "POST" in preflight.headers["Access-Control-Allow-Methods"]
        assert "content-type" in preflight.headers["Access-Control-Allow-Headers"].lower()
        answer = _exchange(provider, code, verifier)
        assert answer.status == 200, answer.body
        assert answer.headers["Access-Control-Allow-Origin"] == ORIGIN
        assert answer.headers["Cache-Control"] == "no-store"
        tokens = answer.json()
        assert tokens["token_type"] == "Bearer" and tokens["access_token"]
        assert tokens["expires_in"] > 0

        jwks = jwt.PyJWKSet.from_dict(provider.jwks())
        key = jwks[jwt.get_unverified_header(tokens["id_token"])["kid"]]
        claims = jwt.decode(tokens["id_token"], key, algorithms=["RS256"], audience=CLIENT)
        assert claims["iss"] == provider.url
        assert claims["name"] == "Alice Liddell"
        assert claims["nonce"] == parameters["nonce"]
        assert claims["sub"] == subject_of("Alice Liddell")
        assert claims["exp"] > claims["iat"]

        # The service's own verifier takes the token, and finds the endpoints.
        verifier_of_service = OidcVerifier([provider.url], [CLIENT])
        identity = verifier_of_service.verify(tokens["id_token"])
        assert (identity.issuer, identity.subject) == (provider.url, claims["sub"])
        assert identity.name == "Alice Liddell"
        endpoints = verifier_of_service.endpoints(provider.url)
        assert endpoints.authorization_endpoint == provider.url + "/authorize"
        assert endpoints.token_endpoint == provider.url + "/token"

        # The same user on another device: the same subject; another user: another.
        again_verifier, again_challenge = _pkce()
        again = _code(provider, _authorization(again_challenge), "Alice Liddell")
        other_claims = jwt.decode(
            _exchange(provider, again, again_verifier).json()["id_token"],
            options={"verify_signature": False},
        )
        assert other_claims["sub"] == claims["sub"]
        assert subject_of("Bob") != claims["sub"]


def test_a_code_is_good_once_for_its_client_its_redirect_and_its_verifier() -> None:
    with oidc_provider() as provider:
        verifier, challenge = _pkce()
        code = _code(provider, _authorization(challenge), "alice")
        assert _exchange(provider, code, verifier).status == 200
        used = _exchange(provider, code, verifier)
        assert used.status == 400 and used.json()["error"] == "invalid_grant"
        assert used.headers["Access-Control-Allow-Origin"] == ORIGIN  # readable by the page

        wrong = {
            "verifier": {"code_verifier": _pkce()[0]},
            "client": {"client_id": "another-client"},
            "redirect": {"redirect_uri": "http://127.0.0.1:9/elsewhere"},
        }
        for name, override in wrong.items():
            code = _code(provider, _authorization(challenge), "alice")
            refused = _exchange(provider, code, verifier, **override)
            assert (refused.status, refused.json()["error"]) == (400, "invalid_grant"), name
            # The code is spent by the try: the right verifier cannot use it after.
            assert _exchange(provider, code, verifier).json()["error"] == "invalid_grant", name

        unknown = _exchange(provider, "no-such-code", verifier)
        assert unknown.json()["error"] == "invalid_grant"
        grant = _exchange(provider, code, verifier, grant_type="password")
        assert grant.json()["error"] == "unsupported_grant_type"
        missing = _http(
            "POST", provider.url + "/token", {"grant_type": "authorization_code", "code": "x"}
        )
        assert missing.status == 400 and missing.json()["error"] == "invalid_request"


def test_a_request_without_pkce_or_openid_goes_back_with_an_error() -> None:
    with oidc_provider() as provider:
        _, challenge = _pkce()
        cases = {
            "invalid_request": {"code_challenge_method": "plain"},
            "unsupported_response_type": {"response_type": "token"},
            "invalid_scope": {"scope": "profile"},
        }
        for error, override in cases.items():
            parameters = _authorization(challenge, **override)
            answer = _http("GET", f"{provider.url}/authorize?{urllib.parse.urlencode(parameters)}")
            returned = _returned(answer)
            assert returned["error"] == error
            assert returned["state"] == parameters["state"]
            assert "code" not in returned
        no_challenge = _authorization(challenge)
        del no_challenge["code_challenge"]
        answer = _http("GET", f"{provider.url}/authorize?{urllib.parse.urlencode(no_challenge)}")
        assert _returned(answer)["error"] == "invalid_request"
        # Nowhere to send the browser back to: a page of the provider's own.
        bad = _authorization(challenge, redirect_uri="javascript:alert(1)")
        answer = _http("GET", f"{provider.url}/authorize?{urllib.parse.urlencode(bad)}")
        assert answer.status == 400 and "Location" not in answer.headers
