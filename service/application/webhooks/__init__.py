"""Webhooks: endpoints (``endpoints.py``), what a commit tells them (``events.py``),
signing, retrying and recording deliveries (``delivery.py``), and the worker's
dispatcher (``dispatcher.py``)."""
