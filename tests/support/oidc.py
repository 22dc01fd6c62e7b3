"""The test OpenID provider (tests/support/oidc_provider.py) as a process the tests start
and stop: :func:`oidc_provider` yields a :class:`Provider`, its client, and kills the
process at the end, whatever happens.

    with oidc_provider() as provider:
        token = provider.mint(provider.claims(aud="yokai", sub="alice"))
        provider.stop()   # down: the port answers nothing
        provider.start()  # back, on the same port with the same keys
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never a proxy


@dataclass(frozen=True)
class Stats:
    """How many times the provider's discovery document and JWKS were fetched (since
    it last started)."""

    discovery: int
    jwks: int


class Provider:
    """The client of one provider process (not started: :meth:`start`)."""

    def __init__(self, folder: Path, *, issuer: str | None = None, timeout: float = 30.0):
        self.url = ""  # known once started
        self._folder = folder
        self._issuer = issuer
        self._timeout = timeout
        self._port = 0
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> None:
        """Start the process (again: on the same port, with the same keys) and wait for
        its first line, the base URL, at most ``timeout`` seconds."""
        if self.running:
            return
        stderr = self._folder / "stderr.log"
        command = [sys.executable, "-m", "tests.support.oidc_provider", "--port", str(self._port)]
        command += ["--keys", str(self._folder / "keys.json")]
        if self._issuer is not None:
            command += ["--issuer", self._issuer]
        with stderr.open("ab") as err:
            process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=err)
        self._process = process
        try:
            line = _first_line(process, time.monotonic() + self._timeout)
        except AssertionError as error:
            self.stop()
            raise AssertionError(f"{error}\n{stderr.read_text(errors='replace')}") from None
        except BaseException:
            self.stop()
            raise
        if not line.startswith("http://127.0.0.1:"):
            self.stop()
            raise AssertionError(f"the OpenID provider said {line!r}")
        self.url = line
        self._port = int(line.rsplit(":", 1)[1])

    def stop(self) -> None:
        """Kill the process: from now on its port refuses connections."""
        process, self._process = self._process, None
        if process is not None:
            process.kill()
            process.wait(timeout=30)
            if process.stdout is not None:
                process.stdout.close()

    def _call(self, method: str, path: str, body: Mapping[str, Any] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.url + path, data=data, method=method, headers={"Content-Type": "application/json"}
        )
        with _DIRECT.open(request, timeout=30) as answer:
            return json.loads(answer.read())

    def claims(self, **claims: Any) -> dict[str, Any]:
        """An ID token's claims: ``iss`` (this provider), ``sub``, ``iat`` (now) and
        ``exp`` (in five minutes), with ``claims`` over them; a claim given as None is
        left out."""
        now = int(time.time())
        base: dict[str, Any] = {"iss": self.url, "sub": "subject-1", "iat": now, "exp": now + 300}
        return {k: v for k, v in {**base, **claims}.items() if v is not None}

    def mint(
        self,
        claims: Mapping[str, Any],
        *,
        alg: str = "RS256",
        kid: str | None = None,
        omit_kid: bool = False,
        key: str | None = None,
        secret: str | None = None,
    ) -> str:
        """A token of these claims exactly, signed for ``alg`` (RS256, ES256, EdDSA,
        HS256 under ``secret``, or none); ``key="foreign"``: with a key in no JWKS;
        ``kid``: this kid in the header instead, ``omit_kid``: none."""
        request: dict[str, Any] = {"claims": dict(claims), "alg": alg}
        if kid is not None or omit_kid:
            request["kid"] = kid
        if key is not None:
            request["key"] = key
        if secret is not None:
            request["secret"] = secret
        token: str = self._call("POST", "/mint", request)["token"]
        return token

    def rotate(self, *, retire: bool = False) -> str:
        """A new RSA key joins the JWKS and signs RS256 tokens from now on (``retire``:
        the older RSA keys leave the JWKS); its kid."""
        kid: str = self._call("POST", "/rotate", {"retire": retire})["kid"]
        return kid

    def stats(self) -> Stats:
        answer = self._call("GET", "/stats")
        return Stats(discovery=answer["discovery"], jwks=answer["jwks"])

    def jwks(self) -> dict[str, Any]:
        """The JWKS, as a relying party (or an attacker) fetches it (counted in stats)."""
        jwks: dict[str, Any] = self._call("GET", "/jwks")
        return jwks


def _first_line(process: subprocess.Popen[bytes], deadline: float) -> str:
    """The process's first line of stdout, once written (AssertionError if it exits or
    the deadline passes first)."""
    assert process.stdout is not None
    fd = process.stdout.fileno()
    read = b""
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while b"\n" not in read:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("the OpenID provider did not say its URL in time")
            if not selector.select(left):
                continue
            chunk = os.read(fd, 4096)
            if not chunk:
                raise AssertionError(f"the OpenID provider exited ({process.wait()})")
            read += chunk
    return read.split(b"\n", 1)[0].decode().strip()


@contextmanager
def oidc_provider(*, issuer: str | None = None, timeout: float = 30.0) -> Iterator[Provider]:
    """A provider process, started; killed at the end. ``issuer``: the issuer its
    discovery document states (default: its own base URL)."""
    with tempfile.TemporaryDirectory(prefix="oidc-provider-") as folder:
        provider = Provider(Path(folder), issuer=issuer, timeout=timeout)
        try:
            provider.start()
            yield provider
        finally:
            provider.stop()
