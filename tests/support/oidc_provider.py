"""A real OpenID provider for tests (issue 28), as a process of its own:

    python -m tests.support.oidc_provider --port 0 [--keys FILE] [--issuer URL]

It prints its base URL (``http://127.0.0.1:PORT``) as stdout's first line, then serves
on 127.0.0.1 only, until killed. The issuer is its base URL unless ``--issuer`` makes its
discovery document state another (a provider that misstates itself). Its keys are kept
in ``--keys`` (made when missing), so a provider stopped and started again with the same
file and port is the same provider, keys and all (its /stats start again from zero).

What a relying party uses:

- ``GET /.well-known/openid-configuration``: ``issuer``, ``jwks_uri``,
  ``authorization_endpoint`` and ``token_endpoint``.
- ``GET /jwks``: the public keys, each with its ``kid``: RSA (RS256), EC P-256 (ES256),
  Ed25519 (EdDSA).
- The authorization code flow with PKCE (RFC 6749, RFC 7636, OpenID Connect Core 3.1),
  as a browser front end (a public client: no secret) signs in with it:

  - ``GET /authorize?response_type=code&client_id=&redirect_uri=&scope=openid ...
    &state=&nonce=&code_challenge=&code_challenge_method=S256`` answers a small HTML
    sign-in page: a form with a "User" field whose button posts it, with the request's
    parameters, back to ``POST /authorize``. That answers 302 to
    ``redirect_uri?code=...&state=...``. Any client id and any http(s) redirect URI are
    accepted (nothing is registered): a missing one is a 400 page; a request without
    ``openid`` in its scope, another response type or no S256 challenge is sent back to
    the redirect URI with ``error`` (and ``state``). The user name is anyone's: the ID
    token's ``sub`` is derived from it (the same name, the same subject), ``name`` is it.
  - ``POST /token`` (``application/x-www-form-urlencoded``: ``grant_type=
    authorization_code``, ``code``, ``redirect_uri``, ``client_id``, ``code_verifier``)
    answers ``{"id_token", "access_token", "token_type": "Bearer", "expires_in"}``: an
    RS256 ID token of ``iss`` (the issuer), ``aud`` (the client id), ``sub``, ``name``,
    ``nonce`` (the one given), ``iat``, ``exp`` (in five minutes) and ``auth_time``.
    A code is good for one exchange (tried at all, it is gone), for five minutes, for
    the client id and redirect URI it was given to and the verifier whose S256 is its
    challenge; anything else is 400 ``{"error": "invalid_grant"}`` (or
    ``invalid_request``, ``unsupported_grant_type``). Answers carry CORS headers
    (``Access-Control-Allow-Origin`` echoing the request's ``Origin``) and ``OPTIONS
    /token`` answers a preflight: a browser calls it from the front end's origin.

Test-only endpoints:

- ``POST /mint`` with JSON ``{"claims": {...}, "alg": "RS256"|"ES256"|"EdDSA"|"HS256"|
  "none", "kid": ..., "key": "foreign", "secret": ...}`` answers ``{"token": ...}``: the
  claims exactly as given, signed with the provider's key for ``alg`` (the newest RSA
  key for RS256), or with a key of the same type that is in no JWKS (``"key":
  "foreign"``). The header's ``kid`` is the signing key's (a foreign key's is the kid of
  the JWKS key of its type, as a forger would claim), unless ``kid`` is given: a string
  is put instead, null leaves ``kid`` out. HS256 tokens are signed here with HMAC-SHA256
  under ``secret`` (PyJWT itself refuses to sign with a PEM public key as the secret,
  which is the attack tests need); HS256 and ``none`` tokens carry the RSA key's kid.
- ``POST /rotate`` (JSON ``{"retire": true}`` optional) makes a new RSA key with a new
  kid, which joins the JWKS and signs RS256 tokens from then on; ``retire`` takes the
  older RSA keys out of the JWKS. Answers ``{"kid": ...}``.
- ``GET /stats``: ``{"discovery": n, "jwks": n}``, the times each was fetched.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import html
import json
import re
import secrets
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.hazmat.primitives.asymmetric.types import PrivateKeyTypes
from jwt.algorithms import ECAlgorithm, OKPAlgorithm, RSAAlgorithm

HOST = "127.0.0.1"
KTY = {"RS256": "rsa", "ES256": "ec", "EdDSA": "ed"}
CODE_SECONDS = 300  # an authorization code's life
ID_TOKEN_SECONDS = 300
PKCE_VERIFIER = re.compile(r"^[A-Za-z0-9._~-]{43,128}$")  # RFC 7636, 4.1
PKCE_CHALLENGE = re.compile(r"^[A-Za-z0-9_-]{43}$")  # base64url of a SHA-256, unpadded
AUTHORIZE_PARAMETERS = (
    "response_type",
    "client_id",
    "redirect_uri",
    "scope",
    "state",
    "nonce",
    "code_challenge",
    "code_challenge_method",
)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _pem(key: PrivateKeyTypes) -> str:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()


def _new(kind: str) -> PrivateKeyTypes:
    if kind == "rsa":
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)
    if kind == "ec":
        return ec.generate_private_key(ec.SECP256R1())
    return ed25519.Ed25519PrivateKey.generate()


def _entry(kind: str) -> dict[str, str]:
    return {"kid": f"{kind}-{secrets.token_hex(6)}", "pem": _pem(_new(kind))}


class Keys:
    """The provider's private keys, kept in a JSON file: per type, the keys in the JWKS
    (the last one signs), and one foreign key (in no JWKS)."""

    def __init__(self, path: Path | None) -> None:
        self._path = path
        self._lock = threading.Lock()
        if path is not None and path.exists():
            self._data: dict[str, Any] = json.loads(path.read_text())
        else:
            self._data = {
                "published": {kind: [_entry(kind)] for kind in ("rsa", "ec", "ed")},
                "foreign": {kind: _entry(kind)["pem"] for kind in ("rsa", "ec", "ed")},
            }
            self._save()
        self._loaded: dict[str, PrivateKeyTypes] = {}  # by PEM: loading RSA keys is slow

    def _load(self, pem: str) -> PrivateKeyTypes:
        if pem not in self._loaded:
            self._loaded[pem] = serialization.load_pem_private_key(pem.encode(), None)
        return self._loaded[pem]

    def _save(self) -> None:
        if self._path is not None:
            self._path.write_text(json.dumps(self._data))

    def current(self, kind: str) -> tuple[str, PrivateKeyTypes]:
        with self._lock:
            entry = self._data["published"][kind][-1]
            return entry["kid"], self._load(entry["pem"])

    def foreign(self, kind: str) -> PrivateKeyTypes:
        with self._lock:
            return self._load(self._data["foreign"][kind])

    def rotate(self, *, retire: bool) -> str:
        entry = _entry("rsa")
        with self._lock:
            published = self._data["published"]
            published["rsa"] = [entry] if retire else [*published["rsa"], entry]
            self._save()
        return entry["kid"]

    def jwks(self) -> dict[str, Any]:
        keys = []
        with self._lock:
            for kind, alg in (("rsa", "RS256"), ("ec", "ES256"), ("ed", "EdDSA")):
                for entry in self._data["published"][kind]:
                    jwk = _public_jwk(self._load(entry["pem"]))
                    keys.append({**jwk, "kid": entry["kid"], "alg": alg, "use": "sig"})
        return {"keys": keys}


def _public_jwk(private: PrivateKeyTypes) -> dict[str, Any]:
    public = private.public_key()
    if isinstance(public, rsa.RSAPublicKey):
        return RSAAlgorithm.to_jwk(public, as_dict=True)
    if isinstance(public, ec.EllipticCurvePublicKey):
        return ECAlgorithm.to_jwk(public, as_dict=True)
    if isinstance(public, ed25519.Ed25519PublicKey):
        return OKPAlgorithm.to_jwk(public, as_dict=True)
    raise TypeError(f"no JWK for {type(public).__name__}")


def mint(keys: Keys, request: dict[str, Any]) -> str:
    claims: dict[str, Any] = request.get("claims") or {}
    alg: str = request.get("alg", "RS256")
    rsa_kid, _ = keys.current("rsa")
    if alg in ("HS256", "none"):
        header: dict[str, Any] = {"alg": alg, "typ": "JWT", "kid": rsa_kid}
        if "kid" in request:
            header.pop("kid")
            if request["kid"] is not None:
                header["kid"] = request["kid"]
        signing_input = ".".join(
            _b64(json.dumps(part, separators=(",", ":")).encode()) for part in (header, claims)
        )
        signature = b""
        if alg == "HS256":
            secret = str(request.get("secret", "")).encode()
            signature = hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()
        return f"{signing_input}.{_b64(signature)}"
    kind = KTY[alg]
    kid, private = keys.current(kind)
    if request.get("key") == "foreign":
        private = keys.foreign(kind)
    if "kid" in request:
        kid = request["kid"]
    headers = {"kid": kid} if kid is not None else None
    return jwt.encode(claims, private, algorithm=alg, headers=headers)  # type: ignore[arg-type]


def subject_of(user: str) -> str:
    """The ``sub`` of a user name: the same name, the same subject."""
    return "user-" + hashlib.sha256(user.encode()).hexdigest()[:32]


class FlowError(Exception):
    """A refused step of the code flow: ``error`` is OAuth 2.0's code for it."""

    def __init__(self, error: str, description: str) -> None:
        super().__init__(description)
        self.error = error
        self.description = description


@dataclass(frozen=True)
class Grant:
    """What an authorization code was given for."""

    client_id: str
    redirect_uri: str
    challenge: str
    nonce: str | None
    user: str
    expires: float


def redirect_uri_error(parameters: dict[str, str]) -> str | None:
    """Why the request cannot be sent back to its redirect URI (then it gets a page of
    its own), or None."""
    if not parameters.get("client_id"):
        return "client_id is missing"
    uri = parameters.get("redirect_uri") or ""
    parts = urlsplit(uri)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.fragment:
        return "redirect_uri is not an absolute http(s) URL without a fragment"
    return None


def authorization_error(parameters: dict[str, str]) -> FlowError | None:
    """What is wrong with an authorization request (sent back to the redirect URI)."""
    if parameters.get("response_type") != "code":
        return FlowError("unsupported_response_type", "only response_type=code")
    if "openid" not in (parameters.get("scope") or "").split():
        return FlowError("invalid_scope", "the scope must include openid")
    if parameters.get("code_challenge_method") != "S256":
        return FlowError("invalid_request", "PKCE is required: code_challenge_method=S256")
    if not PKCE_CHALLENGE.match(parameters.get("code_challenge") or ""):
        return FlowError("invalid_request", "code_challenge is not a base64url SHA-256")
    return None


def with_query(uri: str, answer: dict[str, str]) -> str:
    """``uri`` with ``answer`` added to its query (the one it has kept)."""
    parts = urlsplit(uri)
    query = "&".join(q for q in (parts.query, urlencode(answer)) if q)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


def s256(verifier: str) -> str:
    return _b64(hashlib.sha256(verifier.encode("ascii")).digest())


class Flow:
    """The authorization codes given and not yet exchanged."""

    def __init__(self) -> None:
        self._codes: dict[str, Grant] = {}
        self._lock = threading.Lock()

    def grant(self, parameters: dict[str, str], user: str) -> str:
        code = secrets.token_urlsafe(32)
        grant = Grant(
            client_id=parameters["client_id"],
            redirect_uri=parameters["redirect_uri"],
            challenge=parameters["code_challenge"],
            nonce=parameters.get("nonce") or None,
            user=user,
            expires=time.monotonic() + CODE_SECONDS,
        )
        with self._lock:
            now = time.monotonic()
            self._codes = {c: g for c, g in self._codes.items() if g.expires > now}
            self._codes[code] = grant
        return code

    def exchange(self, form: dict[str, str]) -> Grant:
        """The grant of a token request's code, checked; the code is used up."""
        if form.get("grant_type") != "authorization_code":
            raise FlowError("unsupported_grant_type", "only grant_type=authorization_code")
        missing = [
            k for k in ("code", "redirect_uri", "client_id", "code_verifier") if not form.get(k)
        ]
        if missing:
            raise FlowError("invalid_request", f"missing: {', '.join(missing)}")
        with self._lock:
            grant = self._codes.pop(form["code"], None)  # one try, whatever comes of it
        if grant is None or grant.expires <= time.monotonic():
            raise FlowError("invalid_grant", "the code is unknown, used or expired")
        if form["client_id"] != grant.client_id:
            raise FlowError("invalid_grant", "the code was given to another client_id")
        if form["redirect_uri"] != grant.redirect_uri:
            raise FlowError("invalid_grant", "the redirect_uri is not the code's")
        verifier = form["code_verifier"]
        if not PKCE_VERIFIER.match(verifier) or not hmac.compare_digest(
            s256(verifier), grant.challenge
        ):
            raise FlowError("invalid_grant", "the code_verifier does not match the challenge")
        return grant


def id_token(keys: Keys, issuer: str, grant: Grant) -> str:
    now = int(time.time())
    claims: dict[str, Any] = {
        "iss": issuer,
        "aud": grant.client_id,
        "sub": subject_of(grant.user),
        "name": grant.user,
        "iat": now,
        "exp": now + ID_TOKEN_SECONDS,
        "auth_time": now,
    }
    if grant.nonce is not None:
        claims["nonce"] = grant.nonce
    return mint(keys, {"claims": claims, "alg": "RS256"})


def sign_in_page(parameters: dict[str, str]) -> bytes:
    """The provider's sign-in page: a user name, posted back with the request."""
    hidden = "".join(
        f'<input type="hidden" name="{name}" value="{html.escape(parameters[name])}">'
        for name in AUTHORIZE_PARAMETERS
        if name in parameters
    )
    client = html.escape(parameters["client_id"])
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<title>Test provider: sign in</title><link rel="icon" href="data:,"></head><body>'
        f"<h1>Sign in to {client}</h1>"
        f'<form method="post" action="/authorize">{hidden}'
        '<label for="user">User</label> '
        '<input id="user" name="user" required autocomplete="username"> '
        '<button type="submit">Sign in</button></form></body></html>'
    ).encode()


def error_page(message: str) -> bytes:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>Test provider: refused</title></head><body><h1>Refused</h1>"
        f"<p>{html.escape(message)}</p></body></html>"
    ).encode()


def serve(port: int, keys: Keys, issuer: str | None) -> None:
    stats = {"discovery": 0, "jwks": 0}
    lock = threading.Lock()
    flow = Flow()

    class Handler(BaseHTTPRequestHandler):
        def _send(self, status: int, body: bytes, content_type: str, **headers: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers.items():
                self.send_header(name.replace("_", "-"), value)
            self.end_headers()
            self.wfile.write(body)

        def _answer(self, status: int, body: Any, **headers: str) -> None:
            self._send(status, json.dumps(body).encode(), "application/json", **headers)

        def _page(self, status: int, body: bytes) -> None:
            self._send(status, body, "text/html; charset=utf-8", Cache_Control="no-store")

        def _redirect(self, location: str) -> None:
            self.send_response(302)
            self.send_header("Location", location)
            self.send_header("Content-Length", "0")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()

        def _cors(self) -> dict[str, str]:
            """The token endpoint is called from the front end's origin, by fetch."""
            origin = self.headers.get("Origin")
            if not origin:
                return {}
            return {"Access-Control-Allow-Origin": origin, "Vary": "Origin"}

        def _count(self, what: str) -> None:
            with lock:
                stats[what] += 1

        def _form(self) -> dict[str, str]:
            length = int(self.headers.get("Content-Length") or 0)
            return dict(parse_qsl(self.rfile.read(length).decode(), keep_blank_values=True))

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            if parts.path == "/.well-known/openid-configuration":
                self._count("discovery")
                self._answer(
                    200,
                    {
                        "issuer": issuer or base,
                        "jwks_uri": f"{base}/jwks",
                        "authorization_endpoint": f"{base}/authorize",
                        "token_endpoint": f"{base}/token",
                        "id_token_signing_alg_values_supported": ["RS256", "ES256", "EdDSA"],
                        "subject_types_supported": ["public"],
                        "response_types_supported": ["code"],
                        "grant_types_supported": ["authorization_code"],
                        "code_challenge_methods_supported": ["S256"],
                        "token_endpoint_auth_methods_supported": ["none"],
                        "scopes_supported": ["openid", "profile"],
                    },
                )
            elif parts.path == "/jwks":
                self._count("jwks")
                self._answer(200, keys.jwks())
            elif parts.path == "/stats":
                with lock:
                    self._answer(200, dict(stats))
            elif parts.path == "/authorize":
                self._authorize(dict(parse_qsl(parts.query, keep_blank_values=True)), None)
            else:
                self._answer(404, {"error": "not found"})

        def _authorize(self, parameters: dict[str, str], user: str | None) -> None:
            """The sign-in page (``user`` None), or the code sent to the redirect URI."""
            unusable = redirect_uri_error(parameters)
            if unusable is not None:
                self._page(400, error_page(unusable))
                return
            answer: dict[str, str] = {}
            refused = authorization_error(parameters)
            if refused is not None:
                answer = {"error": refused.error, "error_description": refused.description}
            elif user is None:
                self._page(200, sign_in_page(parameters))
                return
            elif not user.strip():
                answer = {"error": "access_denied", "error_description": "no user name"}
            else:
                answer = {"code": flow.grant(parameters, user.strip())}
            if "state" in parameters:
                answer["state"] = parameters["state"]
            self._redirect(with_query(parameters["redirect_uri"], answer))

        def _token(self) -> None:
            headers = {**self._cors(), "Cache_Control": "no-store", "Pragma": "no-cache"}
            content_type = self.headers.get("Content-Type") or ""
            if content_type.split(";")[0].strip() != "application/x-www-form-urlencoded":
                error = {"error": "invalid_request", "error_description": "a form is expected"}
                self._answer(400, error, **headers)
                return
            try:
                grant = flow.exchange(self._form())
            except FlowError as refused:
                error = {"error": refused.error, "error_description": refused.description}
                self._answer(400, error, **headers)
                return
            answer = {
                "id_token": id_token(keys, issuer or base, grant),
                "access_token": secrets.token_urlsafe(32),
                "token_type": "Bearer",
                "expires_in": ID_TOKEN_SECONDS,
            }
            self._answer(200, answer, **headers)

        def do_OPTIONS(self) -> None:
            if urlsplit(self.path).path != "/token":
                self._answer(404, {"error": "not found"})
                return
            asked = self.headers.get("Access-Control-Request-Headers") or "content-type"
            self.send_response(204)
            for name, value in self._cors().items():
                self.send_header(name, value)
            self.send_header("Access-Control-Allow-Methods", "POST")
            self.send_header("Access-Control-Allow-Headers", asked)
            self.send_header("Access-Control-Max-Age", "600")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_POST(self) -> None:
            path = urlsplit(self.path).path
            if path == "/authorize":
                form = self._form()
                parameters = {k: v for k, v in form.items() if k in AUTHORIZE_PARAMETERS}
                self._authorize(parameters, form.get("user", ""))
                return
            if path == "/token":
                self._token()
                return
            length = int(self.headers.get("Content-Length") or 0)
            request = json.loads(self.rfile.read(length) or b"{}")
            if path == "/mint":
                self._answer(200, {"token": mint(keys, request)})
            elif path == "/rotate":
                self._answer(200, {"kid": keys.rotate(retire=bool(request.get("retire")))})
            else:
                self._answer(404, {"error": "not found"})

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: tokens are in the answers, and nobody reads the log

    server = ThreadingHTTPServer((HOST, port), Handler)
    server.daemon_threads = True
    base = f"http://{HOST}:{server.server_address[1]}"
    print(base, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A real OpenID provider for tests.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--keys", type=Path, default=None, help="where the keys are kept")
    parser.add_argument("--issuer", default=None, help="the issuer discovery states")
    options = parser.parse_args(argv)
    serve(options.port, Keys(options.keys), options.issuer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
