"""Mail sent to the SMTP server ``YOKAI_SMTP_URL`` names, with the standard library's
``smtplib``: ``smtp://[user:password@]host[:port][?starttls=1]`` (port 25 by default;
``starttls=1`` upgrades the connection before anything else is said) or
``smtps://...`` (TLS from the first byte, port 465 by default). TLS checks the server's
certificate and name against the system's authorities (``ssl.create_default_context``).

A failure is a :class:`MailError` that says whether trying again may help: no
connection, a timeout, a dropped connection or a 4xx reply are temporary; a 5xx reply
(the address or the message refused, authentication refused), or a server without
the STARTTLS or AUTH it is asked for, are not.
"""

from __future__ import annotations

import smtplib
import ssl
from dataclasses import dataclass, field
from email.message import EmailMessage
from urllib.parse import parse_qsl, unquote, urlsplit

from service.application.notify.mail import MailError

__all__ = ["MailError", "SmtpMailer", "SmtpTarget", "parse_smtp_url"]

_FORM = "smtp://[user:password@]host[:port][?starttls=1] or smtps://[user:password@]host[:port]"


@dataclass(frozen=True)
class SmtpTarget:
    host: str
    port: int
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    starttls: bool = False  # upgrade a plain connection (smtp://...?starttls=1)
    ssl: bool = False  # TLS from the start (smtps://)


def parse_smtp_url(url: str) -> SmtpTarget:
    """The server an SMTP URL names; ValueError saying what is wrong, without repeating
    the URL (it may hold a password)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise ValueError(f"an SMTP URL with an unreadable host or port: use {_FORM}") from None
    scheme = parts.scheme.lower()
    if scheme not in ("smtp", "smtps"):
        raise ValueError(f"an SMTP URL starts with smtp:// or smtps://: use {_FORM}")
    if not parts.hostname:
        raise ValueError(f"an SMTP URL without a host: use {_FORM}")
    if port == 0:
        raise ValueError("an SMTP URL's port is from 1 to 65535")
    if parts.path not in ("", "/") or parts.fragment:
        raise ValueError(f"an SMTP URL has no path or fragment: use {_FORM}")
    starttls = False
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if name != "starttls" or value not in ("0", "1"):
            raise ValueError(f"an SMTP URL's only option is starttls=1 (or 0): use {_FORM}")
        starttls = value == "1"
    if starttls and scheme == "smtps":
        raise ValueError("smtps:// is TLS from the start: starttls=1 is for smtp://")
    user = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password is not None else None
    if (user is None) != (password is None):
        raise ValueError("an SMTP URL gives a user and a password, or neither")
    return SmtpTarget(
        host=parts.hostname,
        port=port or (465 if scheme == "smtps" else 25),
        user=user,
        password=password,
        starttls=starttls,
        ssl=scheme == "smtps",
    )


class SmtpMailer:
    """Sends each message on a connection of its own (opened, used, closed: simple, and
    the service sends few messages), each network step allowed ``timeout`` seconds.
    ``context``: the TLS context (tests trust their own authority with it); by default
    the system's, checking certificates. ``local_hostname``: the name said in EHLO (by
    default the host's fully qualified name, as smtplib finds it)."""

    def __init__(
        self,
        target: SmtpTarget,
        *,
        timeout: float = 10.0,
        context: ssl.SSLContext | None = None,
        local_hostname: str | None = None,
    ) -> None:
        self._target = target
        self._timeout = timeout
        self._context = context if context is not None else ssl.create_default_context()
        self._local_hostname = local_hostname

    def send(self, message: EmailMessage) -> None:
        """Hands ``message`` to the server for every address of its To, Cc and Bcc
        (From is the envelope's sender), or raises :class:`MailError`."""
        try:
            refused = self._deliver(message)
        except smtplib.SMTPRecipientsRefused as error:
            replies = list(error.recipients.values())
            code = replies[0][0] if replies else None
            temporary = all(400 <= c < 500 for c, _ in replies)
            raise MailError(
                f"SMTP {code}: recipient refused: {_said(replies[0][1]) if replies else ''}",
                temporary,
                code=code,
            ) from error
        except smtplib.SMTPResponseException as error:
            code = error.smtp_code
            raise MailError(
                f"SMTP {code}: {_said(error.smtp_error)}", not 500 <= code < 600, code=code
            ) from error
        except smtplib.SMTPServerDisconnected as error:
            raise MailError(f"SMTP server disconnected: {error}", True) from error
        except smtplib.SMTPException as error:
            # STARTTLS or AUTH asked of a server that offers neither: a setting to mend.
            raise MailError(f"SMTP: {error}", False) from error
        except OSError as error:  # refused, unreachable, timed out, TLS failed
            raise MailError(f"SMTP connection: {error}", True) from error
        if refused:
            # Sent to the others already: trying again would send it twice.
            addresses = ", ".join(sorted(refused))
            raise MailError(f"SMTP: some recipients refused: {addresses}", False)

    def close(self) -> None:
        """Nothing is kept open between messages."""

    def _deliver(self, message: EmailMessage) -> dict[str, tuple[int, bytes]]:
        target = self._target
        smtp: smtplib.SMTP
        if target.ssl:
            smtp = smtplib.SMTP_SSL(
                target.host,
                target.port,
                local_hostname=self._local_hostname,
                timeout=self._timeout,
                context=self._context,
            )
        else:
            smtp = smtplib.SMTP(
                target.host, target.port, local_hostname=self._local_hostname, timeout=self._timeout
            )
        try:
            if target.starttls:
                smtp.starttls(context=self._context)
            if target.user is not None and target.password is not None:
                smtp.login(target.user, target.password)
            return smtp.send_message(message)
        finally:
            _hang_up(smtp)


def _hang_up(smtp: smtplib.SMTP) -> None:
    """QUIT, but what the server says to it changes nothing: the message is sent or not
    already."""
    try:
        smtp.quit()
    except (smtplib.SMTPException, OSError):
        smtp.close()


def _said(reply: bytes | str) -> str:
    return reply.decode("utf-8", "replace") if isinstance(reply, bytes) else reply
