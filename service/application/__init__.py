"""The application layer: what the service does, without HTTP or a database driver.
One folder per capability, each with its handlers, queries, ports and policy:

- ``games/``: a game's life: the handlers of create, join, pass, play, seat a bot,
  leave, resign and the worker's advance; the queries of views, feeds, audits and the
  operators' listing and the inbox; loading and folding events (``loading.py``,
  ``cache.py``, ``codec.py``), turn clocks (``turnclocks.py``), who a request speaks
  for (``seating.py``), the inbox projection (``inbox.py``);
- ``identity/``: principals and tokens (``principals.py``), who may do what, players
  (``players.py``, ``queries.py``), the names people give (``names.py``);
- ``write/``: the write path every command takes: ``registry.py`` (``execute``: each
  command's handler and who may send it), ``idempotency.py`` (one transaction, retried
  after a lost race, once per key), ``transaction.py`` (what a handler sees of it),
  ``dealing.py`` (the deal loop), ``sealed.py`` (sealed idempotency outcomes);
- ``live/``: the hub streams and long-polls wait on (``hub.py``), the commits they
  share (``recent.py``), the streams and long-polls themselves;
- ``integrity/``: the hash chain, anchors, verifying a history, and the policy of
  ``yokai verify`` (``audit.py``);
- ``handrecords/``: hand records: model, build, text, JSON, parse, import, export;
- ``webhooks/``: endpoints, what a commit tells them, signing and retries, and the
  worker's dispatcher;
- ``jobs/``: the worker's job sources (due games, housekeeping, anchoring).

What they all share stays here: ``ports.py`` (Actor, StoredEvent, the event store, the
clock, the unit of work), ``commands.py``, ``results.py``, ``errors.py``, ``deps.py``
(the ports wired together) and ``monitoring.py``. pyproject.toml's import contracts
name which capability may use which.
"""
