"""The application layer: what the service does, without HTTP or a database driver.
One folder per capability, each with its handlers, queries, ports and policy:

- ``games/``: a game's life: the handlers of create, join, pass, play, seat a bot,
  leave, resign and the worker's advance, invitations (``invitations.py``) and
  rematches (``rematch.py``); the queries of views, feeds, audits and the operators'
  listing and the inbox; loading and folding events (``loading.py``,
  ``cache.py``, ``codec.py``), turn clocks (``turnclocks.py``), who a request speaks
  for (``seating.py``), what an inbox entry says (``inbox.py``), its projectors
  (``projections/``: the games row, the inbox, snapshots, wakeups);
- ``identity/``: principals and tokens (``principals.py``, ``bearer.py``), who may do
  what, players (``players.py``, ``queries.py``), sign-in and link codes
  (``sessions.py``, ``signin.py``), the names people give (``names.py``);
- ``write/``: the write path every command takes: ``registry.py`` (``execute``: each
  command's handler and who may send it), ``idempotency.py`` (one transaction, retried
  after a lost race, once per key), ``transaction.py`` (what a handler sees of it; it
  runs the projectors), ``projectors.py`` (what a projector is given), ``dealing.py``
  (the deal loop), ``sealed.py`` (sealed idempotency outcomes);
- ``live/``: the hub streams and long-polls wait on (``hub.py``), the commits they
  share (``recent.py``), the streams and long-polls themselves;
- ``integrity/``: the hash chain, anchors, verifying a history, and the policy of
  ``yokai verify`` (``audit.py``);
- ``handrecords/``: hand records: model, build, text, JSON, parse, import, export;
- ``webhooks/``: endpoints, what a commit tells them and its projector (the outbox),
  signing and retries, and the worker's dispatcher;
- ``lobby/``: public games waiting for players: their row (its projector) and the
  listing;
- ``seeks/``: quick play: a player's seek, the commands that make and cancel one, the
  pairing of a pool into a started game and its policy;
- ``ratings/``: the ratings model, a finished game's results and place in the queue (its
  projector), the update the worker makes, profiles and leaderboards;
- ``privacy/``: personal data sealed under a key per person (``sealing.py``,
  ``sealer.py``), revealed where an answer leaves (``reveal.py``), erased by destroying
  the key (``erasure.py``), and the sealing of what was written before (``legacy.py``);
- ``jobs/``: the worker's job sources (due games, the pairing of seeks, ratings'
  updates, housekeeping, anchoring).

What they all share stays here: ``ports.py`` (Actor, StoredEvent, the event store, the
clock, the unit of work), ``commands.py``, ``results.py``, ``errors.py``, ``deps.py``
(the ports wired together), ``projections.py`` (every projector the write path runs,
one line each) and ``monitoring.py``. pyproject.toml's import contracts name which
capability may use which.
"""
