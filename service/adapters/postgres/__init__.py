"""PostgreSQL through SQLAlchemy Core and psycopg 3: the engine, the tables (alembic owns
the schema; tables.py mirrors it), the event store, the projections, the idempotency
records, the outbox, and the unit of work that puts one transaction around them."""
