"""Queries: views, feeds, audits and listings. Each reads one consistent snapshot (or the
state cache, for a version it holds) and changes nothing."""
