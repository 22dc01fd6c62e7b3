"""Adapters: they implement the application's ports. ``postgres/`` (SQLAlchemy Core +
psycopg 3) by store; ``integrity/`` (the chain key, anchor files); ``dealing/`` (the
clock, shuffles, the fair games' seed vault); webhook delivery; the embedded server and
migrations."""
