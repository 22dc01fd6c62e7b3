"""Integrity: each game's hash chain (``chain.py``), anchors of its head outside the
database (``anchors.py``), proving a history (``verify.py``) and what ``yokai verify``
decides from it (``audit.py``)."""
