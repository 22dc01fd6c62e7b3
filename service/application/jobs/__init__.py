"""The worker's jobs: the source protocol (``source.py``) and each source."""
