"""Test-session configuration shared by every layer."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# No deadlines: speed is measured by the benchmarks, never asserted in tests.
settings.register_profile(
    "ci",
    deadline=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))

# Every service process a test starts (yokai serve, yokai worker) seals and opens fair
# games' server seeds with this key, so processes sharing a database share it, and
# none writes a key file into the user's data folder.
FAIRNESS_KEY = "dGVzdHMtb25seS1mYWlybmVzcy1rZXktMzItYnl0ZXM"
os.environ.setdefault("YOKAI_FAIRNESS_KEY", FAIRNESS_KEY)
# The same for the events' hash chain (HMAC under this key, docs/security.md).
CHAIN_KEY = "7465737473206f6e6c793a2074686520636861696e206b6579206f662079732e"
os.environ.setdefault("YOKAI_CHAIN_KEY", CHAIN_KEY)
# And for pushes' VAPID signatures (a P-256 private scalar in base64url).
VAPID_KEY = "dGVzdHMgb25seTogdGhlIFZBUElEIGtleSBvZiB5cyE"
os.environ.setdefault("YOKAI_VAPID_PRIVATE_KEY", VAPID_KEY)

# The PostgreSQL fixtures (a real server, migrated by alembic) for the integration and
# end-to-end tests, and a Redis server's; the rules and application tests never ask.
pytest_plugins = ["tests.support.postgres", "tests.support.redis_fixture"]
