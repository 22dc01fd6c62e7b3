"""The projectors of games (service/application/write/projectors.py), one module per
effect: the games row (``summary.py``), the players' inbox entries (``inbox.py``),
snapshots (``snapshots.py``) and the turn clocks' wakeups (``wakeups.py``)."""
