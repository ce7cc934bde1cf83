"""Live updates: has anyone else changed the review data since I last looked?

``ChangeWatcher(store).poll()`` answers without blocking:
- PostgreSQL: a dedicated connection LISTENs on channel "reviewer"; the team database's
  trigger NOTIFYs on every stage change (reviewer.team.sql), and any writer can call
  ``notify(conn)``. ``poll`` drains the pending notifications.
- SQLite: ``PRAGMA data_version`` on a dedicated connection changes when another
  connection commits (our own connections included: the store pools them), so ``poll``
  compares it with the last value seen.
The GUI calls ``poll`` from a timer and refreshes what it shows; the CLI does not need it.
"""

from __future__ import annotations

import sqlite3


class ChangeWatcher:
    def __init__(self, store):
        self.store = store
        self._pg = None
        self._sqlite = None
        self._version = None
        url = store.engine.url
        if store.backend == "postgresql":
            import psycopg

            conninfo = url.set(drivername="postgresql").render_as_string(hide_password=False)
            self._pg = psycopg.connect(conninfo, autocommit=True)
            self._pg.execute("LISTEN reviewer")
        elif store.backend == "sqlite" and url.database:
            self._sqlite = sqlite3.connect(url.database, check_same_thread=False)
            self._version = self._data_version()

    def _data_version(self) -> int:
        return self._sqlite.execute("PRAGMA data_version").fetchone()[0]

    def poll(self) -> bool:
        """True when something changed since the last poll (never blocks)."""
        if self._pg is not None:
            return any(True for _ in self._pg.notifies(timeout=0))
        if self._sqlite is not None:
            now = self._data_version()
            changed, self._version = now != self._version, now
            return changed
        return False

    def close(self) -> None:
        for conn in (self._pg, self._sqlite):
            if conn is not None:
                conn.close()
        self._pg = self._sqlite = None
