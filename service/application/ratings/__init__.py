"""Ratings (docs/api.md "Ratings, profiles and leaderboards"): a projection of finished
rated games, updated once per game by the worker with openskill's Plackett-Luce model,
and read by the API."""
