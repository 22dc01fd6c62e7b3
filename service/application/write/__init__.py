"""The write path: every command goes through ``registry.execute``, the idempotency and
retry wrapper, and one transaction (``transaction.py``) that appends its events and
projection rows together."""
