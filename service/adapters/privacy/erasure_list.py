"""The erasure list: the subjects whose keys were destroyed, one per line, kept outside
the database (``YOKAI_ERASURE_LIST``; the data folder's ``erasures.list`` by default).

A database backup restored after an erasure brings the destroyed key back; the service
reads this list when it starts and destroys those keys again (and finishes any erasure
the restored database does not show done), so a restore never resurrects what was
erased. A subject is written here, and flushed to disk, before its key is destroyed.
It holds subjects (``p`` and a player's id), no personal data.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Collection
from pathlib import Path

FILE = "erasures.list"


class ErasureList:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def add(self, subjects: Collection[str]) -> None:
        """List these subjects, each once (the start's re-application destroys listed
        keys again: it must not list them again)."""
        with self._lock:
            listed = set(self.subjects())
            subjects = [s for s in dict.fromkeys(subjects) if s not in listed]
            if not subjects:
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, "".join(f"{s}\n" for s in subjects).encode())
                os.fsync(fd)
            finally:
                os.close(fd)

    def subjects(self) -> list[str]:
        """Every subject listed, once each, in the order first listed."""
        try:
            lines = self.path.read_text().splitlines()
        except FileNotFoundError:
            return []
        return list(dict.fromkeys(line.strip() for line in lines if line.strip()))
