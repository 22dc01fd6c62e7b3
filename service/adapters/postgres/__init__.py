"""PostgreSQL through SQLAlchemy Core and psycopg 3: the engine, the tables (alembic owns
the schema; tables.py mirrors it), one module per store (events, games, players and the
inbox, snapshots, idempotency records, wakeups, webhooks, operators), the listener, and
the unit of work that puts one transaction around them."""
