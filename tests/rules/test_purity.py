"""The rules engine is a pure core: standard library only, no I/O, clock or randomness."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import service.rules

RULES_DIR = Path(service.rules.__file__).parent
# Modules that would let the engine reach the outside world or chance.
IMPURE = {"random", "secrets", "time", "datetime", "os", "socket", "io", "pathlib", "subprocess"}


def _imports() -> list[tuple[str, str]]:
    found = []
    for path in sorted(RULES_DIR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found += [(path.name, alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.append((path.name, node.module))
    return found


def test_rules_import_only_the_standard_library_and_themselves() -> None:
    imports = _imports()
    assert imports, "the scan found no imports at all"
    foreign = [
        (f, m)
        for f, m in imports
        if not m.startswith("service.rules")
        and m.split(".")[0] not in sys.stdlib_module_names
        and m != "__future__"
    ]
    assert foreign == []


def test_rules_use_no_clock_randomness_or_io() -> None:
    impure = [(f, m) for f, m in _imports() if m.split(".")[0] in IMPURE]
    assert impure == []
