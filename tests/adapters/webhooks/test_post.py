"""The webhook sender's network guard and its one POST (service/adapters/webhooks/):
URLs refused at registration and again at delivery, against a real receiver on
127.0.0.1: delivered, an error status, a receiver that hangs, a redirect not followed;
and each attempt counted in the metrics by its outcome."""

from __future__ import annotations

import re
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from service import metrics
from service.adapters.webhooks import exchange
from service.adapters.webhooks import sender as webhook_sender
from service.adapters.webhooks.delivery import HttpSender
from service.adapters.webhooks.exchange import MAX_ANSWER, MAX_HEAD
from service.adapters.webhooks.sender import Delivered, Poster
from service.adapters.webhooks.url_policy import UrlForbiddenError, check_url
from tests.support.tls import certificates
from tests.support.webhook_receiver import receiving

PUBLIC = "https://93.184.216.34/hook"


@contextmanager
def posting(*, allow_private: bool = True, timeout: float = 10.0) -> Iterator[Poster]:
    """A sender's event loop, stopped at the end."""
    poster = Poster(allow_private=allow_private, timeout=timeout)
    try:
        yield poster
    finally:
        poster.close()


def post(url: str, body: bytes, headers: dict[str, str], **options: bool | float) -> Delivered:
    """One POST on a poster of its own."""
    with posting(**options) as poster:  # type: ignore[arg-type]
        return poster.post(url, body, headers)


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("ftp://93.184.216.34/x", "only http and https"),
        ("https://u:p@93.184.216.34/x", "no credentials"),
        ("http:///x", "no host"),
        ("http://127.0.0.1/x", "non-public"),
        ("http://10.0.0.1/x", "non-public"),
        ("http://172.16.5.4/x", "non-public"),
        ("http://192.168.1.1/x", "non-public"),
        ("http://169.254.169.254/x", "non-public"),
        ("http://224.0.0.1/x", "non-public"),
        ("http://0.0.0.0/x", "non-public"),
        ("http://[::1]/x", "non-public"),
        ("http://[fe80::1]/x", "non-public"),
        ("http://[::ffff:10.0.0.1]/x", "non-public"),
        ("http://name.invalid/x", "does not resolve"),
        ("https://93.184.216.34:99999/x", "not a URL"),
    ],
)
def test_urls_that_are_refused(url: str, why: str) -> None:
    with pytest.raises(UrlForbiddenError) as info:
        check_url(url, allow_private=False)
    assert why in info.value.reason


def test_public_addresses_pass_and_the_switch_lets_private_ones_through() -> None:
    check_url(PUBLIC, allow_private=False)
    check_url("http://127.0.0.1:8080/x", allow_private=True)
    with pytest.raises(UrlForbiddenError):
        check_url("ftp://127.0.0.1/x", allow_private=True)  # the scheme still counts


def test_a_post_arrives_with_its_body_and_headers() -> None:
    with receiving() as receiver:
        done = post(receiver.url, b'{"a":1}', {"webhook-id": "msg_1"}, allow_private=True)
        (got,) = receiver.wait_for(1)
    assert (done.status, done.error) == (204, None)
    assert got.body == b'{"a":1}' and got.headers["webhook-id"] == "msg_1"
    assert got.headers["Content-Type"] == "application/json"


def test_an_error_status_is_reported_not_raised() -> None:
    with receiving() as receiver:
        receiver.answers = [500]
        done = post(receiver.url, b"{}", {}, allow_private=True)
    assert (done.status, done.error) == (500, None)


def test_a_receiver_that_hangs_is_given_up_at_the_timeout() -> None:
    with receiving() as receiver:
        receiver.hang = 5.0
        done = post(receiver.url, b"{}", {}, allow_private=True, timeout=1.0)
    assert (done.status, done.error) == (None, "timeout")


def test_a_refused_connection_is_an_error() -> None:
    with receiving() as receiver:
        url = receiver.url
    done = post(url, b"{}", {}, allow_private=True)  # the receiver is gone
    assert done.status is None and done.error == "connection refused"


def test_a_redirect_is_not_followed() -> None:
    with receiving() as target, receiving() as receiver:
        receiver.answers = [302]
        receiver.location = target.url
        done = post(receiver.url, b"{}", {}, allow_private=True)
        assert done.status == 302
        assert target.started == 0


def test_a_header_that_could_end_its_line_is_refused_and_nothing_is_sent() -> None:
    with receiving() as receiver:
        headers = {"webhook-id": "msg_1\r\nX-Injected: 1"}
        done = post(receiver.url, b"{}", headers, allow_private=True)
        assert done.status is None and "Illegal header value" in (done.error or "")
        assert receiver.started == 0


def test_a_private_address_is_refused_at_delivery_and_nothing_is_sent() -> None:
    with receiving() as receiver:
        done = post(receiver.url, b"{}", {}, allow_private=False)
        assert done.status is None and done.error is not None
        assert done.error.startswith("forbidden address")
        assert receiver.started == 0


def test_a_receiver_that_keeps_connections_alive_gets_the_next_post_on_the_same_one() -> None:
    with receiving(keep_alive=True) as receiver, posting() as poster:
        for n in range(3):
            done = poster.post(receiver.url, b"{}", {"n": str(n)})
            assert (done.status, done.error) == (204, None)
        got = receiver.wait_for(3)
    assert len({r.peer for r in got}) == 1


def test_a_kept_connection_the_receiver_closed_is_replaced() -> None:
    """The receiver says keep-alive, then closes the connection (an idle timeout): the
    next post finds it closed and goes again on a new one."""
    with receiving(keep_alive=True) as receiver, posting() as poster:
        receiver.drop_kept = True
        for _ in range(2):
            done = poster.post(receiver.url, b"{}", {})
            assert (done.status, done.error) == (204, None)
        got = receiver.wait_for(2)
    assert len({r.peer for r in got}) == 2


def _deliveries() -> dict[str, float]:
    """yokai_webhook_deliveries_total by outcome, as /metrics gives it."""
    body, _ = metrics.render(None)
    return {
        s.labels["outcome"]: s.value
        for family in text_string_to_metric_families(body.decode())
        for s in family.samples
        if s.name == "yokai_webhook_deliveries_total"
    }


def test_the_sender_counts_each_attempt_by_its_outcome() -> None:
    """yokai_webhook_deliveries_total: delivered (a 2xx), failed (any other answer),
    error (no answer), one attempt each."""
    sender, forbidding = HttpSender(allow_private=True), HttpSender(allow_private=False)
    before = _deliveries()

    def added() -> dict[str, float]:
        now = _deliveries()
        return {k: now[k] - before[k] for k in ("delivered", "failed", "error")}

    with receiving() as receiver:
        receiver.answers = [500, 302]
        assert sender.post(receiver.url, b"{}", {}).status == 500
        assert added() == {"delivered": 0, "failed": 1, "error": 0}
        assert sender.post(receiver.url, b"{}", {}).status == 302
        assert sender.post(receiver.url, b"{}", {}).status == 204
        assert added() == {"delivered": 1, "failed": 2, "error": 0}
        url = receiver.url
    assert sender.post(url, b"{}", {}).status is None  # the receiver is gone
    assert forbidding.post(url, b"{}", {}).status is None  # forbidden
    assert added() == {"delivered": 1, "failed": 2, "error": 2}
    sender.close()
    forbidding.close()


# --- the answer as the sender reads it ---------------------------------------------------


@contextmanager
def canned(
    *answers: bytes,
    closed: list[int] | None = None,
    tls: ssl.SSLContext | None = None,
    pace: float = 0.0,
    stray: tuple[threading.Event, bytes] | None = None,
) -> Iterator[tuple[str, list[tuple[int, bytes]]]]:
    """A receiver on 127.0.0.1 that gives each connection's requests the ``answers`` in
    turn, as raw bytes, and closes the connection after the last (with ``closed``: waits
    for the client to close it, then notes the client's port there); the URL, and the
    requests as they arrived (the client's port, the raw request). With ``tls``: over TLS
    (a connection whose handshake fails is dropped); with ``pace``: each answer a byte at
    a time, ``pace`` seconds apart, until the test ends; with ``stray``: once its event is
    set, these bytes too after the last answer, nobody having asked for them."""
    server = socket.create_server(("127.0.0.1", 0))
    requests: list[tuple[int, bytes]] = []
    threads: list[threading.Thread] = []
    ending = threading.Event()

    def send(conn: socket.socket, answer: bytes) -> None:
        if not pace:
            conn.sendall(answer)
            return
        for n in range(len(answer)):
            if ending.wait(pace):
                return
            conn.sendall(answer[n : n + 1])

    def exchange(conn: socket.socket, port: int) -> None:
        buffer = b""
        for answer in answers:
            while b"\r\n\r\n" not in buffer:
                got = conn.recv(65536)
                if not got:
                    return  # the client closed the connection
                buffer += got
            head, _, buffer = buffer.partition(b"\r\n\r\n")
            found = re.search(rb"Content-Length: (\d+)", head)
            assert found is not None
            length = int(found.group(1))
            while len(buffer) < length:
                buffer += conn.recv(65536)
            requests.append((port, head + b"\r\n\r\n" + buffer[:length]))
            buffer = buffer[length:]
            send(conn, answer)
        if stray is not None and stray[0].wait(10):
            conn.sendall(stray[1])
        if closed is not None and conn.recv(1) == b"":
            closed.append(port)

    def answer(conn: socket.socket, port: int) -> None:
        try:
            conn.settimeout(10)
            if tls is not None:
                conn = tls.wrap_socket(conn, server_side=True)
            with conn:
                exchange(conn, port)
        except OSError:  # ssl.SSLError too: the client gave up on the connection
            conn.close()

    def serve() -> None:
        while True:
            try:
                conn, peer = server.accept()
            except OSError:
                return  # closed
            thread = threading.Thread(target=answer, args=(conn, peer[1]))
            threads.append(thread)
            thread.start()

    acceptor = threading.Thread(target=serve)
    acceptor.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}/in?x=1", requests
    finally:
        ending.set()
        server.shutdown(socket.SHUT_RDWR)
        server.close()
        acceptor.join(10)
        for thread in threads:
            thread.join(10)


OK_CHUNKED = (
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n0\r\nX-T: 1\r\n\r\n"
)
EARLY_HINTS = b"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
CHUNKED = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"


@pytest.mark.parametrize(
    ("answer", "status"),
    [
        (b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", 200),
        (OK_CHUNKED, 200),
        (b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n", 202),
        (EARLY_HINTS + b"HTTP/1.1 410 Gone\r\nContent-Length: 0\r\n\r\n", 410),
    ],
)
def test_an_answer_read_to_its_end_leaves_the_connection_for_the_next_post(
    answer: bytes, status: int
) -> None:
    """A body with a length or in chunks (extensions and trailers included), and an
    informational answer before the final one: the status is the final answer's, and the
    next POST goes on the same connection, exactly as the first was sent."""
    with canned(answer, answer) as (url, requests), posting() as poster:
        for _ in range(2):
            done = poster.post(url, b'{"n":1}', {"webhook-id": "msg_1"})
            assert (done.status, done.error) == (status, None)
    (port, first), (again, second) = requests
    assert port == again and first == second
    head, _, body = first.partition(b"\r\n\r\n")
    assert body == b'{"n":1}'
    lines = head.split(b"\r\n")
    assert lines[0] == b"POST /in?x=1 HTTP/1.1"
    assert sorted(lines[1:]) == sorted(
        [
            b"Host: 127.0.0.1:" + url.split(":")[2].split("/")[0].encode(),
            b"Content-Type: application/json",
            b"User-Agent: yokai",
            b"Content-Length: 7",
            b"webhook-id: msg_1",
        ]
    )


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
        b"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\n\r\nup to the close",
        b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % (MAX_ANSWER + 1),
    ],
)
def test_an_answer_that_ends_the_connection_or_is_too_long_is_not_read_further(
    answer: bytes,
) -> None:
    """Told to close, HTTP/1.0 without keep-alive, a body up to the close, one over
    64 KiB: the status counts, and the next POST opens a new connection."""
    with canned(answer) as (url, requests), posting() as poster:
        for _ in range(2):
            done = poster.post(url, b"{}", {})
            assert (done.status, done.error) == (200, None)
    assert len({port for port, _ in requests}) == 2


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (b"SSH-2.0-OpenSSH\r\n\r\n", "bad answer: illegal status line"),
        (b"HTTP/1.1 20 OK\r\n\r\n", "bad answer: illegal status line"),
        (b"HTTP/1.1 200 OK\r\nno colon\r\n\r\n", "bad answer: illegal header line"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", "bad answer: bad Content-Length"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\nok", "bad answer: bad Content-Length"),
        (CHUNKED + b"zz\r\n", "bad answer: illegal chunk header"),
        (CHUNKED + b"0x5\r\nhello\r\n0\r\n\r\n", "bad answer: illegal chunk header"),
        (CHUNKED + b"5\r\nhelloXX\r\n0\r\n\r\n", "bad answer: malformed chunk footer"),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n"
            b"5\r\nhello\r\n0\r\n\r\n",
            "bad answer: both Transfer-Encoding and Content-Length",
        ),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
            "bad answer: Only Transfer-Encoding: chunked is supported",
        ),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
            "bad answer: Only Transfer-Encoding: chunked is supported",
        ),
        (
            # Far more than one read takes (h11 bounds what it holds of a head not yet
            # whole; one that arrives whole in a read is read).
            b"HTTP/1.1 200 OK\r\nX-Big: %s\r\n\r\n" % (b"x" * 16 * MAX_HEAD),
            "bad answer: Receive buffer too long",
        ),
        (
            b"HTTP/1.1 101 Switching Protocols\r\n\r\n",
            "bad answer: Received server _SWITCH_UPGRADE event without a pending proposal",
        ),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", "connection reset"),
    ],
)
def test_an_answer_that_is_not_http_or_cut_short_is_an_error(answer: bytes, error: str) -> None:
    """Refused as a bad answer (h11's words, but for an answer framed two ways), or a
    connection reset when it ends mid-answer; either way the connection is closed."""
    with canned(answer) as (url, _), posting() as poster:
        done = poster.post(url, b"{}", {})
    assert done.status is None and (done.error or "").startswith(error)


def test_a_url_whose_path_could_end_the_request_line_is_refused() -> None:
    for url in (
        "http://93.184.216.34/a b",
        "http://93.184.216.34/a\r\nX: 1",
        "http://93.184.216.34/é",
    ):
        with pytest.raises(UrlForbiddenError, match="not a URL"):
            check_url(url, allow_private=False)


def test_a_kept_connection_unused_for_a_while_is_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Endpoints come and go: a connection kept for one is closed once it has been idle
    for IDLE_SECONDS (here 0.2 s), without another POST."""
    monkeypatch.setattr(webhook_sender, "IDLE_SECONDS", 0.2)
    closed: list[int] = []
    kept = b"HTTP/1.1 204 No Content\r\n\r\n"
    with canned(kept, closed=closed) as (url, requests), posting() as poster:
        assert poster.post(url, b"{}", {}).status == 204
        deadline = time.monotonic() + 10
        while not closed:
            assert time.monotonic() < deadline, "the idle connection was not closed"
            time.sleep(0.01)
    assert closed == [requests[0][0]]


def test_bytes_after_an_answer_are_not_taken_for_the_next_one() -> None:
    """A receiver that sends more than its answer (here a second answer nobody asked
    for): the connection is not used again, so the next POST gets its own answer."""
    extra = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 500 Oops\r\n\r\n"
    created = b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"
    with canned(extra, created) as (url, requests), posting() as poster:
        assert poster.post(url, b"{}", {}).status == 200
        second = poster.post(url, b"{}", {})
    assert (second.status, second.error) == (200, None)  # the first answer again, anew
    assert len({port for port, _ in requests}) == 2


def test_a_kept_connection_that_gets_bytes_while_it_waits_is_closed_then() -> None:
    """Bytes that come on a kept connection while it waits for the next POST (here an
    answer nobody asked for): it is closed when they come, and the next POST goes on a
    new connection and gets its own answer."""
    keep = b"HTTP/1.1 204 No Content\r\n\r\n"
    send_stray = threading.Event()
    closed: list[int] = []
    stray = (send_stray, b"HTTP/1.1 500 Oops\r\n\r\n")
    with (
        canned(keep, closed=closed, stray=stray) as (url, requests),
        posting() as poster,
    ):
        assert poster.post(url, b"{}", {}).status == 204
        send_stray.set()
        deadline = time.monotonic() + 10
        while requests[0][0] not in closed:
            assert time.monotonic() < deadline, "the connection was not closed"
            time.sleep(0.01)
        second = poster.post(url, b"{}", {})
    assert (second.status, second.error) == (204, None)
    assert len({port for port, _ in requests}) == 2


def test_a_receiver_that_closes_mid_answer_is_not_sent_the_post_again() -> None:
    """On a kept connection, a POST goes again on a new one only if not a byte of its
    answer came: one cut after its status line was heard, and is not repeated."""
    keep = b"HTTP/1.1 204 No Content\r\n\r\n"
    cut = b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort"
    with canned(keep, cut) as (url, requests), posting() as poster:
        assert poster.post(url, b"{}", {}).status == 204
        done = poster.post(url, b"{}", {})
    assert (done.status, done.error) == (None, "connection reset")
    assert len(requests) == 2  # not a third time


def test_a_kept_connection_that_ends_before_a_byte_of_the_answer_is_replaced_once() -> None:
    """The receiver closes a kept connection once the POST is on it, before a byte of the
    answer (its idle timeout crossing the POST): the POST goes again, once, on a new
    connection (at least once: the receiver may have it twice, with one webhook-id)."""
    keep = b"HTTP/1.1 204 No Content\r\n\r\n"
    with canned(keep, b"") as (url, requests), posting() as poster:
        assert poster.post(url, b"{}", {}).status == 204
        again = poster.post(url, b"{}", {})
    assert (again.status, again.error) == (204, None)
    first, second, third = (port for port, _ in requests)
    assert first == second != third


def test_a_new_connection_that_ends_without_an_answer_is_not_sent_the_post_again() -> None:
    with canned(b"") as (url, requests), posting() as poster:
        done = poster.post(url, b"{}", {})
    assert (done.status, done.error) == (None, "connection reset")
    assert len(requests) == 1


def test_an_answer_trickled_byte_by_byte_is_given_up_at_the_deadline() -> None:
    """The timeout bounds the whole attempt, not each read: a receiver that sends a
    byte of its answer now and then (each read gets one) still ends it at ``timeout``."""
    slow = b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + b"x" * 1000
    with canned(slow, pace=0.05) as (url, requests), posting(timeout=1.0) as poster:
        done = poster.post(url, b"{}", {})
    assert (done.status, done.error) == (None, "timeout")
    assert len(requests) == 1


def test_the_post_goes_to_the_address_that_was_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    """A name is looked up once an attempt, and the connection goes to the address that
    lookup gave and the policy checked, not to the name again: a name whose answer
    changes in between (DNS rebinding: here to 127.0.0.2, where nothing listens) is
    never connected to by its new answer. The request still names the host."""
    looked_up = _resolving(monkeypatch, {"hook.test": [["127.0.0.1"], ["127.0.0.2"]]})
    ok = b"HTTP/1.1 204 No Content\r\n\r\n"
    with canned(ok) as (url, requests), posting() as poster:
        done = poster.post(url.replace("127.0.0.1", "hook.test"), b"{}", {})
    assert (done.status, done.error) == (204, None)
    assert looked_up == ["hook.test"]
    assert re.search(rb"\r\nHost: hook\.test:\d+\r\n", requests[0][1])


def test_a_name_with_any_non_public_address_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    _resolving(monkeypatch, {"mixed.test": [["93.184.216.34", "10.1.2.3"]]})
    with pytest.raises(UrlForbiddenError, match="non-public"):
        check_url("https://mixed.test/hook", allow_private=False)


def test_tls_checks_the_certificate_for_the_name_not_the_address(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The connection goes to the checked address, and TLS verifies the certificate for
    the URL's name: a certificate for another name is refused before the POST."""
    server, client = certificates(tmp_path, "hook.test")
    monkeypatch.setattr(exchange, "tls", lambda: client)
    _resolving(monkeypatch, {"hook.test": [["127.0.0.1"]], "other.test": [["127.0.0.1"]]})
    ok = b"HTTP/1.1 204 No Content\r\n\r\n"
    with canned(ok, tls=server) as (url, requests), posting() as poster:
        port = url.split(":")[2].split("/")[0]
        done = poster.post(f"https://hook.test:{port}/in", b"{}", {})
        other = poster.post(f"https://other.test:{port}/in", b"{}", {})
    assert (done.status, done.error) == (204, None)
    assert other.status is None and (other.error or "").startswith("tls: ")
    assert len(requests) == 1


def _resolving(monkeypatch: pytest.MonkeyPatch, names: dict[str, list[list[str]]]) -> list[str]:
    """Names looked up as ``names`` says: each lookup of one gives its next answer (the
    last again once they are used up), other names as usual; the names looked up, in
    turn."""
    looked_up: list[str] = []
    usual = socket.getaddrinfo

    def lookup(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in names:
            return usual(host, port, *args, **kwargs)
        answers = names[host]
        given = answers[min(looked_up.count(host), len(answers) - 1)]
        looked_up.append(host)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, int(port))) for a in given]

    monkeypatch.setattr(socket, "getaddrinfo", lookup)
    return looked_up


def test_a_closed_poster_sends_nothing_and_says_so() -> None:
    with receiving() as receiver:
        poster = Poster(allow_private=True)
        assert poster.post(receiver.url, b"{}", {}).status == 204
        poster.close()
        done = poster.post(receiver.url, b"{}", {})
        assert (done.status, done.error) == (None, webhook_sender.STOPPED)
        assert receiver.started == 1


def test_attempts_run_side_by_side_on_the_one_loop() -> None:
    """A receiver that hangs does not hold up another: both are under way at once, and
    the quick one is answered while the slow one still waits."""
    with receiving() as slow, receiving() as quick, posting() as poster:
        slow.hang = 3.0
        ended: list[str] = []
        got = threading.Event()

        def then(name: str) -> Callable[[Delivered], None]:
            def record(done: Delivered) -> None:
                ended.append(name)
                if len(ended) == 2:
                    got.set()

            return record

        poster.start(slow.url, b"{}", {}, then("slow"))
        slow.wait_started(1)
        poster.start(quick.url, b"{}", {}, then("quick"))
        assert got.wait(15)
    assert ended == ["quick", "slow"]
