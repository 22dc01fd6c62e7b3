"""The budget table: where a request's CPU goes, stage by stage.

``bench.http_bench --profile DIR`` runs py-spy (``py-spy record --format raw
--nonblocking --rate 250``) on each web worker of the service while each measured phase
runs (plays, ``/view``, the public view, ``/events``), and writes the raw stacks to
``DIR/PHASE.PID.txt`` and the phase's CPU per request (tests/support/cpu.py: the kernel's
accounting of each part) to ``DIR/PHASE.cpu.json``. This module turns them into a table:
each stage's share of the web workers' samples on a core, and its microseconds per
request (that share of the web workers' CPU per request), then the other parts of the
system (PostgreSQL, the embedded worker, the load) from the CPU accounting, so that the
table adds up to all of a request's CPU. ``python -m bench.stages DIR`` prints the tables
of a folder again; ``--before EARLIER`` prints each stage's microseconds in both runs side
by side.

How a sample is classified (:func:`classify`): a sample whose innermost frame is in a
socket, a poll or the gevent hub (or psycopg's wait for the server, or its call of
libpq's send of a statement) is left out. Under load py-spy counts a thread that is
runnable as busy, and most such samples are a greenlet switched out or a worker that woke
a peer (wrk, PostgreSQL) and gave it the core: the kernel's whole part of the web
workers' CPU (system time) was 6 % in a check, while sends alone were a fifth of the
samples, and libpq's sends of statements another 12 to 18 % (py-spy sees no native
frames, so those end in psycopg's call of libpq). Then, if any frame of the stack is one of the
:data:`OWNERS`, the outermost such frame's stage takes the sample: those stages own all
they call (the JSON the log line encodes is the log line's, the pool's statistics that
the metrics read are the metrics'). Otherwise the :data:`RULES` (particular work: the
store, the rules, the hash chain, the answer...) are tried from the innermost frame out,
and the first frame that one matches decides; failing that, the :data:`FALLBACKS` (the
command's own steps, the framework, other service code, the server) the same way.
Libraries that every stage calls (json, cryptography, uuid, werkzeug's header
structures, the privacy module's seal and open) match no rule, so their caller decides:
decrypting a name is opening names, encrypting the request's address is sealing it.

py-spy needs ptrace: as root it attaches; where it cannot, ``--profile`` says so and the
benchmark goes on without the table. Its sampling takes CPU of its own (not counted in
the service's parts) on the same cores: figures under ``--profile`` are not the ones to
quote for throughput.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import psutil  # type: ignore[import-untyped]

STORE = "store driver and pool"
SERVER = "gunicorn and gevent"
FRAMEWORK = "Flask, flask-smorest, webargs, marshmallow"
ANSWER = "the answer (view and JSON)"
RULES_ENGINE = "rules"
LOG_LINE = "the log line"
COMMAND = "command (load, idempotency, transaction)"
HEADERS = "headers"
HASH_CHAIN = "hash chain"
METRICS = "metrics"
OPENING_NAMES = "opening names"
IDENTITY = "identity"
RATE_LIMIT = "rate limit"
SEALING = "sealing the request"
OTHER_SERVICE = "other service code"
OTHER = "other"

# A frame as py-spy writes it: "function (path/to/file.py:line)", the path relative to
# the entry of sys.path it was found in (or whole, with --full-filenames: hence "[(/]").
Rule = tuple[str, re.Pattern[str]]

OWNERS: tuple[Rule, ...] = (
    (
        LOG_LINE,
        re.compile(
            r"[(/]service/logs\.py|[(/]pythonjsonlogger/|[(/]logging/|(^|\.)_log_request \("
        ),
    ),
    (
        METRICS,
        re.compile(r"[(/]prometheus_client/|[(/]service/metrics\.py|(^|\.)_count_request \("),
    ),
    (RATE_LIMIT, re.compile(r"[(/]service/web/ratelimit\.py|[(/]limits/")),
)
"""Stages that take every sample with one of their frames in the stack."""

RULES: tuple[Rule, ...] = (
    (
        OPENING_NAMES,
        re.compile(
            r"[(/]service/application/privacy/reveal\.py|(^|\.)Revealer\.|(^|\.)_reveal \("
            r"|[(/]service/adapters/postgres/(keycache|privacy)\.py"
        ),
    ),
    # The rate limit's key: the principal it needs is identity's (a rule below).
    (RATE_LIMIT, re.compile(r"(^|\.)_rate_key \((.*/)?service/web/app\.py")),
    (SEALING, re.compile(r"[(/]service/application/(privacy/sealer|write/sealed)\.py")),
    (HASH_CHAIN, re.compile(r"[(/]service/application/integrity/chain\.py")),
    (RULES_ENGINE, re.compile(r"[(/]service/rules/")),
    (
        IDENTITY,
        re.compile(
            r"[(/]service/application/identity/"
            r"|(^|\.)(principal|bearer_token) \((.*/)?service/web/request\.py"
        ),
    ),
    (
        ANSWER,
        re.compile(
            r"[(/]service/web/render\.py|[(/]service/application/games/queries/"
            r"|(^|\.)present \((.*/)?service/application/games/turnclocks\.py|[(/]flask/json/"
        ),
    ),
    (
        HEADERS,
        re.compile(
            r"(^|\.)(_cache_and_security_headers|_finish) \("
            r"|[(/]service/web/(conditional|headers)\.py"
        ),
    ),
    (
        STORE,
        re.compile(
            r"[(/]psycopg|[(/]sqlalchemy/|[(/]service/adapters/postgres/"
            r"|(^|\.)unit_of_work \((.*/)?service/bootstrap\.py"
        ),
    ),
)
"""The stages of particular work, tried first: the innermost frame that one matches
decides."""

FALLBACKS: tuple[Rule, ...] = (
    (
        COMMAND,
        re.compile(
            r"[(/]service/application/(?!privacy/sealing\.py)"
            r"|(^|\.)(command_context|_request_fingerprint) \((.*/)?service/web/request\.py"
        ),
    ),
    (
        FRAMEWORK,
        re.compile(
            r"[(/](flask|flask_smorest|webargs|marshmallow|apispec)/"
            r"|[(/]werkzeug/(?!datastructures|http\.py)|[(/]service/web/(api|loading)\.py"
        ),
    ),
    (OTHER_SERVICE, re.compile(r"[(/]service/(?!application/privacy/sealing\.py)")),
    (SERVER, re.compile(r"[(/](gunicorn|gevent|greenlet)/")),
)
"""The stages of the code around that work (the command's own steps, the framework, the
server), for samples in none of the :data:`RULES`' frames: again the innermost frame
that one matches decides."""

WAITING = re.compile(
    r"\((.*/)?(gevent/(_socketcommon|_socket3|hub|_hub_primitives|_waiter|select)\.py"
    r"|psycopg/waiting\.py|socket\.py|selectors\.py):\d+\)$"
    # libpq's send of a statement (py-spy shows no native frames: the innermost one is
    # psycopg's call of it): a write on the socket that wakes the backend.
    r"|^BaseCursor\.(_send_query_prepared|_execute_send) \((.*/)?psycopg/_cursor_base\.py:\d+\)$"
)
"""An innermost frame that waits for a socket, the hub or the database: off the core."""

PHASES = ("play", "view", "public", "events")
"""The phases of bench.http_bench that --profile records, in its order."""


def classify(frames: Sequence[str]) -> str | None:
    """The stage of one sample (frames from the outermost in, as py-spy writes them), or
    None when it waits."""
    if not frames or WAITING.search(frames[-1]):
        return None
    for frame in frames:
        for stage, pattern in OWNERS:
            if pattern.search(frame):
                return stage
    for rules in (RULES, FALLBACKS):
        for frame in reversed(frames):
            for stage, pattern in rules:
                if pattern.search(frame):
                    return stage
    return OTHER


@dataclass
class Profile:
    """The samples of one phase, by stage."""

    stages: Counter[str] = field(default_factory=Counter)
    waiting: int = 0

    @property
    def on_core(self) -> int:
        return sum(self.stages.values())

    def add(self, lines: Iterable[str]) -> None:
        """Lines of py-spy's raw format: the frames joined by ';', a space, the count."""
        for line in lines:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack or not count.isdigit():
                continue
            stage = classify(stack.split(";"))
            if stage is None:
                self.waiting += int(count)
            else:
                self.stages[stage] += int(count)

    @classmethod
    def read(cls, paths: Iterable[Path]) -> Profile:
        profile = cls()
        for path in paths:
            with path.open() as lines:
                profile.add(lines)
        return profile


PART_NAMES = {
    "worker": "the embedded yokai worker",
    "postgres": "PostgreSQL",
    "load": "the load (wrk)",
    "bench": "the benchmark's process",
}


def table(profile: Profile, cpu_ms: Mapping[str, float]) -> list[str]:
    """The budget table (Markdown rows): the web workers' stages, then the other parts.
    ``cpu_ms``: CPU milliseconds per request of each part (tests/support/cpu.py)."""
    web = cpu_ms.get("web", 0.0) * 1000
    everything = sum(cpu_ms.values()) * 1000
    rows = [
        "| stage | share of the web workers' on-core samples | µs per request | share of all |",
        "|---|---|---|---|",
    ]

    def row(name: str, sample_share: str, us: float) -> str:
        of_all = f"{us / everything:.1%}" if everything else "-"
        return f"| {name} | {sample_share} | {us:,.0f} | {of_all} |"

    on_core = profile.on_core
    for stage, count in sorted(profile.stages.items(), key=lambda kv: (-kv[1], kv[0])):
        rows.append(row(stage, f"{count / on_core:.1%}", web * count / on_core))
    rows.append(row("**web workers, in all**", "100.0%" if on_core else "no samples", web))
    for part, name in PART_NAMES.items():
        us = cpu_ms.get(part, 0.0) * 1000
        if us >= 0.5 or part == "postgres":
            rows.append(row(name, "-", us))
    rows.append(row("**all parts**", "", everything))
    return rows


def summary(profile: Profile, workers: int) -> str:
    return (
        f"stages (py-spy on {workers} web workers: {profile.on_core + profile.waiting:,} "
        f"samples, {profile.waiting:,} waiting left out, {profile.on_core:,} on a core)"
    )


# --- recording ------------------------------------------------------------------------


def web_workers(serve_port: int) -> list[int]:
    """The gunicorn workers (not the master) of the ``yokai serve`` on ``serve_port``."""
    for process in psutil.process_iter(["cmdline"]):
        cmdline = " ".join(process.info["cmdline"] or [])
        if "service.cli serve" in cmdline and f"--port {serve_port}" in cmdline:
            tree = process.children(recursive=True)
            masters = [p for p in tree if p.ppid() == process.pid and _is_web(p)]
            return [w.pid for m in masters for w in m.children() if _is_web(w)]
    return []


def _is_web(process: psutil.Process) -> bool:
    try:
        return "service.web.wsgi:app" in " ".join(process.cmdline())
    except psutil.Error:
        return False


def py_spy() -> str | None:
    here = Path(sys.executable).with_name("py-spy")
    return str(here) if here.exists() else shutil.which("py-spy")


@contextmanager
def recording(
    folder: Path | None, phase: str, pids: Sequence[int], binary: str | None = None
) -> Iterator[None]:
    """py-spy (``binary``, else the one installed) on each of ``pids`` while the block
    runs, into ``folder/phase.PID.txt``. Nothing without a folder; a py-spy that is
    missing or cannot attach is reported, and the block runs all the same."""
    if folder is None:
        yield
        return
    binary = binary or py_spy()
    if binary is None or not pids:
        why = "py-spy is not installed (requirements/dev.lock has it)" if pids else "no web worker"
        print(f"  profile: {why}: no table")
        yield
        return
    folder.mkdir(parents=True, exist_ok=True)
    spies: list[tuple[int, subprocess.Popen[bytes], Path]] = []
    for pid in pids:
        log = folder / f"{phase}.{pid}.log"
        command = [binary, "record", "--pid", str(pid), "--format", "raw", "--nonblocking"]
        command += ["--rate", "250", "-o", str(folder / f"{phase}.{pid}.txt")]
        with log.open("wb") as out:
            spies.append((pid, subprocess.Popen(command, stdout=out, stderr=out), log))
    running = [spy for spy in spies if _sampling(*spy)]
    try:
        yield
    finally:
        for _, process, _ in running:
            process.send_signal(signal.SIGINT)  # py-spy writes its file on Ctrl-C
        for pid, process, log in running:
            if process.wait(timeout=60) != 0:
                print(f"  profile: py-spy on {pid} failed: {_last_line(log)}")


def _sampling(pid: int, process: subprocess.Popen[bytes], log: Path) -> bool:
    """Whether the py-spy has attached (it says so) before the phase starts; if it ended
    instead, says why."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if "Sampling process" in log.read_text(errors="replace"):
            return True
        if process.poll() is not None:
            break
        time.sleep(0.05)
    else:
        process.kill()
    process.wait()
    print(f"  profile: py-spy could not attach to web worker {pid}: {_last_line(log)}")
    return False


def _last_line(log: Path) -> str:
    lines = [x for x in log.read_text(errors="replace").splitlines() if x.strip()]
    return lines[-1] if lines else "(no output)"


def clear(folder: Path) -> None:
    """Remove what an earlier run left in ``folder`` (its stacks would join this run's)."""
    for phase in PHASES:
        for path in folder.glob(f"{phase}.*"):
            if path.suffix in (".txt", ".log", ".json"):
                path.unlink()


def save(folder: Path, phase: str, used: Mapping[str, float], requests: int) -> None:
    """The phase's CPU seconds of each part and its requests, beside its stacks."""
    record = {"requests": requests, "cpu_seconds": dict(used)}
    (folder / f"{phase}.cpu.json").write_text(json.dumps(record, indent=1) + "\n")


def recorded(folder: Path, phase: str) -> tuple[Profile, dict[str, float], int] | None:
    """A recorded phase: its samples, each part's CPU milliseconds per request, and how
    many py-spy files (web workers) it has; None when nothing was recorded."""
    stacks = sorted(folder.glob(f"{phase}.*.txt"))
    cpu = folder / f"{phase}.cpu.json"
    if not stacks or not cpu.exists():
        return None
    record = json.loads(cpu.read_text())
    requests = max(1, int(record["requests"]))
    cpu_ms = {part: s * 1000 / requests for part, s in record["cpu_seconds"].items()}
    return Profile.read(stacks), cpu_ms, len(stacks)


def report(folder: Path, phase: str) -> list[str]:
    """The table of a recorded phase (empty when nothing was recorded)."""
    found = recorded(folder, phase)
    if found is None:
        return []
    profile, cpu_ms, workers = found
    return [summary(profile, workers), *table(profile, cpu_ms)]


def microseconds(profile: Profile, cpu_ms: Mapping[str, float]) -> dict[str, float]:
    """Each stage's and each other part's microseconds per request, as :func:`table`
    gives them, by row name."""
    web = cpu_ms.get("web", 0.0) * 1000
    on_core = profile.on_core or 1
    rows = {stage: web * count / on_core for stage, count in profile.stages.items()}
    rows["**web workers, in all**"] = web
    for part, name in PART_NAMES.items():
        rows[name] = cpu_ms.get(part, 0.0) * 1000
    rows["**all parts**"] = sum(cpu_ms.values()) * 1000
    return rows


def side_by_side(before: Path, after: Path, phase: str) -> list[str]:
    """One phase's budget before and after (Markdown rows): each stage's microseconds per
    request in both runs, in the after run's order; empty unless both recorded it."""
    found_before, found_after = recorded(before, phase), recorded(after, phase)
    if found_before is None or found_after is None:
        return []
    old = microseconds(*found_before[:2])
    new = microseconds(*found_after[:2])
    totals = ["**web workers, in all**", *PART_NAMES.values(), "**all parts**"]
    stages = sorted(
        (name for name in old.keys() | new.keys() if name not in totals),
        key=lambda name: (-new.get(name, 0.0), -old.get(name, 0.0), name),
    )
    rows = ["| stage | µs before | µs after | change |", "|---|---|---|---|"]
    for name in [*stages, *totals]:
        was, now = old.get(name, 0.0), new.get(name, 0.0)
        if was < 0.5 and now < 0.5 and name != PART_NAMES["postgres"]:
            continue
        change = f"{now / was - 1:+.0%}" if was >= 0.5 else "new"
        rows.append(f"| {name} | {was:,.0f} | {now:,.0f} | {change} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="the folder given to http_bench --profile")
    parser.add_argument(
        "--before",
        type=Path,
        metavar="FOLDER",
        help="an earlier run's folder: print each phase's microseconds before and after",
    )
    arguments = parser.parse_args()
    for phase in PHASES:
        if arguments.before is not None:
            lines = side_by_side(arguments.before, arguments.folder, phase)
        else:
            lines = report(arguments.folder, phase)
        if lines:
            print(f"{phase}: " + "\n".join(lines))


if __name__ == "__main__":
    main()
