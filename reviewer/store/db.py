"""Where the database is and how to connect to it.

SQLite by default: a file in the user's data directory, WAL journal, foreign
keys enforced, full fsync on commit (a crash of the app or the machine loses
no committed annotation). PostgreSQL for teams through the same code, given a
``postgresql://`` URL with ``--db`` or the ``REVIEWER_DB`` environment variable.
"""

from __future__ import annotations

import os
from pathlib import Path

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

# SQLAlchemy and SQLModel are imported inside the functions that use them, so that
# resolve_url serves quick read-only paths (reviewer.store.catalog) without them.

DB_ENV = "REVIEWER_DB"


def default_sqlite_path() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("reviewer", appauthor=False)) / "reviewer.sqlite3"


def resolve_url(db: str | os.PathLike | None = None) -> str:
    """Turn what the user gave (a URL, a file path or nothing) into a SQLAlchemy URL.

    Precedence: the argument, then ``$REVIEWER_DB``, then the default SQLite file.
    ``postgresql://`` and ``postgres://`` URLs are routed to the psycopg 3 driver.
    """
    value = str(db) if db else os.environ.get(DB_ENV) or ""
    if not value:
        path = default_sqlite_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{path}"
    if value.startswith(("postgres://", "postgresql://")):
        return "postgresql+psycopg://" + value.split("://", 1)[1]
    if "://" in value:
        return value
    path = Path(value).expanduser()
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path}"


def describe(url: str) -> str:
    """The URL with any password hidden, for messages and logs."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def _sqlite_pragmas(dbapi_conn, _record) -> None:
    cur = dbapi_conn.cursor()
    # 16 KiB pages, not SQLite's 4 KiB: an item row is a few kB of JSON (a NesTools item ~3.5 kB),
    # so with 4 KiB pages nearly every row took a page of its own. The importing process's CPU per
    # item fell by a quarter (100k NesTools-like items: 32-34k -> 43-45k items per CPU second,
    # 24.2-25.5k -> 26.6-27.2k items/s end to end, bench/import_bench.py, alternating); the item
    # table's first screen, sorts and scrolling measured the same (bench/table_bench.py). Takes
    # effect only in a new, empty database (before the WAL switch); existing files keep theirs.
    cur.execute("PRAGMA page_size=16384")
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA synchronous=FULL")
    cur.execute("PRAGMA busy_timeout=10000")
    cur.close()


def make_engine(url: str) -> Engine:
    from sqlalchemy import event
    from sqlmodel import create_engine

    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, pool_pre_ping=True)
