"""A real OpenID provider for tests (issue 28), as a process of its own:

    python -m tests.support.oidc_provider --port 0 [--keys FILE] [--issuer URL]

It prints its base URL (``http://127.0.0.1:PORT``) as stdout's first line, then serves
on 127.0.0.1 only, until killed. The issuer is its base URL unless ``--issuer`` makes its
discovery document state another (a provider that misstates itself). Its keys are kept
in ``--keys`` (made when missing), so a provider stopped and started again with the same
file and port is the same provider, keys and all (its /stats start again from zero).

What a relying party uses:

- ``GET /.well-known/openid-configuration``: ``issuer`` and ``jwks_uri``.
- ``GET /jwks``: the public keys, each with its ``kid``: RSA (RS256), EC P-256 (ES256),
  Ed25519 (EdDSA).

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
import json
import secrets
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.hazmat.primitives.asymmetric.types import PrivateKeyTypes
from jwt.algorithms import ECAlgorithm, OKPAlgorithm, RSAAlgorithm

HOST = "127.0.0.1"
KTY = {"RS256": "rsa", "ES256": "ec", "EdDSA": "ed"}


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


def serve(port: int, keys: Keys, issuer: str | None) -> None:
    stats = {"discovery": 0, "jwks": 0}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def _answer(self, status: int, body: Any) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _count(self, what: str) -> None:
            with lock:
                stats[what] += 1

        def do_GET(self) -> None:
            if self.path == "/.well-known/openid-configuration":
                self._count("discovery")
                self._answer(
                    200,
                    {
                        "issuer": issuer or base,
                        "jwks_uri": f"{base}/jwks",
                        "id_token_signing_alg_values_supported": ["RS256", "ES256", "EdDSA"],
                        "subject_types_supported": ["public"],
                        "response_types_supported": ["id_token"],
                    },
                )
            elif self.path == "/jwks":
                self._count("jwks")
                self._answer(200, keys.jwks())
            elif self.path == "/stats":
                with lock:
                    self._answer(200, dict(stats))
            else:
                self._answer(404, {"error": "not found"})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            request = json.loads(self.rfile.read(length) or b"{}")
            if self.path == "/mint":
                self._answer(200, {"token": mint(keys, request)})
            elif self.path == "/rotate":
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
