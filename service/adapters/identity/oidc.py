"""OpenID Connect ID tokens, verified (issue 28): :class:`OidcVerifier` implements the
identity port ``IdTokens`` (service/application/identity/ports.py).

Why PyJWT: it is a maintained JOSE library built on the ``cryptography`` package the
service already trusts for its other keys, its ``decode`` takes an explicit allow-list of
algorithms (never the token's own ``alg``), and it checks ``iss``, ``aud``, ``exp``,
``iat`` and ``nbf`` with a leeway and the claims it is told to require. What PyJWT does
not do for us is done here, before it runs:

- The token's ``alg`` is refused early when it is ``none`` or an HMAC one: a verifier
  that handed an issuer's public key to HMAC would accept a token "signed" with that
  public key as the secret. Only RS256, ES256 and EdDSA are allowed, and only with keys
  of the issuer's JWKS whose type fits the algorithm (PyJWT binds each JWK to one
  algorithm; ``oct`` keys and keys for encryption are dropped when the JWKS is read).
- The token's unverified ``iss`` only chooses which configured issuer's keys to use
  (it must be one of them); ``jwt.decode`` then verifies ``iss`` with the signature.
- Keys: each issuer's ``jwks_uri`` is found through its discovery document
  (``{issuer}/.well-known/openid-configuration``, which must state the same
  ``issuer``) and its JWKS is cached. An unknown ``kid`` fetches the JWKS again (a
  provider that rotated its keys), at most once a minute per issuer
  (:data:`REFETCH_SECONDS`), so tokens with made-up kids cannot make the service hammer
  the provider; within that minute another unknown kid is refused as not in the JWKS.
  Keys are fetched again once an hour (:data:`KEYS_MAX_AGE`), so a key the provider
  withdrew stops verifying; if the provider is down then, the cached keys are kept. A
  first fetch that fails is tried again no sooner than :data:`RETRY_SECONDS` later
  (meanwhile :class:`ProviderUnavailableError` at once, not one slow attempt per
  request). One lock per issuer: its fetches are made one at a time, and verifying with
  cached keys takes no lock. The clock is injectable (``now``) so tests move it.
- HTTP: the standard library's urllib (httpx is only a dev dependency), 5 s timeout,
  1 MiB at most, redirects not followed. Issuer and ``jwks_uri`` URLs must be https;
  http only on a loopback host, which only tests use (the settings check
  ``YOKAI_OIDC_ISSUERS`` too; here the host is parsed, so ``http://127.0.0.1.example``
  is not loopback).

A refusal's detail says which check failed and never echoes the token, nor any part of
it; nothing here logs a token.
"""

from __future__ import annotations

import http.client
import json
import logging
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import jwt
from jwt import PyJWK, PyJWKSet
from jwt.exceptions import InvalidSubjectError

from service.adapters.hosts import loopback
from service.application.identity.ports import (
    IdTokenRefusedError,
    ProviderEndpoints,
    ProviderUnavailableError,
    VerifiedIdentity,
)

log = logging.getLogger(__name__)

ALGORITHMS = ("RS256", "ES256", "EdDSA")
"""The only algorithms accepted, whatever the token's header says."""
LEEWAY_SECONDS = 60
REQUIRED_CLAIMS = ["iss", "sub", "aud", "exp", "iat"]  # OpenID Connect Core 1.0, 2
REFETCH_SECONDS = 60.0  # an unknown kid fetches the issuer's JWKS again at most this often
RETRY_SECONDS = 5.0  # an issuer whose keys were never had is asked again after this
KEYS_MAX_AGE = 3600.0  # keys fetched this long ago are fetched again when next used
TIMEOUT_SECONDS = 5.0
MAX_DOCUMENT_BYTES = 1024 * 1024
MAX_TOKEN_CHARS = 16 * 1024

Fetch = Callable[[str], bytes]
"""The body of a GET of a URL; OSError (or ValueError) when it cannot be had."""


def loopback_http_or_https(url: str) -> bool:
    """An https URL, or an http one on a loopback host (a test's provider)."""
    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return True
    return parts.scheme == "http" and loopback(parts.hostname)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # urllib then raises HTTPError with the 3xx status


def fetch_url(url: str, timeout: float = TIMEOUT_SECONDS) -> bytes:
    """GET ``url``: the body of a 200 answer, at most :data:`MAX_DOCUMENT_BYTES`;
    OSError or ValueError otherwise. Redirects are not followed; a loopback host is
    reached directly, never through a proxy of the environment."""
    handlers: list[urllib.request.BaseHandler] = [_NoRedirect()]
    if loopback(urlsplit(url).hostname):
        handlers.append(urllib.request.ProxyHandler({}))
    opener = urllib.request.build_opener(*handlers)
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    try:
        with opener.open(request, timeout=timeout) as answer:
            if answer.status != 200:
                raise ValueError(f"answered {answer.status}")
            body: bytes = answer.read(MAX_DOCUMENT_BYTES + 1)
    except http.client.HTTPException as error:
        raise OSError(f"{type(error).__name__}: {error}") from error
    if len(body) > MAX_DOCUMENT_BYTES:
        raise ValueError(f"more than {MAX_DOCUMENT_BYTES} bytes")
    return body


@dataclass
class _Issuer:
    """One issuer's keys, as last fetched, and when."""

    url: str
    lock: threading.Lock = field(default_factory=threading.Lock)
    jwks_uri: str | None = None
    endpoints: ProviderEndpoints | None = None  # for front ends, from discovery
    keys: tuple[PyJWK, ...] | None = None  # replaced whole, read without the lock
    fetched_at: float = 0.0  # when ``keys`` were fetched
    attempted_at: float | None = None  # the last fetch, whatever came of it
    refetched_at: float | None = None  # the last fetch for an unknown kid

    def find(self, kid: str | None, alg: str) -> PyJWK | None:
        keys = self.keys or ()
        if kid is not None:
            return next((key for key in keys if key.key_id == kid), None)
        fitting = [key for key in keys if key.algorithm_name == alg]
        return fitting[0] if len(fitting) == 1 else None

    def stale(self, now: float) -> bool:
        return self.keys is not None and now - self.fetched_at >= KEYS_MAX_AGE

    def since(self, then: float | None, now: float) -> float:
        return float("inf") if then is None else now - then


class OidcVerifier:
    """Verifies ID tokens of the configured ``issuers`` meant for one of ``audiences``
    (the ``IdTokens`` port). ``fetch`` GETs a URL (default: :func:`fetch_url`);
    ``now`` is the clock of the refetch limits (default: ``time.monotonic``)."""

    def __init__(
        self,
        issuers: Iterable[str],
        audiences: Iterable[str],
        *,
        fetch: Fetch | None = None,
        now: Callable[[], float] | None = None,
    ) -> None:
        self._issuers = {url: _Issuer(url) for url in issuers}
        self._audiences = tuple(audiences)
        if not self._issuers or not self._audiences:
            raise ValueError("an OIDC verifier needs at least one issuer and one audience")
        for url in self._issuers:
            if not loopback_http_or_https(url):
                raise ValueError(f"OIDC issuer {url!r} is not an https URL")
        self._fetch: Fetch = fetch or fetch_url
        self._now: Callable[[], float] = now or time.monotonic

    @property
    def issuers(self) -> tuple[str, ...]:
        return tuple(self._issuers)

    @property
    def audiences(self) -> tuple[str, ...]:
        return self._audiences

    def verify(self, id_token: str) -> VerifiedIdentity:
        if len(id_token) > MAX_TOKEN_CHARS:
            raise IdTokenRefusedError(f"the ID token is longer than {MAX_TOKEN_CHARS} characters")
        try:
            header = jwt.get_unverified_header(id_token)
            unverified = jwt.decode(id_token, options={"verify_signature": False})
        except jwt.PyJWTError:
            raise IdTokenRefusedError(
                "the ID token is malformed: not a signed JWT (three base64url parts, "
                "a JSON header and JSON claims)"
            ) from None
        alg = header.get("alg")
        if not isinstance(alg, str):
            raise IdTokenRefusedError("the ID token's header names no algorithm (alg)")
        if alg.lower() == "none":
            raise IdTokenRefusedError("the ID token is unsigned (alg none)")
        if alg.upper().startswith("HS"):
            raise IdTokenRefusedError(
                "the ID token is signed with an HMAC algorithm: only an issuer's "
                "public-key signatures (RS256, ES256, EdDSA) are accepted"
            )
        if alg not in ALGORITHMS:
            raise IdTokenRefusedError(
                "the ID token's algorithm (alg) is not accepted: RS256, ES256 or EdDSA"
            )
        iss = unverified.get("iss")
        issuer = self._issuers.get(iss) if isinstance(iss, str) else None
        if issuer is None:
            raise IdTokenRefusedError(
                "the ID token's issuer (iss) is not one of the accepted issuers"
            )
        kid = header.get("kid")
        key = self._key(issuer, kid, alg)
        if key is None:
            if kid is None:
                raise IdTokenRefusedError(
                    "the ID token names no key (kid), and the issuer's JWKS has no single "
                    "key for its algorithm"
                )
            raise IdTokenRefusedError("the ID token's key (kid) is not in the issuer's JWKS")
        claims = self._decode(id_token, key, issuer.url)
        subject = claims["sub"]
        if not subject:
            raise IdTokenRefusedError("the ID token's subject (sub) is empty")
        return VerifiedIdentity(issuer=issuer.url, subject=subject, name=_name(claims))

    def _decode(self, id_token: str, key: PyJWK, issuer: str) -> dict[str, Any]:
        try:
            return jwt.decode(
                id_token,
                key,
                algorithms=list(ALGORITHMS),
                audience=list(self._audiences),
                issuer=issuer,
                leeway=LEEWAY_SECONDS,
                options={"require": REQUIRED_CLAIMS, "enforce_minimum_key_length": True},
            )
        except jwt.InvalidSignatureError:
            raise IdTokenRefusedError(
                "the ID token's signature does not verify with the issuer's key"
            ) from None
        except jwt.InvalidAlgorithmError:
            raise IdTokenRefusedError(
                "the ID token's algorithm (alg) does not fit its key (kid)"
            ) from None
        except jwt.ExpiredSignatureError:
            raise IdTokenRefusedError("the ID token has expired (exp)") from None
        except jwt.ImmatureSignatureError as error:
            if "(iat)" in str(error):  # PyJWT's own message, never the token's text
                raise IdTokenRefusedError("the ID token was issued in the future (iat)") from None
            raise IdTokenRefusedError("the ID token is not valid yet (nbf)") from None
        except jwt.InvalidAudienceError:
            raise IdTokenRefusedError("the ID token is not meant for this service (aud)") from None
        except jwt.InvalidIssuerError:
            raise IdTokenRefusedError(
                "the ID token's issuer (iss) is not one of the accepted issuers"
            ) from None
        except jwt.MissingRequiredClaimError as error:
            raise IdTokenRefusedError(f"the ID token has no {error.claim} claim") from None
        except InvalidSubjectError:
            raise IdTokenRefusedError("the ID token's subject (sub) is not a string") from None
        except jwt.InvalidIssuedAtError:
            raise IdTokenRefusedError("the ID token's issue time (iat) is not a number") from None
        except jwt.DecodeError:
            raise IdTokenRefusedError(
                "the ID token is malformed: its claims do not decode"
            ) from None
        except jwt.InvalidKeyError:
            raise IdTokenRefusedError("the issuer's key is too weak to verify with") from None
        except jwt.PyJWTError:
            raise IdTokenRefusedError("the ID token does not hold") from None

    def _key(self, issuer: _Issuer, kid: Any, alg: str) -> PyJWK | None:
        """The issuer's key for the token (None: not in its JWKS). The JWKS is fetched
        the first time (and again :data:`RETRY_SECONDS` after a failure); again for an
        unknown kid, at most once every :data:`REFETCH_SECONDS`; and again when an hour
        old, keeping the old keys if the provider cannot be reached then."""
        if kid is not None and not isinstance(kid, str):
            return None
        key = issuer.find(kid, alg)
        if key is not None and not issuer.stale(self._now()):
            return key  # the usual way: cached keys, no lock
        with issuer.lock:  # one fetch at a time; the others then find its keys
            now = self._now()
            key = issuer.find(kid, alg)
            if issuer.keys is None:
                waited = issuer.since(issuer.attempted_at, now)
                if waited < RETRY_SECONDS:
                    raise ProviderUnavailableError(
                        f"the OpenID provider {issuer.url} could not be reached {waited:.0f} s ago"
                    )
                self._refresh(issuer, now)
            elif key is not None:
                tried_lately = issuer.since(issuer.attempted_at, now) < REFETCH_SECONDS
                if not issuer.stale(now) or tried_lately:
                    return key
                try:
                    self._refresh(issuer, now)
                except ProviderUnavailableError:
                    log.warning("OIDC issuer %s: keeping the keys fetched before", issuer.url)
                    return key
            else:
                if issuer.since(issuer.refetched_at, now) < REFETCH_SECONDS:
                    return None  # a kid made up, or a key too new: the next minute
                issuer.refetched_at = now
                self._refresh(issuer, now)
            return issuer.find(kid, alg)

    def _refresh(self, issuer: _Issuer, now: float) -> None:
        """Fetch the issuer's JWKS (its discovery document first, if not yet had)."""
        issuer.attempted_at = now
        try:
            if issuer.jwks_uri is None:
                issuer.jwks_uri, issuer.endpoints = self._discover(issuer.url)
            keys = self._jwks(issuer.jwks_uri)
        except ProviderUnavailableError as error:
            issuer.jwks_uri = None  # discovered again next time: it may have moved
            log.warning("OIDC issuer %s unavailable: %s", issuer.url, error)
            raise
        issuer.keys, issuer.fetched_at = keys, now
        log.info("OIDC issuer %s: %d signing keys fetched", issuer.url, len(keys))

    def _document(self, url: str) -> dict[str, Any]:
        try:
            document = json.loads(self._fetch(url))
        except (OSError, ValueError) as error:
            raise ProviderUnavailableError(f"GET {url}: {error}") from error
        if not isinstance(document, dict):
            raise ProviderUnavailableError(f"GET {url}: not a JSON object")
        return document

    def endpoints(self, issuer: str) -> ProviderEndpoints:
        """The issuer's authorization and token endpoints (discovered once)."""
        found = self._issuers.get(issuer)
        if found is None:
            raise ProviderUnavailableError(f"{issuer!r} is not a configured issuer")
        with found.lock:
            if found.endpoints is None:
                now = self._now()
                if found.since(found.attempted_at, now) < RETRY_SECONDS:
                    raise ProviderUnavailableError(f"{issuer} could not be reached lately")
                try:
                    found.jwks_uri, found.endpoints = self._discover(found.url)
                except ProviderUnavailableError as error:
                    # Only a failure paces the next attempt: one that worked must not
                    # hold back the first fetch of the keys (a sign-in right after).
                    found.attempted_at = now
                    log.warning("OIDC issuer %s unavailable: %s", issuer, error)
                    raise
            if found.endpoints is None:
                raise ProviderUnavailableError(f"{issuer} states no authorization endpoints")
            return found.endpoints

    def _discover(self, issuer: str) -> tuple[str, ProviderEndpoints | None]:
        """The issuer's jwks_uri, and its endpoints for front ends if it states them
        (verifying ID tokens needs only the keys)."""
        url = issuer.rstrip("/") + "/.well-known/openid-configuration"
        document = self._document(url)
        jwks_uri = self._jwks_uri(issuer, url, document)
        urls = [document.get(k) for k in ("authorization_endpoint", "token_endpoint")]
        if not all(isinstance(u, str) and loopback_http_or_https(u) for u in urls):
            return jwks_uri, None
        return jwks_uri, ProviderEndpoints(issuer, str(urls[0]), str(urls[1]))

    def _jwks_uri(self, issuer: str, url: str, document: dict[str, Any]) -> str:
        if document.get("issuer") != issuer:
            raise ProviderUnavailableError(f"{url} states another issuer")
        jwks_uri = document.get("jwks_uri")
        if not isinstance(jwks_uri, str) or not loopback_http_or_https(jwks_uri):
            raise ProviderUnavailableError(f"{url} states no https jwks_uri")
        if urlsplit(issuer).scheme == "https" and urlsplit(jwks_uri).scheme != "https":
            raise ProviderUnavailableError(f"{url} states an http jwks_uri")
        return jwks_uri

    def _jwks(self, url: str) -> tuple[PyJWK, ...]:
        document = self._document(url)
        try:
            found = PyJWKSet.from_dict(document)
        except jwt.PyJWTError as error:
            raise ProviderUnavailableError(f"GET {url}: {error}") from error
        keys = tuple(
            key
            for key in found
            if key.algorithm_name in ALGORITHMS and key.public_key_use in (None, "sig")
        )
        if not keys:
            raise ProviderUnavailableError(f"GET {url}: no RS256, ES256 or EdDSA signing key")
        return keys


def _name(claims: dict[str, Any]) -> str | None:
    for claim in ("name", "preferred_username"):
        value = claims.get(claim)
        if isinstance(value, str) and value.strip():
            return value
    return None
