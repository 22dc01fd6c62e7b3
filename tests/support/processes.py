"""A process the tests or a benchmark start (a server, a worker): its output in a log
file (a pipe nobody reads would fill up and stall it), its readiness waited for with a
deadline, and at the end SIGTERM, then SIGKILL if it has not ended in time.

Part of the harness that bench/ shares with the tests (see tests/support/__init__.py):
it imports no pytest.
"""

from __future__ import annotations

import http.client
import os
import signal
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from tests.support.waiting import WaitedTooLongError, wait_for

TAIL = 5000
"""How much of the end of a log a failure shows."""


class NotReadyError(AssertionError):
    """A process ended, or did not become ready, before its deadline."""


class DidNotStopError(AssertionError):
    """A process did not end within its time after SIGTERM (it was then killed)."""


@dataclass
class Started:
    """A started process and the file its output goes to; ``temporary``: the file is
    removed once the process is stopped."""

    process: subprocess.Popen[bytes]
    log: Path
    what: str
    temporary: bool = False

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def tail(self) -> str:
        return self.output()[-TAIL:]

    def wait_ready(self, ready: Callable[[], bool], seconds: float, every: float = 0.2) -> None:
        """Until ``ready()``; :class:`NotReadyError`, with the end of the log, if the
        process ends first or ``seconds`` pass."""

        def up() -> bool:
            if self.process.poll() is not None:
                raise NotReadyError(
                    f"{self.what} ended with {self.process.returncode}:\n{self.tail()}"
                )
            return ready()

        try:
            wait_for(up, f"{self.what} to be ready", seconds, every)
        except WaitedTooLongError:
            raise NotReadyError(
                f"{self.what} was not ready in {seconds:.0f} s:\n{self.tail()}"
            ) from None

    def stop(self, seconds: float = 60, sig: int = signal.SIGTERM) -> int:
        """Send ``sig`` (SIGTERM) and wait for the end; its exit status. Not ended within
        ``seconds``: killed, and :class:`DidNotStopError`."""
        try:
            if self.process.poll() is None:
                self.process.send_signal(sig)
            try:
                return self.process.wait(timeout=seconds)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise DidNotStopError(f"{self.what} did not end within {seconds:.0f} s") from None
        finally:
            if self.temporary:
                self.log.unlink(missing_ok=True)


def start(
    command: Sequence[str | Path],
    log: Path | None = None,
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    append: bool = False,
    new_session: bool = False,
    what: str | None = None,
) -> Started:
    """Start ``command`` (``env``: its whole environment; None, this process's), its
    output and errors in ``log`` (None: a temporary file), appended to it with
    ``append``; ``new_session``: a process group of its own (a terminal's Ctrl-C or a
    signal to this one's group does not reach it)."""
    temporary = log is None
    if log is None:
        handle, name = tempfile.mkstemp(prefix="yokai-process-", suffix=".log")
        os.close(handle)
        log = Path(name)
    with log.open("ab" if append else "wb") as out:
        process = subprocess.Popen(
            [str(part) for part in command],
            env=None if env is None else dict(env),
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=new_session,
        )
    return Started(process, log, what or " ".join(str(p) for p in command[:4]), temporary)


@contextmanager
def running(
    command: Sequence[str | Path],
    log: Path | None = None,
    *,
    ready: Callable[[], bool],
    seconds: float = 120,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    append: bool = False,
    new_session: bool = False,
    what: str | None = None,
    stop_seconds: float = 60,
) -> Iterator[Started]:
    """:func:`start`, then wait until ``ready()`` (``seconds`` at most); the process for
    the block, stopped at its end (:meth:`Started.stop`), however it ends."""
    started = start(
        command, log, env=env, cwd=cwd, append=append, new_session=new_session, what=what
    )
    try:
        started.wait_ready(ready, seconds)
        yield started
    finally:
        started.stop(stop_seconds)


def answers(base: str, path: str = "/readyz", timeout: float = 5) -> bool:
    """Whether ``base`` (``http://host:port``) answers ``GET path`` with 200."""
    where = urlsplit(base)
    conn = http.client.HTTPConnection(where.hostname or "127.0.0.1", where.port, timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status == 200
    except (OSError, http.client.HTTPException):
        return False
    finally:
        conn.close()
