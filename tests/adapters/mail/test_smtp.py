"""Mail on the network (service/adapters/mail/smtp.py): ``YOKAI_SMTP_URL`` read, and
each message the service composes sent to a real SMTP server on 127.0.0.1
(tests/support/smtp_server.py) and parsed back there equal, in the clear, after
STARTTLS, in implicit TLS, with AUTH; and each failure said temporary (worth trying
again) or permanent, as the worker's retries need."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from typing import Literal
from uuid import UUID

import pytest

from service.adapters.mail.smtp import MailError, SmtpMailer, SmtpTarget, parse_smtp_url
from service.application.notify import mail
from tests.support.ports import free_port
from tests.support.smtp_server import Received, SmtpServer

NOW = datetime(2026, 11, 28, 9, 30, tzinfo=UTC)
PUBLIC = "https://yokai.example"
SENDER = "Yokai Septet <noreply@yokai.example>"
TO = "ann@example.org"
GAME = UUID("1a2b3c4d-0000-4000-8000-000000000001")
HEADERS = (
    "From",
    "To",
    "Subject",
    "Date",
    "Message-ID",
    "Content-Language",
    "Auto-Submitted",
    "List-Unsubscribe",
    "List-Unsubscribe-Post",
)


def _messages() -> dict[str, EmailMessage]:
    unsubscribe = mail.unsubscribe_url(PUBLIC, "a-token-of-43-characters-in-base64url-xxxxx")
    return {
        "verification": mail.verification(
            TO, "042917", lang="fr", sender=SENDER, public_url=PUBLIC, now=NOW
        ),
        "reminder": mail.reminder(
            TO,
            GAME,
            15,
            lang="de",
            sender=SENDER,
            public_url=PUBLIC,
            unsubscribe_url=unsubscribe,
            now=NOW,
        ),
        "digest": mail.digest(
            TO,
            [mail.WaitingGame(GAME, NOW - timedelta(hours=2), ["<b>Bo</b>", "妖怪"])],
            "daily",
            lang="zh",
            sender=SENDER,
            public_url=PUBLIC,
            unsubscribe_url=unsubscribe,
            now=NOW,
        ),
    }


def _reminder() -> EmailMessage:
    return _messages()["reminder"]


def _body(message: EmailMessage, kind: str) -> str:
    part = message.get_body((kind,))
    assert isinstance(part, EmailMessage)
    content: str = part.get_content()
    return content.replace("\r\n", "\n")


def _arrived_equal(sent: EmailMessage, got: Received) -> None:
    assert got.mail_from == "noreply@yokai.example"
    assert got.rcpt_tos == [TO]
    for name in HEADERS:
        assert got.message[name] == sent[name], name
    for kind in ("plain", "html"):
        assert _body(got.message, kind) == _body(sent, kind), kind


def _mailer(server: SmtpServer, url: str | None = None, timeout: float = 10.0) -> SmtpMailer:
    return SmtpMailer(
        parse_smtp_url(url or server.url), timeout=timeout, context=server.client_context
    )


@pytest.fixture
def server() -> Iterator[SmtpServer]:
    with SmtpServer() as running:
        yield running


# --- YOKAI_SMTP_URL ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "target"),
    [
        ("smtp://mail.example:2525", SmtpTarget("mail.example", 2525)),
        ("smtp://mail.example", SmtpTarget("mail.example", 25)),
        ("SMTP://Mail.Example/", SmtpTarget("mail.example", 25)),
        ("smtps://mail.example", SmtpTarget("mail.example", 465, ssl=True)),
        ("smtp://mail.example:587?starttls=1", SmtpTarget("mail.example", 587, starttls=True)),
        ("smtp://mail.example?starttls=0", SmtpTarget("mail.example", 25)),
        ("smtp://[::1]:2525", SmtpTarget("::1", 2525)),
        (
            "smtp://ann%40example.org:p%3Aw%2F%40d%25@mail.example:587?starttls=1",
            SmtpTarget("mail.example", 587, "ann@example.org", "p:w/@d%", starttls=True),
        ),
        (
            "smtps://ann:secret@mail.example",
            SmtpTarget("mail.example", 465, "ann", "secret", ssl=True),
        ),
    ],
)
def test_an_smtp_url_names_its_server(url: str, target: SmtpTarget) -> None:
    assert parse_smtp_url(url) == target


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("", "smtp:// or smtps://"),
        ("http://mail.example", "smtp:// or smtps://"),
        ("mail.example:25", "smtp:// or smtps://"),
        ("smtp://", "without a host"),
        ("smtp://:25", "without a host"),
        ("smtp://mail.example:99999", "unreadable host or port"),
        ("smtp://mail.example:twenty", "unreadable host or port"),
        ("smtp://mail.example:0", "from 1 to 65535"),
        ("smtp://mail.example/path", "no path"),
        ("smtp://mail.example#part", "no path"),
        ("smtp://mail.example?tls=1", "only option"),
        ("smtp://mail.example?starttls=yes", "only option"),
        ("smtps://mail.example?starttls=1", "TLS from the start"),
        ("smtp://ann@mail.example", "a user and a password"),
        ("smtp://:secret@mail.example", "a user and a password"),
    ],
)
def test_a_wrong_smtp_url_is_refused_saying_why(url: str, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        parse_smtp_url(url)


def test_the_password_is_never_repeated() -> None:
    with pytest.raises(ValueError, match="no path") as refused:
        parse_smtp_url("smtp://ann:s3cret@mail.example/oops")
    assert "s3cret" not in str(refused.value)
    assert "s3cret" not in repr(parse_smtp_url("smtp://ann:s3cret@mail.example"))


# --- Sending ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["verification", "reminder", "digest"])
def test_each_message_arrives_as_it_was_sent(server: SmtpServer, kind: str) -> None:
    sent = _messages()[kind]
    _mailer(server).send(sent)
    (got,) = server.wait_for(lambda received: len(received) == 1)
    _arrived_equal(sent, got)
    assert got.user is None


def test_a_user_and_password_sign_in() -> None:
    with SmtpServer(user="ann", password="p:w/@d") as guarded:
        url = f"smtp://ann:p%3Aw%2F%40d@127.0.0.1:{guarded.port}"
        assert guarded.url == url  # percent-encoded, and decoded by parse_smtp_url
        sent = _reminder()
        _mailer(guarded, url).send(sent)
        (got,) = guarded.wait_for(lambda received: len(received) == 1)
        _arrived_equal(sent, got)
        assert got.user == "ann"


def test_a_wrong_password_is_permanent() -> None:
    with SmtpServer(user="ann", password="right") as guarded:
        url = f"smtp://ann:wrong@127.0.0.1:{guarded.port}"
        with pytest.raises(MailError) as failed:
            _mailer(guarded, url).send(_reminder())
        assert failed.value.code == 535
        assert not failed.value.temporary
        assert guarded.received == []


def test_without_signing_in_the_server_refuses_for_good() -> None:
    with SmtpServer(user="ann", password="right") as guarded:
        with pytest.raises(MailError) as failed:
            _mailer(guarded, f"smtp://127.0.0.1:{guarded.port}").send(_reminder())
        assert failed.value.code == 530
        assert not failed.value.temporary


@pytest.mark.parametrize(
    ("tls", "url"),
    [
        ("starttls", "smtp://ann:right@localhost:{port}?starttls=1"),
        ("implicit", "smtps://ann:right@localhost:{port}"),
    ],
)
def test_tls_then_sign_in(tls: Literal["starttls", "implicit"], url: str) -> None:
    with SmtpServer(user="ann", password="right", tls=tls) as secure:
        assert secure.url == url.format(port=secure.port)
        sent = _reminder()
        _mailer(secure).send(sent)
        (got,) = secure.wait_for(lambda received: len(received) == 1)
        _arrived_equal(sent, got)
        assert got.user == "ann"


def test_a_certificate_the_system_does_not_trust_is_refused() -> None:
    with SmtpServer(tls="starttls") as tls:
        mailer = SmtpMailer(parse_smtp_url(tls.url))  # the system's authorities
        with pytest.raises(MailError, match="CERTIFICATE_VERIFY_FAILED"):
            mailer.send(_reminder())
        assert tls.received == []


def test_starttls_asked_of_a_server_without_it_is_permanent(server: SmtpServer) -> None:
    with pytest.raises(MailError, match="STARTTLS") as failed:
        _mailer(server, f"{server.url}?starttls=1").send(_reminder())
    assert not failed.value.temporary


@pytest.mark.parametrize(
    ("code", "at", "temporary"),
    [(451, "DATA", True), (452, "RCPT", True), (550, "RCPT", False), (554, "DATA", False)],
)
def test_a_refusal_is_temporary_for_4xx_and_permanent_for_5xx(
    server: SmtpServer, code: int, at: str, temporary: bool
) -> None:
    server.refuse(code, at="RCPT" if at == "RCPT" else "DATA")
    mailer = _mailer(server)
    with pytest.raises(MailError) as failed:
        mailer.send(_reminder())
    assert failed.value.code == code
    assert failed.value.temporary is temporary
    assert server.received == []
    # The refusal was for one attempt: the next goes through.
    mailer.send(_reminder())
    assert len(server.wait_for(lambda received: len(received) == 1)) == 1


def test_a_closed_port_is_temporary() -> None:
    mailer = SmtpMailer(parse_smtp_url(f"smtp://127.0.0.1:{free_port()}"))
    with pytest.raises(MailError) as failed:
        mailer.send(_reminder())
    assert failed.value.temporary
    assert failed.value.code is None


def test_a_server_that_never_answers_is_temporary() -> None:
    # Connections are taken by the kernel into the backlog, and nothing greets them.
    with socket.create_server(("127.0.0.1", 0)) as silent:
        port = silent.getsockname()[1]
        mailer = SmtpMailer(parse_smtp_url(f"smtp://127.0.0.1:{port}"), timeout=0.5)
        with pytest.raises(MailError) as failed:
            mailer.send(_reminder())
    assert failed.value.temporary


def test_close_leaves_the_mailer_usable(server: SmtpServer) -> None:
    mailer = _mailer(server)
    mailer.close()
    mailer.send(_reminder())
    assert len(server.wait_for(lambda received: len(received) == 1)) == 1
