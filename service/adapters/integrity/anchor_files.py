"""Anchors on the file system (``YOKAI_ANCHOR_DIR``): one file of JSON lines per period
and worker, written whole then renamed into place, read-only once there; read back by
``yokai verify --anchors PATH`` (service/application/integrity/anchors.py).

The folder must be where the database's users cannot write: a path the PostgreSQL
server (and whoever holds its owner role) cannot reach, best a mount that only appends,
or synced off the host. Each period's file is also logged with its SHA-256.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

from service.application.integrity import anchors
from service.application.integrity.anchors import Anchor

log = logging.getLogger("yokai.anchors")

SUFFIX = ".jsonl"
_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


class AnchorDirectory:
    """Where one worker writes its anchors."""

    def __init__(self, folder: Path, writer: str) -> None:
        self.folder = folder
        self._writer = _NAME.sub("_", writer)

    def last_at(self) -> datetime | None:
        """When the newest anchor in the folder was made, if there is one."""
        newest: datetime | None = None
        if not self.folder.is_dir():
            return None
        for _, found in read(self.folder):
            if isinstance(found, Anchor) and (newest is None or found.at > newest):
                newest = found.at
        return newest

    def write(self, lines: Sequence[Anchor], at: datetime) -> str:
        """One file of these anchors; its path."""
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        stamp = at.astimezone(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        path = self.folder / f"anchors-{stamp}-{self._writer}{SUFFIX}"
        text = "".join(
            json.dumps(anchors.to_json(a), sort_keys=True, separators=(",", ":")) + "\n"
            for a in lines
        )
        draft = path.with_name(f".{path.name}.part")
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        draft.chmod(0o400)
        draft.rename(path)
        log.info(
            "anchored %d game heads in %s (sha256 %s)",
            len(lines),
            path,
            hashlib.sha256(text.encode()).hexdigest(),
        )
        return str(path)


def files(path: Path) -> list[Path]:
    """The anchor files at ``path``: itself if it is a file, else the folder's, by name."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise FileNotFoundError(f"no anchors at {path}")
    return sorted(p for p in path.iterdir() if p.is_file() and p.name.endswith(SUFFIX))


def read(path: Path) -> Iterator[tuple[str, Anchor | str]]:
    """Every line of the anchor files at ``path``: where it is (file:line), and the
    anchor it holds or why it holds none."""
    for file in files(path):
        with file.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                where = f"{file}:{number}"
                if not line.strip():
                    continue
                try:
                    found = json.loads(line)
                    if not isinstance(found, dict):
                        raise ValueError("not a JSON object")
                    yield where, anchors.from_json(found)
                except ValueError as exc:
                    yield where, f"unreadable: {exc}"
