"""A secret kept in a file of the data folder (the chain key, the fairness key), made on
first use, readable by its owner only.

Processes that start at the same moment (gunicorn's workers, the embedded worker) may
all find the file missing: each writes a whole key under a name of its own, then links
it into place; one link wins, and every process reads that key (never a file half
written, never two keys).
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path


def kept(path: Path, make: Callable[[], str]) -> tuple[str, bool]:
    """The file's text, made with ``make()`` if missing; and whether this call made it."""
    made = False
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        draft = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(make() + "\n")
        try:
            os.link(draft, path)
        except FileExistsError:
            pass  # another process made it first: its key is the one
        else:
            made = True
        finally:
            draft.unlink()
    return path.read_text(), made
