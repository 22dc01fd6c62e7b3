"""docs/rules.md is the project's rules reference: every rule id in it is cited by a
rule test (as ``R-4.3`` in a docstring or ``R_4_3`` in a test's name)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_rule_of_the_reference_has_a_test_citing_it() -> None:
    ids = set(re.findall(r"\bR-(\d+)\.(\d+)\b", (ROOT / "docs" / "rules.md").read_text()))
    assert len(ids) > 30
    here = Path(__file__).resolve()
    tests = "".join(
        p.read_text() for p in (ROOT / "tests" / "rules").glob("test_*.py") if p.resolve() != here
    )
    missing = sorted(
        f"R-{a}.{b}" for a, b in ids if f"R-{a}.{b}" not in tests and f"R_{a}_{b}_" not in tests
    )
    assert missing == []
