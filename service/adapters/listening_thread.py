"""A process's thread that hears announcements and acts on them: the PostgreSQL listener
(postgres/listener.py), the key cache's (postgres/keycache.py) and the bus's (bus_listening.py)
differ in what they listen to, not in how they run: a daemon thread (a greenlet under
gevent) started once, whoever asks first, stopped by a flag it looks at every
``poll_seconds``."""

from __future__ import annotations

import threading


class ListeningThread:
    name = "yokai-listening"

    def __init__(self, poll_seconds: float) -> None:
        self._poll = poll_seconds
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._starting = threading.Lock()
        self.listening = threading.Event()
        """Set while it hears (connected and listening, or subscribed)."""
        self.connections = 0  # how many times it has (re)connected

    def start(self) -> None:
        if self._thread is not None:
            return
        with self._starting:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=self._poll + 5)

    def _run(self) -> None:
        raise NotImplementedError
