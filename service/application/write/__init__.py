"""The write path: every command goes through ``registry.execute``, the idempotency and
retry wrapper, and one transaction (``transaction.py``) that appends its events and runs
the projectors of what they change (``projectors.py``: what a projector is given; they
live in their capabilities, service/application/projections.py lists them), all of it
sent as one statement."""
