"""Listening connections: the one way this package opens a connection that LISTENs, and
the loop that keeps one listening.

Three parts of the service listen: the streams' listener (listener.py), the key cache
(keycache.py) and the worker (service/worker.py). Each needs the same connection (made
with psycopg, not through the pool, since a LISTEN lives as long as its connection;
autocommit, so that notifications are delivered between statements; TCP keepalives, so a
peer that vanished is noticed within a minute rather than never) and the first two the
same loop around it (connect, LISTEN, hand each notification on, and on any failure back
off from 0.1 s up to 5 s and connect again). They are here once.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

import psycopg

log = logging.getLogger(__name__)

FIRST_DELAY = 0.1
LONGEST_DELAY = 5.0


def direct_connection(conninfo: str, application_name: str) -> psycopg.Connection[Any]:
    """A new autocommit connection to ``conninfo`` (libpq_conninfo's form), not from the
    pool, with TCP keepalives; ``application_name`` names it in pg_stat_activity. (Also
    the relay's, whose lock lives as long as its connection: relay.py.)"""
    return psycopg.connect(
        conninfo,
        autocommit=True,
        connect_timeout=5,
        keepalives=1,
        keepalives_idle=30,
        keepalives_interval=10,
        keepalives_count=3,
        application_name=application_name,
    )


def listening_connection(
    conninfo: str, channel: str, application_name: str
) -> psycopg.Connection[Any]:
    """A new :func:`direct_connection` that LISTENs on ``channel``."""
    conn = direct_connection(conninfo, application_name)
    try:
        conn.execute(f"LISTEN {channel}")
    except BaseException:
        conn.close()
        raise
    return conn


def listen_until_stopped(
    conninfo: str,
    channel: str,
    application_name: str,
    *,
    stopping: threading.Event,
    poll_seconds: float,
    listening: Callable[[], None],
    heard: Callable[[str], None],
    lost: Callable[[], None],
    logger: logging.Logger = log,
    label: str = "listener",
) -> None:
    """Listen on ``channel`` until ``stopping`` is set: ``listening()`` once each
    connection listens, ``heard(payload)`` for each notification, ``lost()`` each time a
    connection ends (failed, lost, or stopped). ``stopping`` is looked at every
    ``poll_seconds``. An error of the connection or of a callback is logged (to
    ``logger``, lines beginning with ``label``) and the loop connects again; only an
    error of ``lost()`` itself, or a BaseException, ends it."""
    delay = FIRST_DELAY
    while not stopping.is_set():
        try:
            with listening_connection(conninfo, channel, application_name) as conn:
                delay = FIRST_DELAY
                listening()
                while not stopping.is_set():
                    for note in conn.notifies(timeout=poll_seconds):
                        heard(note.payload)
        except psycopg.Error as error:
            if not stopping.is_set():
                logger.warning("%s: %s; reconnecting in %.1f s", label, error, delay)
        except Exception:
            logger.exception("%s: unexpected error; reconnecting in %.1f s", label, delay)
        finally:
            lost()
        if stopping.wait(delay):
            break
        delay = min(delay * 2, LONGEST_DELAY)
