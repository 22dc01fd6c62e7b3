"""Sign-in with OpenID Connect, issue 28: the verifier of ID tokens
(service/adapters/identity/oidc.py) against a real provider process
(tests/support/oidc_provider.py), never a patched verifier.

Accepted: RS256, ES256 and EdDSA tokens signed with a key of the issuer's JWKS, for an
accepted audience, within their times (60 s of leeway). Refused, each with a detail that
says which check failed and never holds the token: alg none, HMAC (the issuer's public
key as the secret included), other algorithms, keys not in the JWKS, bad signatures,
other issuers, other audiences, tokens expired or from the future, missing claims,
malformed tokens. Keys are cached; an unknown kid fetches them again at most once a
minute per issuer (the test moves the verifier's clock, never sleeps); a provider that
is down is unavailable, unless its keys were fetched before. Issuer URLs are https, or
http on a loopback host only."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import os
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from service.adapters.identity.oidc import (
    MAX_TOKEN_CHARS,
    OidcVerifier,
    fetch_url,
    loopback_http_or_https,
)
from service.application.identity.ports import (
    IdTokenRefusedError,
    ProviderUnavailableError,
    VerifiedIdentity,
)
from tests.support.oidc import Provider, Stats, oidc_provider

AUDIENCE = "yokai-septet"


class Clock:
    """The verifier's clock of refetch limits, moved by the test (never slept)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class CountingFetch:
    """The verifier's own fetch (urllib), counting its calls."""

    def __init__(self) -> None:
        self.urls: list[str] = []

    def __call__(self, url: str) -> bytes:
        self.urls.append(url)
        return fetch_url(url)


@pytest.fixture(scope="module")
def provider() -> Iterator[Provider]:
    """The configured issuer (its keys are never rotated: tests that rotate have their
    own, ``fresh``)."""
    with oidc_provider() as started:
        yield started


@pytest.fixture(scope="module")
def stranger() -> Iterator[Provider]:
    """A provider no verifier is configured with."""
    with oidc_provider() as started:
        yield started


@pytest.fixture
def fresh() -> Iterator[Provider]:
    with oidc_provider() as started:
        yield started


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def verifier(provider: Provider, clock: Clock) -> OidcVerifier:
    return OidcVerifier([provider.url], [AUDIENCE, "another-client"], now=clock)


def _leaks(token: str, text: str) -> bool:
    """Whether ``text`` holds the token or any of its parts."""
    return token in text or any(len(part) >= 8 and part in text for part in token.split("."))


def refusal(verifier: OidcVerifier, token: str) -> str:
    """The detail of the verifier's refusal of ``token`` (which it must not echo)."""
    with pytest.raises(IdTokenRefusedError) as caught:
        verifier.verify(token)
    assert caught.value.code == "invalid_id_token"
    assert not _leaks(token, caught.value.detail) and not _leaks(token, str(caught.value))
    return caught.value.detail


def _kid(provider: Provider, alg: str) -> str:
    kid: str = next(k["kid"] for k in provider.jwks()["keys"] if k["alg"] == alg)
    return kid


def _rsa_public_pem(provider: Provider) -> bytes:
    """The provider's RSA public key as PEM, made from its JWKS as an attacker would."""
    jwk = next(k for k in provider.jwks()["keys"] if k["kty"] == "RSA")
    public = jwt.PyJWK(jwk).key
    assert isinstance(public, rsa.RSAPublicKey)
    return public.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def _crafted(header: dict[str, object], claims: dict[str, object]) -> str:
    """A token with this header and claims, and a signature of random bytes."""

    def part(value: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    signature = base64.urlsafe_b64encode(os.urandom(64)).rstrip(b"=").decode()
    return f"{part(header)}.{part(claims)}.{signature}"


# Accepted


@pytest.mark.parametrize("alg", ["RS256", "ES256", "EdDSA"])
def test_a_token_signed_with_a_key_of_the_issuers_jwks_is_verified(
    verifier: OidcVerifier, provider: Provider, alg: str
) -> None:
    token = provider.mint(provider.claims(aud=AUDIENCE, sub="alice-42", name="Alice"), alg=alg)
    assert verifier.verify(token) == VerifiedIdentity(
        issuer=provider.url, subject="alice-42", name="Alice"
    )


def test_the_name_is_the_name_claim_else_the_preferred_username_else_none(
    verifier: OidcVerifier, provider: Provider
) -> None:
    both = provider.claims(aud=AUDIENCE, name="Alice A.", preferred_username="alice")
    username = provider.claims(aud=AUDIENCE, preferred_username="alice")
    neither = provider.claims(aud=AUDIENCE)
    assert verifier.verify(provider.mint(both)).name == "Alice A."
    assert verifier.verify(provider.mint(username)).name == "alice"
    assert verifier.verify(provider.mint(neither)).name is None


def test_an_audience_list_holding_an_accepted_audience_is_accepted(
    verifier: OidcVerifier, provider: Provider
) -> None:
    listed = provider.claims(aud=["someone-else", "another-client"])
    assert verifier.verify(provider.mint(listed)).subject == "subject-1"


def test_a_token_naming_no_key_is_verified_with_the_issuers_only_key_of_its_algorithm(
    verifier: OidcVerifier, provider: Provider
) -> None:
    token = provider.mint(provider.claims(aud=AUDIENCE), alg="ES256", omit_kid=True)
    assert "kid" not in jwt.get_unverified_header(token)
    assert verifier.verify(token).issuer == provider.url


def test_times_within_the_60_second_leeway_are_accepted(
    verifier: OidcVerifier, provider: Provider
) -> None:
    now = int(time.time())
    just_expired = provider.claims(aud=AUDIENCE, iat=now - 600, exp=now - 30)
    just_future = provider.claims(aud=AUDIENCE, iat=now + 30, nbf=now + 30)
    assert verifier.verify(provider.mint(just_expired)).subject == "subject-1"
    assert verifier.verify(provider.mint(just_future)).subject == "subject-1"


# Refused: the algorithm


def test_an_unsigned_token_alg_none_is_refused(verifier: OidcVerifier, provider: Provider) -> None:
    token = provider.mint(provider.claims(aud=AUDIENCE), alg="none")
    assert token.endswith(".")
    assert refusal(verifier, token) == "the ID token is unsigned (alg none)"


def test_hs256_with_the_issuers_public_key_as_the_hmac_secret_is_refused(
    verifier: OidcVerifier, provider: Provider
) -> None:
    """The key-confusion attack: the public key (anyone can fetch it) as an HMAC secret,
    and the RSA key's kid, for a verifier that would hand that key to HMAC."""
    pem = _rsa_public_pem(provider)
    token = provider.mint(provider.claims(aud=AUDIENCE), alg="HS256", secret=pem.decode())
    signing_input, signature = token.rsplit(".", 1)
    forged = hmac.new(pem, signing_input.encode(), hashlib.sha256).digest()
    assert base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4)) == forged
    assert jwt.get_unverified_header(token)["kid"] == _kid(provider, "RS256")
    assert "HMAC" in refusal(verifier, token)


def test_hs256_with_any_secret_is_refused(verifier: OidcVerifier, provider: Provider) -> None:
    token = provider.mint(provider.claims(aud=AUDIENCE), alg="HS256", secret="s" * 64)
    assert refusal(verifier, token) == (
        "the ID token is signed with an HMAC algorithm: only an issuer's public-key "
        "signatures (RS256, ES256, EdDSA) are accepted"
    )


@pytest.mark.parametrize("alg", ["RS512", "PS256", "ES384", "HS512", "NONE", "dir"])
def test_other_algorithms_are_refused_before_any_key_is_fetched(
    provider: Provider, alg: str
) -> None:
    fetch = CountingFetch()
    verifier = OidcVerifier([provider.url], [AUDIENCE], fetch=fetch)
    token = _crafted({"alg": alg, "kid": _kid(provider, "RS256")}, provider.claims(aud=AUDIENCE))
    assert "alg" in refusal(verifier, token)
    assert fetch.urls == []


def test_an_algorithm_that_does_not_fit_its_key_is_refused(
    verifier: OidcVerifier, provider: Provider
) -> None:
    token = provider.mint(provider.claims(aud=AUDIENCE), alg="ES256", kid=_kid(provider, "RS256"))
    assert refusal(verifier, token) == "the ID token's algorithm (alg) does not fit its key (kid)"


# Refused: the key and the signature


@pytest.mark.parametrize("alg", ["RS256", "ES256", "EdDSA"])
def test_a_foreign_key_claiming_a_kid_of_the_jwks_is_refused(
    verifier: OidcVerifier, provider: Provider, alg: str
) -> None:
    token = provider.mint(provider.claims(aud=AUDIENCE), alg=alg, key="foreign")
    assert jwt.get_unverified_header(token)["kid"] == _kid(provider, alg)
    assert refusal(verifier, token) == (
        "the ID token's signature does not verify with the issuer's key"
    )


def test_a_kid_not_in_the_jwks_is_refused(verifier: OidcVerifier, provider: Provider) -> None:
    token = provider.mint(provider.claims(aud=AUDIENCE), key="foreign", kid="made-up-kid")
    assert refusal(verifier, token) == "the ID token's key (kid) is not in the issuer's JWKS"


def test_a_tampered_token_is_refused(verifier: OidcVerifier, provider: Provider) -> None:
    header, _, signature = provider.mint(provider.claims(aud=AUDIENCE, sub="alice")).split(".")
    _, claims, _ = provider.mint(provider.claims(aud=AUDIENCE, sub="mallory")).split(".")
    assert "signature does not verify" in refusal(verifier, f"{header}.{claims}.{signature}")


# Refused: the issuer


def test_a_token_of_an_issuer_not_configured_is_refused_without_asking_it(
    verifier: OidcVerifier, stranger: Provider
) -> None:
    before = stranger.stats()
    token = stranger.mint(stranger.claims(aud=AUDIENCE))
    assert refusal(verifier, token) == (
        "the ID token's issuer (iss) is not one of the accepted issuers"
    )
    assert stranger.stats() == before


def test_a_configured_issuer_named_by_another_providers_token_is_refused(
    verifier: OidcVerifier, provider: Provider, stranger: Provider
) -> None:
    """Another provider signs ``iss`` = the configured issuer: with its own kid, the key
    is not in the issuer's JWKS; with the issuer's kid, the signature does not verify."""
    claims = provider.claims(aud=AUDIENCE)  # iss: the configured provider
    own_kid = stranger.mint(claims)
    issuers_kid = stranger.mint(claims, kid=_kid(provider, "RS256"))
    assert refusal(verifier, own_kid) == "the ID token's key (kid) is not in the issuer's JWKS"
    assert refusal(verifier, issuers_kid) == (
        "the ID token's signature does not verify with the issuer's key"
    )


def test_a_token_without_an_issuer_is_refused(verifier: OidcVerifier, provider: Provider) -> None:
    token = provider.mint(provider.claims(aud=AUDIENCE, iss=None))
    assert "issuer (iss)" in refusal(verifier, token)


def test_an_issuer_whose_discovery_states_another_issuer_is_unavailable() -> None:
    with oidc_provider(issuer="https://elsewhere.example") as misstated:
        verifier = OidcVerifier([misstated.url], [AUDIENCE])
        token = misstated.mint(misstated.claims(aud=AUDIENCE))
        with pytest.raises(ProviderUnavailableError, match="states another issuer"):
            verifier.verify(token)
        assert misstated.stats() == Stats(discovery=1, jwks=0)


# Refused: the audience, the times, the claims


def test_a_token_for_another_audience_is_refused(
    verifier: OidcVerifier, provider: Provider
) -> None:
    for aud in ("someone-else", ["someone-else", "and-another"]):
        token = provider.mint(provider.claims(aud=aud))
        assert refusal(verifier, token) == "the ID token is not meant for this service (aud)"
    assert refusal(verifier, provider.mint(provider.claims())) == ("the ID token has no aud claim")


def test_a_token_expired_beyond_the_leeway_is_refused(
    verifier: OidcVerifier, provider: Provider
) -> None:
    now = int(time.time())
    token = provider.mint(provider.claims(aud=AUDIENCE, iat=now - 900, exp=now - 90))
    assert refusal(verifier, token) == "the ID token has expired (exp)"


def test_a_token_issued_in_the_future_beyond_the_leeway_is_refused(
    verifier: OidcVerifier, provider: Provider
) -> None:
    now = int(time.time())
    token = provider.mint(provider.claims(aud=AUDIENCE, iat=now + 90, exp=now + 900))
    assert refusal(verifier, token) == "the ID token was issued in the future (iat)"


def test_a_token_not_valid_before_a_time_beyond_the_leeway_is_refused(
    verifier: OidcVerifier, provider: Provider
) -> None:
    now = int(time.time())
    token = provider.mint(provider.claims(aud=AUDIENCE, nbf=now + 90, exp=now + 900))
    assert refusal(verifier, token) == "the ID token is not valid yet (nbf)"


@pytest.mark.parametrize("claim", ["sub", "exp", "iat"])
def test_a_token_without_a_required_claim_is_refused(
    verifier: OidcVerifier, provider: Provider, claim: str
) -> None:
    token = provider.mint(provider.claims(aud=AUDIENCE, **{claim: None}))
    assert refusal(verifier, token) == f"the ID token has no {claim} claim"


def test_a_subject_that_is_empty_or_not_a_string_is_refused(
    verifier: OidcVerifier, provider: Provider
) -> None:
    empty = provider.mint(provider.claims(aud=AUDIENCE, sub=""))
    number = provider.mint(provider.claims(aud=AUDIENCE, sub=42))
    assert refusal(verifier, empty) == "the ID token's subject (sub) is empty"
    assert refusal(verifier, number) == "the ID token's subject (sub) is not a string"


@pytest.mark.parametrize(
    "token",
    ["garbage", "two.segments", "four.segments.are.many", "e30.bm90IGpzb24.", "!!!.e30.sig"],
)
def test_a_malformed_token_is_refused(
    verifier: OidcVerifier, provider: Provider, token: str
) -> None:
    before = provider.stats()
    assert refusal(verifier, token).startswith("the ID token is malformed")
    assert provider.stats() == before


def test_a_header_without_an_algorithm_is_refused(verifier: OidcVerifier) -> None:
    assert refusal(verifier, "e30.e30.") == "the ID token's header names no algorithm (alg)"


def test_a_token_too_long_is_refused_unread(verifier: OidcVerifier, provider: Provider) -> None:
    token = provider.mint(provider.claims(aud=AUDIENCE, padding="x" * MAX_TOKEN_CHARS))
    assert refusal(verifier, token) == (f"the ID token is longer than {MAX_TOKEN_CHARS} characters")


# Keys: cached, refetched for a rotated key at most once a minute, an hour old


def test_keys_are_fetched_once_and_cached(fresh: Provider, clock: Clock) -> None:
    verifier = OidcVerifier([fresh.url], [AUDIENCE], now=clock)
    for alg in ("RS256", "ES256", "EdDSA", "RS256"):
        verifier.verify(fresh.mint(fresh.claims(aud=AUDIENCE), alg=alg))
        clock.advance(600)
    assert fresh.stats() == Stats(discovery=1, jwks=1)


def test_a_token_of_a_rotated_key_is_accepted_after_one_jwks_refetch(
    fresh: Provider, clock: Clock
) -> None:
    verifier = OidcVerifier([fresh.url], [AUDIENCE], now=clock)
    verifier.verify(fresh.mint(fresh.claims(aud=AUDIENCE)))
    kid = fresh.rotate()
    token = fresh.mint(fresh.claims(aud=AUDIENCE))
    assert jwt.get_unverified_header(token)["kid"] == kid
    assert verifier.verify(token).issuer == fresh.url
    assert fresh.stats() == Stats(discovery=1, jwks=2)


def test_a_second_unknown_kid_within_a_minute_is_refused_unfetched_until_a_minute_on(
    fresh: Provider, clock: Clock
) -> None:
    verifier = OidcVerifier([fresh.url], [AUDIENCE], now=clock)
    verifier.verify(fresh.mint(fresh.claims(aud=AUDIENCE)))
    fresh.rotate()
    verifier.verify(fresh.mint(fresh.claims(aud=AUDIENCE)))  # fetched again: 2
    fresh.rotate()
    second = fresh.mint(fresh.claims(aud=AUDIENCE))
    clock.advance(59)
    assert refusal(verifier, second) == "the ID token's key (kid) is not in the issuer's JWKS"
    for n in range(20):  # made-up kids fetch nothing either
        made_up = fresh.mint(fresh.claims(aud=AUDIENCE), kid=f"made-up-{n}")
        assert "not in the issuer's JWKS" in refusal(verifier, made_up)
    assert fresh.stats() == Stats(discovery=1, jwks=2)
    clock.advance(1)
    assert verifier.verify(second).issuer == fresh.url
    assert fresh.stats() == Stats(discovery=1, jwks=3)


def test_many_threads_meeting_a_new_kid_fetch_the_jwks_once(fresh: Provider, clock: Clock) -> None:
    verifier = OidcVerifier([fresh.url], [AUDIENCE], now=clock)
    verifier.verify(fresh.mint(fresh.claims(aud=AUDIENCE)))
    fresh.rotate()
    tokens = [fresh.mint(fresh.claims(aud=AUDIENCE, sub=f"s{n}")) for n in range(16)]
    barrier = threading.Barrier(len(tokens))

    def verify(token: str) -> str:
        barrier.wait(timeout=30)
        return verifier.verify(token).subject

    with ThreadPoolExecutor(len(tokens)) as pool:
        subjects = list(pool.map(verify, tokens))
    assert subjects == [f"s{n}" for n in range(16)]
    assert fresh.stats() == Stats(discovery=1, jwks=2)


def test_keys_an_hour_old_are_fetched_again_and_a_withdrawn_key_is_refused(
    fresh: Provider, clock: Clock
) -> None:
    verifier = OidcVerifier([fresh.url], [AUDIENCE], now=clock)
    old = fresh.mint(fresh.claims(aud=AUDIENCE, exp=int(time.time()) + 7200))
    verifier.verify(old)
    fresh.rotate(retire=True)
    clock.advance(3599)
    assert verifier.verify(old).issuer == fresh.url  # still cached
    clock.advance(1)
    assert refusal(verifier, old) == "the ID token's key (kid) is not in the issuer's JWKS"
    assert fresh.stats() == Stats(discovery=1, jwks=2)
    assert verifier.verify(fresh.mint(fresh.claims(aud=AUDIENCE))).issuer == fresh.url


def test_a_token_naming_no_key_is_refused_when_the_issuer_has_several_for_its_algorithm(
    fresh: Provider, clock: Clock
) -> None:
    verifier = OidcVerifier([fresh.url], [AUDIENCE], now=clock)
    fresh.rotate()  # two RSA keys
    token = fresh.mint(fresh.claims(aud=AUDIENCE), omit_kid=True)
    assert refusal(verifier, token) == (
        "the ID token names no key (kid), and the issuer's JWKS has no single key for its algorithm"
    )


def test_a_token_right_after_the_endpoints_were_discovered_is_verified(
    fresh: Provider, clock: Clock
) -> None:
    """The web client's sign-in: the page asks for the endpoints (discovery), and the ID
    token comes back within seconds; the discovery that worked does not count as a
    failed attempt that would hold back the first fetch of the keys."""
    verifier = OidcVerifier([fresh.url], [AUDIENCE], now=clock)
    assert verifier.endpoints(fresh.url).token_endpoint == fresh.url + "/token"
    assert verifier.verify(fresh.mint(fresh.claims(aud=AUDIENCE))).issuer == fresh.url
    assert fresh.stats() == Stats(discovery=1, jwks=1)


# A provider that is down


def test_a_provider_down_before_the_first_fetch_is_unavailable_then_asked_again(
    fresh: Provider, clock: Clock
) -> None:
    fetch = CountingFetch()
    verifier = OidcVerifier([fresh.url], [AUDIENCE], fetch=fetch, now=clock)
    token = fresh.mint(fresh.claims(aud=AUDIENCE))
    fresh.stop()
    with pytest.raises(ProviderUnavailableError, match=r"openid-configuration"):
        verifier.verify(token)
    assert len(fetch.urls) == 1
    clock.advance(4)
    with pytest.raises(ProviderUnavailableError, match="could not be reached 4 s ago"):
        verifier.verify(token)  # not asked again yet: one slow attempt per request is none
    assert len(fetch.urls) == 1
    fresh.start()
    clock.advance(1)
    assert verifier.verify(token).issuer == fresh.url
    assert fresh.stats() == Stats(discovery=1, jwks=1)


def test_keys_cached_before_the_provider_went_down_still_verify(
    fresh: Provider, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    verifier = OidcVerifier([fresh.url], [AUDIENCE], now=clock)
    exp = int(time.time()) + 7200
    token = fresh.mint(fresh.claims(aud=AUDIENCE, exp=exp))
    unknown = fresh.mint(fresh.claims(aud=AUDIENCE), kid="rotated-while-down")
    verifier.verify(token)
    fresh.stop()
    assert verifier.verify(token).issuer == fresh.url
    clock.advance(60)
    with pytest.raises(ProviderUnavailableError):
        verifier.verify(unknown)  # a new kid cannot be had while the provider is down
    clock.advance(3600)  # keys an hour old, the provider down: they are kept
    with caplog.at_level(logging.WARNING, logger="service.adapters.identity.oidc"):
        assert verifier.verify(token).issuer == fresh.url
    assert "keeping the keys fetched before" in caplog.text


# Never the token in the logs


def test_the_token_is_never_logged(
    provider: Provider, fresh: Provider, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock()
    verifier = OidcVerifier([provider.url, fresh.url], [AUDIENCE], now=clock)
    tokens = [
        provider.mint(provider.claims(aud=AUDIENCE)),
        provider.mint(provider.claims(aud=AUDIENCE), alg="none"),
        provider.mint(provider.claims(aud=AUDIENCE), key="foreign"),
        provider.mint(provider.claims(aud=AUDIENCE), kid="made-up"),
        provider.mint(provider.claims(aud="someone-else")),
        fresh.mint(fresh.claims(aud=AUDIENCE)),
    ]
    fresh.stop()
    said: list[tuple[str, str]] = []
    with caplog.at_level(logging.DEBUG):
        for token in tokens:
            try:
                verifier.verify(token)
            except (IdTokenRefusedError, ProviderUnavailableError) as error:
                said.append((token, str(error)))
    assert len(said) == 5
    assert not any(_leaks(token, text) for token, text in said)
    assert any("OIDC issuer" in r.getMessage() for r in caplog.records)  # it did log
    for record in caplog.records:
        text = " ".join([record.getMessage(), str(record.args), record.exc_text or ""])
        assert not any(_leaks(token, text) for token in tokens)


# The configuration


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
