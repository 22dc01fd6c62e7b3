"""The application layer: what the service does, without HTTP or a database driver.

- ``commands.py``: commands as plain data, and the context they are sent in;
- ``handlers/``: one function per command (``games.py``: create, join; ``play.py``: pass,
  play), run by ``handlers.execute`` through ``idempotency.py``, the one wrapper that
  gives every command one transaction, retries after a lost race and does it once per
  key; ``transaction.py`` is what a handler sees of that transaction;
- ``results.py``: what handlers and queries return; ``queries/``: views, feeds, listings;
- ``identity.py``: principals, bearer tokens, who may do what;
- ``ports.py``: what the adapters provide (event store, projections, idempotency records,
  outbox, clock, dealer); ``deps.py``: those ports wired together;
- ``dealing.py`` (the deal loop), ``loading.py`` and ``cache.py`` (folded states),
  ``chain.py`` and ``verify.py`` (the hash chain), ``codec.py`` (stored events),
  ``records.py`` (sealed idempotency outcomes), ``paging.py``, ``errors.py``.
"""
