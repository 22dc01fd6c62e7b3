"""What a process could not publish on the bus is counted in /metrics, not lost silently:
announcements still waiting when the process stops (Redis unreachable) are counted as
``unpublished``, each refused attempt as a failure."""

from __future__ import annotations

import socket

from prometheus_client import REGISTRY

from service.adapters.bus import Notices


def counted(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_what_waits_when_the_process_stops_without_redis_is_counted_unpublished() -> None:
    unpublished = counted("yokai_bus_notices_total", outcome="unpublished")
    failures = counted("yokai_bus_publish_failures_total")
    notices = Notices(f"redis://127.0.0.1:{unused_port()}/0", timeout=0.2)
    notices.publish([("yokai", "lobby"), ("yokai_jobs", "g 1")])
    notices.close()  # nobody listens on that port: nothing can be published
    assert notices.published == 0 and notices.lost == 2
    assert counted("yokai_bus_notices_total", outcome="unpublished") == unpublished + 2
    assert counted("yokai_bus_publish_failures_total") >= failures + 1
