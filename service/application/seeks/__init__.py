"""Quick play: seeks, a player's wish for a game of a kind (``ports.py``), made and
cancelled by its player and paired into games by the worker (``handlers.py``: the
commands, ``policy.py``: who may be paired with whom and when bots step in), and read
by its player (``queries.py``). The worker's job that pairs them is the jobs'
(``jobs/pairing.py``); a match reaches players through the inbox, the player stream
(live delivery) and webhooks, which the write path keeps in the pairing's own
transaction."""
