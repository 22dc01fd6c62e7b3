"""Where the CPU goes during a benchmark run: the CPU seconds (user + system) that each
part of the system under test used, read from the kernel's accounting (psutil), so the
figures hold even when other work shares the machine (they do not depend on how long
anything waited for a core).

Parts: ``web`` (the gunicorn master and workers of ``yokai serve``), ``worker`` (the
``yokai worker`` processes it started), ``postgres`` (the embedded server's processes,
found by its data folder), ``bench`` (this process: the clients and receivers it runs)
and ``load`` (its child processes, e.g. wrk, once they have ended).

Beside them, :class:`MachineSample` and :class:`MachineShare`: the whole machine's CPU
over a window and the part of it that processes other than the benchmark's took (another
job on the machine skews every figure).

Part of the harness that bench/ shares with the tests (see tests/support/__init__.py):
it imports no pytest.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import psutil  # type: ignore[import-untyped]

PARTS = ("web", "worker", "postgres", "bench", "load")


def cpu_seconds(process: psutil.Process, *, reaped: bool = False) -> float:
    """A process's CPU seconds (user + system; 0 once it is gone); with ``reaped``, also
    those of its children that ended (a PostgreSQL backend that closed is counted in its
    postmaster's)."""
    try:
        times = process.cpu_times()
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return 0.0
    own = times.user + times.system
    if reaped:
        own += times.children_user + times.children_system
    return float(own)


def _tree(root: psutil.Process) -> list[psutil.Process]:
    try:
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _part(process: psutil.Process) -> str | None:
    try:
        cmdline = " ".join(process.cmdline())
        name = process.name()
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return None
    if "postgres" in name or "postgres:" in cmdline:
        return "postgres"
    if (" worker" in cmdline and "service.cli" in cmdline) or "yokai worker" in cmdline:
        return "worker"
    return "web"


@dataclass
class Accounts:
    """Snapshots of the CPU seconds of each part; ``since(earlier)`` gives the use
    between two snapshots."""

    seconds: dict[str, float] = field(default_factory=dict)

    @classmethod
    def take(cls, serve_port: int, data_markers: Iterable[str] = ()) -> Accounts:
        """The parts of the ``yokai serve`` listening on ``serve_port`` (its process tree)
        and of any PostgreSQL whose command line names one of ``data_markers``."""
        seconds = dict.fromkeys(PARTS, 0.0)
        markers = [m for m in data_markers if m]
        roots: list[psutil.Process] = []
        for process in psutil.process_iter(["cmdline"]):
            cmdline = " ".join(process.info["cmdline"] or [])
            if "service.cli serve" in cmdline and f"--port {serve_port}" in cmdline:
                roots.append(process)
            elif markers and any(m in cmdline for m in markers):
                roots.append(process)  # an embedded PostgreSQL's postmaster
        seen: set[int] = set()
        for root in roots:
            for process in _tree(root):
                if process.pid in seen:
                    continue
                seen.add(process.pid)
                part = _part(process)
                if part is not None:
                    seconds[part] += cpu_seconds(process, reaped=part == "postgres")
        mine = psutil.Process().cpu_times()
        seconds["bench"] = mine.user + mine.system
        seconds["load"] = mine.children_user + mine.children_system  # those that ended
        return cls(seconds)

    def since(self, earlier: Accounts) -> dict[str, float]:
        return {p: self.seconds.get(p, 0.0) - earlier.seconds.get(p, 0.0) for p in PARTS}


def per_request(used: dict[str, float], requests: int) -> str:
    """CPU milliseconds per request of each part, and in all."""
    if requests <= 0:
        return "no requests"
    parts = "  ".join(f"{p} {used[p] * 1000 / requests:.2f}" for p in PARTS)
    return f"CPU ms/request: {parts}  all {sum(used.values()) * 1000 / requests:.2f}"


def total_seconds(processes: Iterable[psutil.Process]) -> float:
    """The CPU seconds of ``processes`` together."""
    return sum(cpu_seconds(process) for process in processes)


def _ours(data_markers: Iterable[str]) -> dict[int, float]:
    """The CPU seconds of this process and its descendants, and of any process (a
    PostgreSQL) whose command line names one of ``data_markers``, each with its reaped
    children's."""
    markers = [m for m in data_markers if m]
    roots = [psutil.Process()]
    if markers:
        for process in psutil.process_iter(["cmdline"]):
            if any(m in " ".join(process.info["cmdline"] or []) for m in markers):
                roots.append(process)  # the PostgreSQL server (its parent is init)
    ours: dict[int, float] = {}
    for root in roots:
        for process in _tree(root):
            if process.pid not in ours:
                ours[process.pid] = cpu_seconds(process, reaped=True)
    return ours


@dataclass(frozen=True)
class MachineSample:
    """The machine's CPU seconds (busy and in all, every core) and those of the
    benchmark's processes (:func:`_ours`), at one moment."""

    busy: float
    total: float
    ours: dict[int, float]

    @classmethod
    def take(cls, data_markers: Iterable[str] = ()) -> MachineSample:
        times = psutil.cpu_times()
        total = float(sum(times))
        idle = times.idle + getattr(times, "iowait", 0.0)
        return cls(total - idle, total, _ours(data_markers))


@dataclass(frozen=True)
class MachineShare:
    """Shares of the whole machine's CPU over a window: all of it, and the part used by
    processes that are not the benchmark's."""

    busy: float
    others: float

    @classmethod
    def between(cls, start: MachineSample, end: MachineSample) -> MachineShare:
        total = max(1e-9, end.total - start.total)
        ours = sum(max(0.0, t - start.ours.get(pid, 0.0)) for pid, t in end.ours.items())
        busy = end.busy - start.busy
        return cls(busy / total, max(0.0, busy - ours) / total)

    def text(self) -> str:
        return f"machine CPU busy {self.busy:.0%}, other processes {self.others:.0%}"
