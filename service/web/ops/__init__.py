"""Health, readiness and metrics."""
