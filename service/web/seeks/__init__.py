"""/v1/seeks: quick play."""
