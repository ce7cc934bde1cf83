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

from sqlalchemy import Column, Index, Integer, MetaData, Table, inspect, select
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


def _review_protocol(conn: Connection) -> None:
    """Version 2: the review protocol's stored stage, first submissions, assignments."""
    from reviewer.review.protocol import backfill

    SQLModel.metadata.create_all(conn, tables=[models.ItemReview.__table__, models.Assignment.__table__])
    columns = {c["name"] for c in inspect(conn).get_columns("annotation")}
    json_type = "json" if conn.dialect.name == "postgresql" else "JSON"
    if "first_submission" not in columns:
        conn.exec_driver_sql(f"ALTER TABLE annotation ADD COLUMN first_submission {json_type}")
    if "first_key" not in columns:
        conn.exec_driver_sql("ALTER TABLE annotation ADD COLUMN first_key VARCHAR(64)")
    backfill(conn)


# --- Step: sort indexes (issue 14) -------------------------------------------------
# The item table sorts a dataset by a column with the position breaking ties
# (queries.ItemQuery.order_by). One (dataset_id, column, position) index per
# sortable column gives that order by walking an index instead of sorting every
# item; PostgreSQL also carries the id in it, so the ordered id list is an
# index-only scan. record_id needs none: uq_item_record is (dataset_id, record_id).
# Declared on the table, so a new database gets them from create_all as well.
_item = models.Item.__table__
SORT_INDEXES = tuple(
    Index(f"ix_item_sort_{name}", _item.c.dataset_id, _item.c[name], _item.c.position, postgresql_include=["id"])
    for name in ("kind", "category", "difficulty", "depth", "domain")
)


def _sort_indexes(conn: Connection) -> None:
    for index in SORT_INDEXES:
        index.create(conn, checkfirst=True)


def _guard_tables(conn: Connection) -> None:
    from reviewer.guards.tables import create_tables

    create_tables(conn)


# --- Step: lz4 for the item's JSON columns on PostgreSQL (issue 14) ------------------
# A NesTools item stores ~5 kB of JSON (raw, payload, gold, original_gold), above
# PostgreSQL's 2 kB TOAST threshold, so every imported row is compressed. The
# default pglz took a third of the server's CPU time of an import (measured 1.05 s
# against 0.67 s of server CPU for 10k items with lz4, similar sizes on disk). A
# column's compression applies to values written from then on; older rows stay
# pglz and read back the same. SQLite stores the text as it is: nothing to do.
# A server built without lz4 keeps pglz (the step still succeeds).
LZ4_COLUMNS = ("raw", "payload", "gold", "original_gold")


def item_compression(conn: Connection) -> None:
    """Compress the item's JSON columns with lz4 where the server has it (PostgreSQL 14+)."""
    if conn.dialect.name != "postgresql" or conn.dialect.server_version_info < (14,):
        return
    has_lz4 = conn.exec_driver_sql(
        "select 'lz4' = any(enumvals) from pg_settings where name = 'default_toast_compression'"
    ).scalar()
    if not has_lz4:
        return
    table = conn.dialect.identifier_preparer.format_table(models.Item.__table__)
    alters = ", ".join(f"ALTER COLUMN {c} SET COMPRESSION lz4" for c in LZ4_COLUMNS)
    conn.exec_driver_sql(f"ALTER TABLE {table} {alters}")


# --- Step: the id in the position and record id indexes on PostgreSQL (issue 14) -----
# The item table first reads the ordered id list of the whole dataset. By position or
# record id the index gives the order but not the id, so PostgreSQL fetched every row
# from the table: 100k items by record id descending took 215-260 ms, in random heap
# order. With the id in the index (INCLUDE) it is an index-only scan: 52 ms (measured
# after VACUUM, as autovacuum leaves a table after an import). SQLite's indexes already
# end in the rowid, which is the id: nothing to do there.
def browse_indexes(conn: Connection) -> None:
    """Rebuild ``uq_item_record`` and ``ix_item_dataset_position`` with ``INCLUDE (id)`` (PostgreSQL)."""
    if conn.dialect.name != "postgresql":
        return
    prep = conn.dialect.identifier_preparer
    table = prep.format_table(models.Item.__table__)
    conn.exec_driver_sql(
        f"ALTER TABLE {table} DROP CONSTRAINT uq_item_record, "
        "ADD CONSTRAINT uq_item_record UNIQUE (dataset_id, record_id) INCLUDE (id)"
    )
    position = next(i for i in models.Item.__table__.indexes if i.name == "ix_item_dataset_position")
    position.drop(conn)
    position.create(conn)


# --- Step: the score sort index (issue 14) ----------------------------------------------
# Sorting the item table by a run's score walks score (mode, value, output_id) in order
# (queries._scored_items) instead of looking up and sorting every item's score.
# Declared on the Score table, so a new database gets it from create_all.
def _score_sort_index(conn: Connection) -> None:
    next(i for i in models.Score.__table__.indexes if i.name == "ix_score_sort").create(conn, checkfirst=True)


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "baseline: datasets, items, runs, outputs, scores, annotations, adjudications, audit", _baseline),
    Migration(2, "review protocol: item_review stage, annotation first submission, assignment", _review_protocol),
    Migration(3, "sort indexes: (dataset, column, position) per sortable item column", _sort_indexes),
    Migration(4, "guards: per-item check results, adjudicator overrides, per-dataset guard settings", _guard_tables),
    Migration(5, "item JSON columns compressed with lz4 on PostgreSQL (import speed)", item_compression),
    Migration(6, "position and record id indexes carry the item id on PostgreSQL (first screen)", browse_indexes),
    Migration(7, "score sort index: (mode, value, output_id) for the item table's score sort", _score_sort_index),
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
            _begin_explicitly(conn)  # all tables and the stamp, or nothing
            _meta.create_all(conn)
            SQLModel.metadata.create_all(conn)
            if any(step.apply is item_compression for step in migrations):
                item_compression(conn)  # not a table declaration: create_all cannot give it
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
            _begin_explicitly(conn)
            step.apply(conn)
            conn.execute(schema_table.update().values(version=step.version))
    return latest


def _begin_explicitly(conn: Connection) -> None:
    """Make the step's DDL part of its transaction on SQLite too.

    Python's sqlite3 driver opens a transaction only before INSERT/UPDATE/DELETE,
    so an ALTER TABLE run first is committed on its own and survives a later
    failure of the step. SQLite's DDL is transactional once a BEGIN is issued;
    the driver then commits or rolls back that transaction with the step.
    PostgreSQL's transactions already include DDL.
    """
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql("BEGIN")
