"""The OpenID Connect verifier's configuration (issue 28): issuers must be https, http only
on a loopback host (a test's provider), with the host parsed; it needs an issuer and an
audience; a token that is not even a JWT is refused before any provider is asked."""

from __future__ import annotations

import pytest

from service.adapters.identity.oidc import OidcVerifier, loopback_http_or_https
from service.application.identity.ports import IdTokenRefusedError


@pytest.mark.parametrize(
    ("url", "accepted"),
    [
        ("https://accounts.example.com", True),
        ("https://login.example.com/tenant/v2.0/", True),
        ("http://127.0.0.1:8080", True),
        ("http://127.5.6.7", True),
        ("http://localhost:9000", True),
        ("http://[::1]:9000", True),
        ("http://accounts.example.com", False),
        ("http://127.0.0.1.example.com", False),
        ("http://localhost.example.com", False),
        ("http://10.0.0.1", False),
        ("ftp://127.0.0.1", False),
        ("file:///etc/passwd", False),
        ("https://", False),
        ("accounts.example.com", False),
    ],
)
def test_issuers_are_https_or_http_on_a_loopback_host(url: str, accepted: bool) -> None:
    assert loopback_http_or_https(url) is accepted


def test_an_issuer_that_is_not_https_is_refused_at_construction() -> None:
    with pytest.raises(ValueError, match="not an https URL"):
        OidcVerifier(["http://127.0.0.1.example.com"], ["yokai"])


def test_a_verifier_needs_an_issuer_and_an_audience() -> None:
    with pytest.raises(ValueError, match="at least one issuer and one audience"):
        OidcVerifier(["https://accounts.example.com"], [])
    with pytest.raises(ValueError, match="at least one issuer and one audience"):
        OidcVerifier([], ["yokai"])


@pytest.mark.parametrize("token", ["", "garbage", "a.b", "a.b.c", "e30.e30", "!!!.e30.sig"])
def test_a_malformed_token_is_refused_without_asking_the_provider(token: str) -> None:
    def fetch(url: str) -> bytes:
        raise AssertionError(f"fetched {url}")

    verifier = OidcVerifier(["https://accounts.example.com"], ["yokai"], fetch=fetch)
    with pytest.raises(IdTokenRefusedError, match="malformed") as caught:
        verifier.verify(token)
    assert caught.value.code == "invalid_id_token"
