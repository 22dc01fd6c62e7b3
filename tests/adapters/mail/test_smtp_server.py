"""The tests' SMTP server itself (tests/support/smtp_server.py), spoken to with the
standard library's smtplib rather than the service's mailer: what it records, its
scripted refusals, its AUTH, and its waiting."""

from __future__ import annotations

import smtplib
import threading
from email.message import EmailMessage

import pytest

from tests.support.smtp_server import SmtpServer


def _message(subject: str = "Hello") -> EmailMessage:
    message = EmailMessage()
    message["From"] = "Yokai <noreply@yokai.example>"
    message["To"] = "ann@example.org"
    message["Subject"] = subject
    message.set_content("Héllo\n")
    return message


def _client(server: SmtpServer) -> smtplib.SMTP:
    return smtplib.SMTP("127.0.0.1", server.port, timeout=10)


def test_it_records_each_message_parsed_with_its_envelope() -> None:
    with SmtpServer() as server, _client(server) as client:
        assert server.url == f"smtp://127.0.0.1:{server.port}"
        client.send_message(_message(), to_addrs=["ann@example.org", "bo@example.org"])
        (got,) = server.wait_for(lambda received: len(received) == 1)
    assert got.mail_from == "noreply@yokai.example"
    assert got.rcpt_tos == ["ann@example.org", "bo@example.org"]
    assert got.message["Subject"] == "Hello"
    assert got.message.get_content() == "Héllo\n"
    assert got.raw.startswith(b"From: Yokai")
    assert got.user is None


def test_a_refusal_answers_the_next_commands_then_stops() -> None:
    with SmtpServer() as server, _client(server) as client:
        server.refuse(451, times=2)
        for _ in range(2):
            with pytest.raises(smtplib.SMTPDataError) as refused:
                client.send_message(_message())
            assert refused.value.smtp_code == 451
        client.send_message(_message("third"))
        (got,) = server.wait_for(lambda received: len(received) == 1)
        assert got.message["Subject"] == "third"
        assert server.refused == 2


def test_a_refusal_of_rcpt() -> None:
    with SmtpServer() as server, _client(server) as client:
        server.refuse(550, at="RCPT")
        with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
            client.send_message(_message())
        assert refused.value.recipients["ann@example.org"][0] == 550
        assert server.received == []


def test_auth_is_required_and_checked() -> None:
    with SmtpServer(user="ann", password="right") as server:
        assert server.url == f"smtp://ann:right@127.0.0.1:{server.port}"
        with _client(server) as client:
            with pytest.raises(smtplib.SMTPSenderRefused) as refused:
                client.send_message(_message())
            assert refused.value.smtp_code == 530
            with pytest.raises(smtplib.SMTPAuthenticationError):
                client.login("ann", "wrong")
        with _client(server) as client:
            client.login("ann", "right")
            client.send_message(_message())
        (got,) = server.wait_for(lambda received: len(received) == 1)
        assert got.user == "ann"


def test_starttls_is_required_before_anything() -> None:
    with SmtpServer(tls="starttls") as server:
        with _client(server) as client, pytest.raises(smtplib.SMTPSenderRefused) as refused:
            client.send_message(_message())
        assert refused.value.smtp_code == 530
        with smtplib.SMTP("localhost", server.port, timeout=10) as client:
            client.starttls(context=server.client_context)
            client.send_message(_message())
        assert len(server.wait_for(lambda received: len(received) == 1)) == 1


def test_wait_for_wakes_when_a_message_arrives_from_elsewhere() -> None:
    with SmtpServer() as server:

        def send() -> None:
            with _client(server) as client:
                client.send_message(_message("from a thread"))

        sender = threading.Thread(target=send)
        sender.start()
        (got,) = server.wait_for(lambda received: len(received) == 1)
        sender.join(timeout=10)
        assert got.message["Subject"] == "from a thread"


def test_wait_for_gives_up_at_its_deadline() -> None:
    with SmtpServer() as server, pytest.raises(AssertionError, match="0 messages received"):
        server.wait_for(lambda received: len(received) == 1, timeout=0.2)
