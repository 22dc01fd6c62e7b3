"""Ratings (docs/api.md "Ratings, profiles and leaderboards"): a projection of finished
rated games, queued by the command that finishes one (``projections.py``, with the
players' results), updated once per game by the worker with openskill's Plackett-Luce
model, and read by the API."""
