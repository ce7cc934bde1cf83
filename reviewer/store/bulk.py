"""Bulk writes through SQLAlchemy Core (the ORM's add_all is ~10x slower here)."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

CHUNK = 1000


def insert_many(conn: Connection, table: Table, rows: list[dict]) -> None:
    for start in range(0, len(rows), CHUNK):
        conn.execute(table.insert(), rows[start : start + CHUNK])


def insert_ignoring_duplicates(conn: Connection, table: Table, rows: Iterable[dict]) -> None:
    """Insert rows whose primary key may already exist (content-addressed blobs)."""
    rows = list(rows)
    if not rows:
        return
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    stmt = dialect.insert(table).on_conflict_do_nothing()
    for start in range(0, len(rows), CHUNK):
        conn.execute(stmt, rows[start : start + CHUNK])
