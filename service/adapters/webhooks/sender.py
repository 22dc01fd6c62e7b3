"""Posting webhooks: every attempt of a process on one asyncio event loop, in a thread
of its own (:class:`Poster`), so many attempts under way cost one thread, not one each.

An attempt checks the URL again (service/adapters/webhooks/url_policy.py: DNS can
change), then connects to the address it checked, never to the name again, so a name
that changes its answer between the check and the connect (DNS rebinding) cannot slip
through; TLS still verifies the certificate for the name. The request and the answer on
a connection are service/adapters/webhooks/exchange.py's (HTTP/1.1 by the h11 library).
Redirects are never followed, and the whole attempt is bounded by one deadline, so a
receiver that hangs or trickles its answer holds it no longer than ``timeout``.
Connections a receiver keeps alive are used again for the next POST to the same checked
address, unless the receiver sent anything meanwhile or closed them. An answer's
``Retry-After`` is handed on in seconds (:func:`retry_after_seconds`). Web Push's
messages (service/adapters/push/) go out the same way.
"""

from __future__ import annotations

import asyncio
import collections
import email.utils
import logging
import ssl
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC
from urllib.parse import urlsplit

from service.adapters.webhooks import exchange
from service.adapters.webhooks.url_policy import UrlForbiddenError, _resolved

log = logging.getLogger(__name__)

IDLE_PER_TARGET = 32  # kept-alive connections to one receiver address
IDLE_SECONDS = 30.0  # a kept connection unused this long is closed
LOOKUPS = 32  # threads for name lookups (getaddrinfo blocks)


@dataclass(frozen=True, slots=True)
class Delivered:
    status: int | None
    error: str | None
    seconds: float
    retry_after: float | None = None  # seconds the receiver asked us to wait (Retry-After)


def retry_after_seconds(value: str | None, now: float) -> float | None:
    """The seconds an answer's ``Retry-After`` asks for (RFC 9110 section 10.2.3):
    delta-seconds, or an HTTP-date (in any of its three forms) less ``now`` (Unix
    seconds), never below 0. None when absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (ValueError, TypeError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)  # asctime's form: an HTTP-date is always GMT
    return max(0.0, when.timestamp() - now)


_Key = tuple[str, str, int, str]  # scheme, host, port, the checked address
_Kept = tuple[exchange.Connection, float]  # and when it was kept


_Then = Callable[[Delivered], None]


STOPPED = "the sender stopped"


def _where(url: str) -> str:
    """What a log line names of a URL: its scheme and host only (a push endpoint's path
    is a subscription's, personal data)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}"


class Poster:
    """Makes every POST on one event loop, in a daemon thread started at the first:
    :meth:`start` returns at once and calls ``then`` (in the loop's thread) with the
    outcome; an attempt never raises for the network's or the receiver's trouble.
    Connections a receiver keeps alive are used again, each only for the address that
    was checked for it. Names are looked up in threads of the loop's own (a lookup that
    hangs holds one of them, not the deliveries to other hosts)."""

    def __init__(self, *, allow_private: bool, timeout: float = 10.0) -> None:
        self._allow_private = allow_private
        self._timeout = timeout
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lookups: ThreadPoolExecutor | None = None
        self._closed = False
        self._asked: collections.deque[tuple[str, bytes, Mapping[str, str], _Then]] = (
            collections.deque()
        )
        self._tasks: set[asyncio.Task[None]] = set()
        self._idle: dict[_Key, list[_Kept]] = {}
        self._sweeping: asyncio.TimerHandle | None = None

    def start(self, url: str, body: bytes, headers: Mapping[str, str], then: _Then) -> None:
        """Begin one POST of ``body`` to ``url`` (thread-safe). Once the poster is closed,
        ``then`` hears at once that nothing was sent."""
        with self._lock:
            if self._closed:
                loop = None
            else:
                if self._loop is None:
                    self._loop = asyncio.new_event_loop()
                    self._lookups = ThreadPoolExecutor(
                        LOOKUPS, thread_name_prefix="yokai-webhook-lookup"
                    )
                    self._loop.set_default_executor(self._lookups)
                    self._thread = threading.Thread(
                        target=self._loop.run_forever, name="yokai-webhook-sender", daemon=True
                    )
                    self._thread.start()
                first = not self._asked
                self._asked.append((url, body, headers, then))
                loop = self._loop
        if loop is None:
            then(Delivered(None, STOPPED, 0.0))
        elif first:  # the loop takes everything asked meanwhile at once: one wake-up
            loop.call_soon_threadsafe(self._take_asked)

    def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> Delivered:
        """One POST, waited for."""
        outcome: list[Delivered] = []
        ended = threading.Event()

        def then(done: Delivered) -> None:
            outcome.append(done)
            ended.set()

        self.start(url, body, headers, then)
        ended.wait()  # an attempt ends within its timeout
        return outcome[0]

    def close(self) -> None:
        """Stop for good: attempts under way are cancelled (``then`` hears of each),
        kept connections closed; a later :meth:`start` sends nothing."""
        with self._lock:
            self._closed = True
            loop, thread, lookups = self._loop, self._thread, self._lookups
        if loop is None or thread is None or lookups is None:
            return
        asyncio.run_coroutine_threadsafe(self._shut(), loop).result()
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()
        lookups.shutdown(wait=False)  # a lookup that hangs ends on its own

    async def _shut(self) -> None:
        self._take_asked()  # what was asked before the close hears that it was not sent
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._sweeping is not None:
            self._sweeping.cancel()
        for kept in self._idle.values():
            for connection, _ in kept:
                connection.close()
        self._idle.clear()

    def _take_asked(self) -> None:
        with self._lock:
            asked, self._asked = self._asked, collections.deque()
            closed = self._closed
        loop = asyncio.get_running_loop()
        for url, body, headers, then in asked:
            if closed:
                try:
                    then(Delivered(None, STOPPED, 0.0))
                except Exception:
                    log.exception("POST to %s: its outcome could not be handed on", _where(url))
                continue
            task = loop.create_task(self._attempt(url, body, headers, then))
            self._tasks.add(task)  # a strong reference until it ends
            task.add_done_callback(self._tasks.discard)

    async def _attempt(
        self, url: str, body: bytes, headers: Mapping[str, str], then: _Then
    ) -> None:
        started = time.monotonic()
        asked: str | None = None
        try:
            async with asyncio.timeout(self._timeout):
                status, error, asked = await self._post(url, body, headers)
        except TimeoutError:
            status, error = None, "timeout"
        except asyncio.CancelledError:
            status, error = None, STOPPED
        except Exception as failure:  # a bug here must not lose the attempt's outcome
            log.exception("POST to %s", _where(url))
            status, error = None, f"{type(failure).__name__}: {failure}"[:300]
        wait = retry_after_seconds(asked, time.time())
        try:
            then(Delivered(status, error, time.monotonic() - started, wait))
        except Exception:
            log.exception("POST to %s: its outcome could not be handed on", _where(url))

    async def _post(
        self, url: str, body: bytes, headers: Mapping[str, str]
    ) -> tuple[int | None, str | None, str | None]:
        """The answer's status, or why there is none; and its Retry-After."""
        try:
            target = await _resolved(url, allow_private=self._allow_private)
        except UrlForbiddenError as refused:
            return None, f"forbidden address: {refused.reason}", None
        key: _Key = (target.scheme, target.host, target.port, target.address)
        request = exchange.request(target, body, headers)
        for _ in range(2):
            connection, kept = self._take(key), True
            if connection is None:
                kept = False
                try:
                    connection = await exchange.connect(target)
                except ConnectionRefusedError:
                    return None, "connection refused", None
                except ssl.SSLError as error:
                    return None, f"tls: {error.reason or error}", None
                except OSError as error:
                    return None, f"{type(error).__name__}: {error}"[:300], None
            answered = False
            try:
                answer = await connection.post(request, body)
                answered = True
            except exchange.NoAnswer:
                if kept:
                    continue  # the receiver closed a kept connection: once more, on a new one
                return None, "connection reset", None
            except exchange.CutShort:
                return None, "connection reset", None  # mid-answer: not sent again
            except ssl.SSLError as error:
                return None, f"tls: {error.reason or error}", None
            except exchange.BadAnswer as error:
                return None, f"bad answer: {error}"[:300], None
            except OSError as error:
                return None, f"{type(error).__name__}: {error}"[:300], None
            finally:
                if not answered:
                    connection.close()
            if answer.reusable:
                self._keep(key, connection)
            else:
                connection.close()
            return answer.status, None, answer.retry_after
        return None, "connection reset", None

    def _take(self, key: _Key) -> exchange.Connection | None:
        kept = self._idle.get(key)
        now = time.monotonic()
        while kept:
            connection, at = kept.pop()
            if now - at > IDLE_SECONDS or not connection.usable:
                connection.close()  # closed by the receiver meanwhile, or about to be
                continue
            connection.kept = False
            return connection
        return None

    def _keep(self, key: _Key, connection: exchange.Connection) -> None:
        kept = self._idle.setdefault(key, [])
        if len(kept) < IDLE_PER_TARGET:
            connection.kept = True
            kept.append((connection, time.monotonic()))
            if self._sweeping is None:
                loop = asyncio.get_running_loop()
                self._sweeping = loop.call_later(IDLE_SECONDS / 2, self._sweep)
        else:
            connection.close()

    def _sweep(self) -> None:
        """Close the kept connections unused for IDLE_SECONDS or closed by their receiver
        (endpoints come and go, and each connection holds a file descriptor); again
        later while any is kept."""
        self._sweeping = None
        now = time.monotonic()
        for key, kept in list(self._idle.items()):
            fresh = []
            for connection, at in kept:
                if now - at > IDLE_SECONDS or not connection.usable:
                    connection.close()
                else:
                    fresh.append((connection, at))
            if fresh:
                self._idle[key] = fresh
            else:
                del self._idle[key]
        if self._idle:
            loop = asyncio.get_running_loop()
            self._sweeping = loop.call_later(IDLE_SECONDS / 2, self._sweep)
