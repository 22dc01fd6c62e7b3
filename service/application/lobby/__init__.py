"""The lobby: public games waiting for players (``projections.py``: a game's row, kept by
the write path in the command's own statement), listed with filters (``queries.py``);
its long-poll and stream are live delivery's."""
