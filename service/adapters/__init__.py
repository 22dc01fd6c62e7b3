"""Adapters: PostgreSQL (SQLAlchemy Core + psycopg 3), the embedded server, the clock and
the dealer's shuffles. They implement the ports of ``service.application.ports``."""
