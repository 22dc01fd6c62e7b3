"""Whether a host is this machine itself: an identity provider or a push service on
loopback is a test's (or a developer's), reached over plain http and never through a
proxy."""

from __future__ import annotations

import ipaddress


def loopback(host: str | None) -> bool:
    """``localhost`` or a loopback address (127.0.0.0/8, ::1)."""
    if host is None:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
