"""Games: their commands, their queries, what loads, folds and schedules them, and their
projectors (``projections/``: the games row, the inbox, snapshots, wakeups)."""
