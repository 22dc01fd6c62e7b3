"""Hand review (issue 46, API.md Part 4 "Hand review"): for every pass and play of a
finished game, what the ``expert`` search would have played from that seat's view.

- ``model.py``: a decision's review and the seats' summary (mistakes, blunders,
  accuracy);
- ``compute.py``: the positions of a game to review, and one decision valued by the
  search of service/bots (service/bots/search.py: ``play_values``, ``pass_values``)
  from the seat's own view and feed at that moment, seeded by ``YOKAI_REVIEW_SEED``
  and the seat's view only, with a fixed number of sampled worlds (no clock);
- ``handlers.py``: the request (POST /v1/games/{id}/review); ``queries.py``: the review
  as the API gives it; ``ports.py``: its store (migration 0020);
- ``jobs.py``: the worker's job, one decision per run, yielding to the bots; and a
  whole review at once for ``yokai review``.
"""
