"""Waiting for something another process or thread does, with a deadline (never a bare
sleep: the wait ends as soon as the condition holds).

Part of the harness that bench/ shares with the tests (see tests/support/__init__.py):
it imports no pytest.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


class WaitedTooLongError(AssertionError):
    """The condition did not hold before the deadline."""


def wait_for(
    condition: Callable[[], Any], what: str, timeout: float = 60.0, every: float = 0.1
) -> Any:
    """``condition()``'s first true value, asked every ``every`` seconds;
    :class:`WaitedTooLongError` if none came within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        found = condition()
        if found:
            return found
        if time.monotonic() > deadline:
            raise WaitedTooLongError(f"timed out waiting for {what}")
        time.sleep(every)
