"""The datasets and runs of a SQLite store, read over the standard library's sqlite3.

For commands that must answer fast (``reviewer list`` is asked for often and should
take no longer than a shell builtin feels): importing SQLAlchemy and SQLModel costs
several times more than the whole answer. The same numbers as ``Store.datasets()``
and ``Store.runs()``, from the same tables.

Only used when it is surely right: a SQLite file that exists and holds exactly the
schema version this module was written for. Anything else (PostgreSQL, where team
mode may prepare each connection; a new or older database that needs creating or
upgrading) returns None and the caller opens the full Store.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from pathlib import Path

from reviewer.errors import NotFound
from reviewer.store.views import DatasetInfo, RunInfo

# The schema version the queries below were written against; a test keeps it equal
# to reviewer.store.migrations' latest version.
SCHEMA_VERSION = 10

_DATASETS = """
SELECT d.id, d.name, d.format, d.kind, d.source, d.created_at,
       (SELECT count(*) FROM item i WHERE i.dataset_id = d.id),
       (SELECT count(*) FROM run r WHERE r.dataset_id = d.id)
FROM dataset d ORDER BY d.name
"""

_RUNS = """
SELECT r.id, r.dataset_id, r.name, r.model, r.setup, r.format, r.created_at,
       count(o.id), coalesce(sum(CASE WHEN o.status != 'ok' THEN 1 ELSE 0 END), 0)
FROM run r LEFT JOIN output o ON o.run_id = r.id
WHERE r.dataset_id = ? GROUP BY r.id ORDER BY r.id
"""


def _sqlite_path(url: str) -> Path | None:
    prefix = "sqlite:///"
    if not url.startswith(prefix) or "?" in url:
        return None
    path = Path(url[len(prefix):])
    return path if path.is_file() else None


def _when(value) -> datetime | None:
    """A stored timestamp as the Store hands it out: aware, in UTC (reviewer.store.models)."""
    if value is None:
        return None
    when = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


class Catalog:
    """A read-only view of a store's datasets and runs; ``open`` says whether it applies."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    @classmethod
    def open(cls, url: str) -> Catalog | None:
        path = _sqlite_path(url)
        if path is None:
            return None
        try:
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
            version = conn.execute("SELECT version FROM reviewer_schema").fetchone()
        except sqlite3.Error:
            return None  # not a reviewer database yet, or locked in a way the Store handles
        if version is None or version[0] != SCHEMA_VERSION:
            conn.close()
            return None
        return cls(conn)

    def close(self) -> None:
        self.conn.close()

    def datasets(self) -> list[DatasetInfo]:
        return [
            DatasetInfo(id_, name, fmt, kind, source, items, runs, _when(created))
            for id_, name, fmt, kind, source, created, items, runs in self.conn.execute(_DATASETS)
        ]

    def dataset(self, ref: str | int) -> DatasetInfo:
        """A dataset by name or id; NotFound names the ones that exist (as Store.dataset)."""
        datasets = self.datasets()
        found = [d for d in datasets if d.name == ref or d.id == ref or str(d.id) == str(ref)]
        if not found:
            names = ", ".join(d.name for d in datasets) or "none yet"
            raise NotFound(f"no dataset {ref!r} (datasets: {names})")
        return found[0]

    def runs(self, dataset: str | int) -> list[RunInfo]:
        ds = self.dataset(dataset)
        return [
            RunInfo(id_, ds_id, name, model, setup, fmt, outputs, errors, _when(created))
            for id_, ds_id, name, model, setup, fmt, created, outputs, errors in self.conn.execute(_RUNS, (ds.id,))
        ]
