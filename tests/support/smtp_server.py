"""A real SMTP server for tests: aiosmtpd's, on 127.0.0.1 in a thread of its own, which
keeps every message it accepts (parsed back into an :class:`EmailMessage`, with its
envelope) for the test to look at.

What it asks and answers is set by the test: a user and password it requires (AUTH
PLAIN or LOGIN; after STARTTLS when it has it, else in the clear or in implicit TLS,
which aiosmtpd does not count as TLS: loopback only), TLS (``"starttls"``, required
before anything else, or ``"implicit"``, from the first byte) with a certificate for
``localhost`` signed by an authority of the test's own (tests/support/tls.py; the
client trusts it through :attr:`SmtpServer.client_context`), and refusals of the next
RCPT or DATA commands (:meth:`SmtpServer.refuse`), for the sender's retries.

It listens on a TCP port, so a worker process started by the test reaches it through
its :attr:`SmtpServer.url` as ``YOKAI_SMTP_URL``. Like the harness (tests/support/
__init__.py), it imports no pytest.
"""

from __future__ import annotations

import ssl
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from types import TracebackType
from typing import Any, Literal
from urllib.parse import quote

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session

from tests.support.ports import free_port
from tests.support.tls import certificates

Tls = Literal["starttls", "implicit"]


@dataclass(frozen=True)
class Received:
    message: EmailMessage  # parsed with the default policy, lines ending in "\n"
    mail_from: str  # the envelope's sender (MAIL FROM)
    rcpt_tos: list[str]  # the envelope's recipients (RCPT TO)
    user: str | None  # who authenticated, if anyone did
    raw: bytes  # as it came (CRLF)


@dataclass
class _Refusal:
    code: int
    times: int
    at: str


class SmtpServer:
    """A context manager: the server listens from ``__enter__`` to ``__exit__``."""

    def __init__(
        self,
        *,
        user: str | None = None,
        password: str | None = None,
        tls: Tls | None = None,
    ) -> None:
        self.port = free_port()
        self.user = user
        self.password = password
        self.tls = tls
        self.received: list[Received] = []
        self.refused = 0  # commands answered with a scripted refusal
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self._server_context: ssl.SSLContext | None = None
        self.client_context: ssl.SSLContext | None = None  # trusts the server's certificate
        if tls is not None:
            self._folder = tempfile.TemporaryDirectory(prefix="yokai-smtp-")
            self._server_context, self.client_context = certificates(
                Path(self._folder.name), "localhost"
            )
        self._refusals: list[_Refusal] = []
        self._changed = threading.Condition()
        kwargs: dict[str, Any] = {}
        if tls == "starttls":
            kwargs.update(tls_context=self._server_context, require_starttls=True)
        if user is not None:
            kwargs.update(
                authenticator=self._authenticate,
                auth_required=True,
                auth_require_tls=tls == "starttls",
            )
        self._controller = Controller(
            _Handler(self),
            hostname="127.0.0.1",
            port=self.port,
            ssl_context=self._server_context if tls == "implicit" else None,
            server_hostname="localhost",
            ready_timeout=30.0,
            **kwargs,
        )

    @property
    def url(self) -> str:
        """The server as ``YOKAI_SMTP_URL`` names it (``localhost`` with TLS: the name
        the certificate is for)."""
        scheme = "smtps" if self.tls == "implicit" else "smtp"
        host = "127.0.0.1" if self.tls is None else "localhost"
        credentials = ""
        if self.user is not None:
            credentials = f"{quote(self.user, safe='')}:{quote(self.password or '', safe='')}@"
        query = "?starttls=1" if self.tls == "starttls" else ""
        return f"{scheme}://{credentials}{host}:{self.port}{query}"

    def __enter__(self) -> SmtpServer:
        try:
            self._controller.start()
        except BaseException:
            self._forget_certificates()
            raise
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._controller.stop()
        self._forget_certificates()

    def _forget_certificates(self) -> None:
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None

    def refuse(self, code: int, times: int = 1, *, at: Literal["RCPT", "DATA"] = "DATA") -> None:
        """Answer ``code`` (e.g. 451, 550) to the next ``times`` RCPT or DATA commands."""
        with self._changed:
            self._refusals.append(_Refusal(code, times, at))

    def wait_for(
        self, predicate: Callable[[list[Received]], bool], timeout: float = 30.0
    ) -> list[Received]:
        """The messages received, once ``predicate`` holds of them (AssertionError if
        it does not within ``timeout`` seconds)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not predicate(list(self.received)):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        f"waited {timeout} s; {len(self.received)} messages received"
                    )
                self._changed.wait(left)
            return list(self.received)

    def _refusal(self, command: str) -> str | None:
        with self._changed:
            for refusal in self._refusals:
                if refusal.at == command:
                    refusal.times -= 1
                    if refusal.times <= 0:
                        self._refusals.remove(refusal)
                    self.refused += 1
                    self._changed.notify_all()
                    return f"{refusal.code} Refused by the test"
        return None

    def _record(self, envelope: Envelope, session: Session) -> None:
        raw = envelope.original_content or b""
        # Lines end as Python's own do (the wire's CRLF would stay in 8-bit text).
        message = BytesParser(policy=policy.default).parsebytes(raw.replace(b"\r\n", b"\n"))
        assert isinstance(message, EmailMessage)
        user = session.auth_data if isinstance(session.auth_data, str) else None
        with self._changed:
            self.received.append(
                Received(message, envelope.mail_from or "", list(envelope.rcpt_tos), user, raw)
            )
            self._changed.notify_all()

    def _authenticate(
        self, server: SMTP, session: Session, envelope: Envelope, mechanism: str, data: Any
    ) -> AuthResult:
        if not isinstance(data, LoginPassword):
            return AuthResult(success=False, handled=False)
        login = data.login.decode("utf-8", "replace")
        right = login == self.user and data.password.decode("utf-8", "replace") == self.password
        # handled=False: aiosmtpd answers a failure (535) itself.
        return AuthResult(success=right, handled=False, auth_data=login if right else None)


class _Handler:
    """aiosmtpd's hooks: the scripted refusals, else every recipient and message taken."""

    def __init__(self, server: SmtpServer) -> None:
        self._server = server

    async def handle_RCPT(
        self,
        server: SMTP,
        session: Session,
        envelope: Envelope,
        address: str,
        rcpt_options: list[str],
    ) -> str:
        refusal = self._server._refusal("RCPT")
        if refusal is not None:
            return refusal
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        refusal = self._server._refusal("DATA")
        if refusal is not None:
            return refusal
        self._server._record(envelope, session)
        return "250 Message accepted for delivery"
