"""The test OpenID provider (tests/support/oidc_provider.py, issue 28) is a real one: a
process serving discovery and a JWKS on 127.0.0.1 whose tokens PyJWT verifies with its
keys, that comes back on the same port with the same keys, and that the helper kills at
the end even when the test fails."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import jwt
import pytest

from tests.support.oidc import Provider, Stats, oidc_provider


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
