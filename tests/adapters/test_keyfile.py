"""A key file made on first use by processes that start together (gunicorn's workers and
the embedded worker): one key wins, everyone reads it whole, no draft is left."""

from __future__ import annotations

import itertools
import stat
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from service.adapters import keyfile


def test_starting_together_everyone_reads_the_one_key_made(tmp_path: Path) -> None:
    path = tmp_path / "data" / "some.key"
    count = itertools.count()
    barrier = threading.Barrier(12)

    def start() -> tuple[str, bool]:
        barrier.wait(timeout=30)
        return keyfile.kept(path, lambda: f"key-{next(count)}")

    with ThreadPoolExecutor(12) as pool:
        results = list(pool.map(lambda _: start(), range(12)))
    texts = {text for text, _ in results}
    assert len(texts) == 1 and texts.pop().startswith("key-")
    assert sum(made for _, made in results) == 1
    assert list(path.parent.iterdir()) == [path]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert keyfile.kept(path, lambda: "another") == (path.read_text(), False)
