"""Webhooks: endpoints (``endpoints.py``), what a commit tells them (``events.py``) and
its projector, which fans that out in the command's statement (``projections.py``),
signing, retrying and recording deliveries (``delivery.py``), and the worker's
dispatcher (``dispatcher.py``)."""
