"""Versioned schema, so a user's database survives upgrades.

The version lives in table ``reviewer_schema``. A new database gets the current
tables and the latest version at once. An older one gets each migration after
its version in order, in one transaction per step. A database made by a newer
reviewer is refused rather than damaged.

To change the schema: change the models, then append ``Migration(N, "why", fn)``
where ``fn(conn)`` brings a version N-1 database to N (add the column, backfill).

We keep this small runner instead of Alembic: one linear history, no
autogeneration, and the same code path for SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import Column, Integer, MetaData, Table, inspect, select
from sqlalchemy.engine import Connection, Engine
from sqlmodel import SQLModel

from reviewer.errors import ReviewerError
from reviewer.store import models  # noqa: F401  (registers the tables)
from reviewer.guards import tables as _guard_tables  # noqa: F401, E402  (registers the guards' tables)


@dataclass(frozen=True)
class Migration:
    version: int
    description: str
    apply: Callable[[Connection], None]


def _baseline(conn: Connection) -> None:
    SQLModel.metadata.create_all(conn)


def _guard_tables(conn: Connection) -> None:
    from reviewer.guards.tables import create_tables

    create_tables(conn)


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "baseline: datasets, items, runs, outputs, scores, annotations, adjudications, audit", _baseline),
    Migration(2, "guards: per-item check results, adjudicator overrides, per-dataset guard settings", _guard_tables),
)

_meta = MetaData()
schema_table = Table("reviewer_schema", _meta, Column("version", Integer, nullable=False))


class SchemaTooNew(ReviewerError):
    pass


def current_version(conn: Connection) -> int | None:
    """The database's schema version, or None for an empty database."""
    if not inspect(conn).has_table("reviewer_schema"):
        return None
    return conn.execute(select(schema_table.c.version)).scalar()


def upgrade(engine: Engine, migrations: Sequence[Migration] = MIGRATIONS) -> int:
    """Bring the database to the latest version; return that version."""
    latest = migrations[-1].version
    with engine.begin() as conn:
        version = current_version(conn)
        if version is None:
            _meta.create_all(conn)
            SQLModel.metadata.create_all(conn)
            conn.execute(schema_table.insert().values(version=latest))
            return latest
    if version > latest:
        raise SchemaTooNew(
            f"this database has schema version {version}, newer than this reviewer "
            f"understands ({latest}); upgrade reviewer"
        )
    for step in migrations:
        if step.version <= version:
            continue
        with engine.begin() as conn:
            step.apply(conn)
            conn.execute(schema_table.update().values(version=step.version))
    return latest
