"""The harness bench/ shares with the tests (tests/support/__init__.py): it loads without
pytest, and its parser and figures do what the benchmarks print from them."""

from __future__ import annotations

import ast
import math
import subprocess
import sys
from pathlib import Path

from tests.support.figures import percentile, spread_ms
from tests.support.sse import Frame, SseParser

ROOT = Path(__file__).resolve().parents[1]


def _harness() -> set[str]:
    """The tests.support modules that bench/ imports."""
    found: set[str] = set()
    for path in (ROOT / "bench").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tests."):
                found.add(node.module or "")
    return found


def test_what_bench_imports_from_the_tests_loads_without_pytest() -> None:
    modules = _harness()
    assert "tests.support.processes" in modules  # the scan finds what bench/ imports
    code = (
        f"import importlib, sys\nfor m in {sorted(modules)!r}:\n    importlib.import_module(m)\n"
        "print(sorted(m for m in sys.modules if m == 'pytest' or m.startswith('_pytest')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]", done.stdout


def test_the_parser_reads_messages_however_the_bytes_are_cut() -> None:
    body = (
        b': keep-alive\n\nevent: view\nid: 12\ndata: {"a":\ndata:  1}\n\n'
        b"event: end\r\ndata: {}\r\n\r\n: keep-alive\n\n"
    )
    for size in (1, 2, 7, len(body)):
        parser = SseParser()
        frames = [f for i in range(0, len(body), size) for f in parser.feed(body[i : i + size])]
        assert frames == [Frame("view", 12, b'{"a":\n 1}'), Frame("end", None, b"{}")]
        assert parser.comments == 2


def test_percentiles_are_values_seen_by_nearest_rank() -> None:
    values = [float(v) for v in range(100, 0, -1)]
    assert (percentile(values, 50), percentile(values, 99), percentile(values, 100)) == (
        50.0,
        99.0,
        100.0,
    )
    assert percentile([0.25], 99) == 0.25
    assert math.isnan(percentile([], 50))
    assert spread_ms([0.001, 0.002, 0.5]) == "p50 2 ms, p99 500 ms, max 500 ms"
    assert spread_ms([0.1]) == "too few"
