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


def _json_type(conn: Connection) -> str:
    """The SQL type of a JSON column added by ALTER TABLE, as create_all makes it."""
    return "json" if conn.dialect.name == "postgresql" else "JSON"


def _review_protocol(conn: Connection) -> None:
    """Version 2: the review protocol's stored stage, first submissions, assignments."""
    from reviewer.review.protocol import backfill

    SQLModel.metadata.create_all(conn, tables=[models.ItemReview.__table__, models.Assignment.__table__])
    columns = {c["name"] for c in inspect(conn).get_columns("annotation")}
    json_type = _json_type(conn)
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
# Step 8 rebuilds it with the run in front (the table declares that one, for create_all).
def _score_sort_index(conn: Connection) -> None:
    include = " INCLUDE (id)" if conn.dialect.name == "postgresql" else ""
    conn.exec_driver_sql(f"CREATE INDEX IF NOT EXISTS ix_score_sort ON score (mode, value, output_id){include}")


# --- Step: a score carries its output's run and item (issues 14, 16) ------------------------
# score.run_id and score.item_id are copies of its output's, kept by the database: triggers
# set them from output_id on every insert and on every update of output_id, run_id or
# item_id (whatever the writer sent), and follow an output moved to another run or item.
# So a run's scores are read without a join (reviewer.scoring.job.stored_results), the
# score sort index starts with the run (its walk steps over no other run's scores), and team
# mode's score policy is one probe of the item's assignment per score row, which PostgreSQL
# hashes once per statement when it reads many (reviewer.team.sql), instead of a probe of
# output whose own policy probes the assignment. The copies decide what an annotator reads:
# only the triggers write them. A new database gets the columns and the index from
# create_all and the triggers from ``score_key_triggers``.
def score_key_triggers(conn: Connection) -> None:
    """Create (or replace) the triggers that keep score.run_id and score.item_id equal to
    their output's."""
    if conn.dialect.name == "postgresql":
        prep = conn.dialect.identifier_preparer
        s = prep.quote(conn.exec_driver_sql("select current_schema()").scalar())
        for stmt in _pg_score_keys(s):
            conn.exec_driver_sql(stmt)
        return
    keys = ("run_id = (SELECT o.run_id FROM output o WHERE o.id = NEW.output_id), "
            "item_id = (SELECT o.item_id FROM output o WHERE o.id = NEW.output_id)")
    stale = ("NEW.run_id IS NOT (SELECT o.run_id FROM output o WHERE o.id = NEW.output_id) "
             "OR NEW.item_id IS NOT (SELECT o.item_id FROM output o WHERE o.id = NEW.output_id)")
    for name, event in (("reviewer_score_keys_insert", "INSERT"),
                        ("reviewer_score_keys_update", "UPDATE OF output_id, run_id, item_id")):
        conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name}")
        conn.exec_driver_sql(f"CREATE TRIGGER {name} AFTER {event} ON score FOR EACH ROW WHEN {stale} "
                             f"BEGIN UPDATE score SET {keys} WHERE id = NEW.id; END")
    conn.exec_driver_sql("DROP TRIGGER IF EXISTS reviewer_output_keys")
    conn.exec_driver_sql("CREATE TRIGGER reviewer_output_keys AFTER UPDATE OF run_id, item_id ON output FOR EACH ROW "
                         "BEGIN UPDATE score SET run_id = NEW.run_id, item_id = NEW.item_id "
                         "WHERE output_id = NEW.id; END")


def _pg_score_keys(s: str) -> list[str]:
    # SECURITY INVOKER: they read and write as the writer (who may write scores, and so read
    # outputs); a writer who could not see the output would leave the keys NULL, which no
    # annotator's policy matches. The search path and qualified names keep a caller's own
    # objects (a temporary table named output) out.
    return [
        f"""CREATE OR REPLACE FUNCTION {s}.reviewer_score_keys() RETURNS trigger
LANGUAGE plpgsql SET search_path = {s}, pg_catalog, pg_temp AS $$
BEGIN
  SELECT o.run_id, o.item_id INTO NEW.run_id, NEW.item_id FROM {s}.output o WHERE o.id = NEW.output_id;
  RETURN NEW;
END $$""",
        f"""CREATE OR REPLACE FUNCTION {s}.reviewer_output_keys() RETURNS trigger
LANGUAGE plpgsql SET search_path = {s}, pg_catalog, pg_temp AS $$
BEGIN
  UPDATE {s}.score SET run_id = NEW.run_id, item_id = NEW.item_id WHERE output_id = NEW.id;
  RETURN NULL;
END $$""",
        f"DROP TRIGGER IF EXISTS reviewer_score_keys ON {s}.score",
        f"CREATE TRIGGER reviewer_score_keys BEFORE INSERT OR UPDATE OF output_id, run_id, item_id ON {s}.score "
        f"FOR EACH ROW EXECUTE FUNCTION {s}.reviewer_score_keys()",
        f"DROP TRIGGER IF EXISTS reviewer_output_keys ON {s}.output",
        f"CREATE TRIGGER reviewer_output_keys AFTER UPDATE OF run_id, item_id ON {s}.output FOR EACH ROW "
        f"WHEN (OLD.run_id IS DISTINCT FROM NEW.run_id OR OLD.item_id IS DISTINCT FROM NEW.item_id) "
        f"EXECUTE FUNCTION {s}.reviewer_output_keys()",
    ]


def score_keys(conn: Connection) -> None:
    """Add score.run_id and score.item_id, fill them, keep them by triggers; rebuild the score
    sort index with the run in front."""
    postgres = conn.dialect.name == "postgresql"
    if postgres:  # no score or output written between the copy and the triggers (SQLite: the step's BEGIN)
        conn.exec_driver_sql("LOCK TABLE score, output IN SHARE ROW EXCLUSIVE MODE")
    columns = {c["name"] for c in inspect(conn).get_columns("score")}
    for name in ("run_id", "item_id"):
        if name not in columns:
            conn.exec_driver_sql(f"ALTER TABLE score ADD COLUMN {name} INTEGER")
    # Copied by the owner running the upgrade (row-level security does not apply to it).
    if postgres:
        conn.exec_driver_sql("UPDATE score SET run_id = o.run_id, item_id = o.item_id FROM output o "
                             "WHERE o.id = score.output_id")
    else:
        conn.exec_driver_sql(
            "UPDATE score SET run_id = (SELECT o.run_id FROM output o WHERE o.id = score.output_id), "
            "item_id = (SELECT o.item_id FROM output o WHERE o.id = score.output_id)")
    score_key_triggers(conn)
    conn.exec_driver_sql("DROP INDEX IF EXISTS ix_score_sort")
    next(i for i in models.Score.__table__.indexes if i.name == "ix_score_sort").create(conn)


# --- Step: no single-column category, difficulty and depth indexes (issue 14) -------------
# Every item query is within one dataset, and the sort indexes (dataset_id, column,
# position) of step 3 serve those filters as well; the three single-column indexes only
# cost each imported item three more index entries: a NesTools-like import of 100k items
# went 21,188-21,972 -> 23,832-24,148 items/s on SQLite and 16,989-19,412 -> 17,656-21,632
# on PostgreSQL without them (alternating, bench/import_bench.py). ix_item_gold_edited
# stays: few items are edited, and "edited" has no sort index to find them by.
DROPPED_ITEM_INDEXES = ("ix_item_category", "ix_item_difficulty", "ix_item_depth")


def _drop_single_column_indexes(conn: Connection) -> None:
    prep = conn.dialect.identifier_preparer
    for name in DROPPED_ITEM_INDEXES:
        conn.exec_driver_sql(f"DROP INDEX IF EXISTS {prep.quote(name)}")


# --- Step: each value of an item once in its row (issue 14) --------------------------------
# See reviewer.store.item_json: raw_refs (raw's values stored in the question or original
# gold column instead), and original_gold NULL until the gold first changes, which a
# trigger keeps for every writer: on a change of gold, a NULL original_gold gets the old
# gold. Rows written before this keep their whole raw and their original gold and read
# back the same. The gold_edited index keeps only the edited items (by dataset): an import
# adds no entry to it. A new database gets the column and the index from create_all and
# the trigger from ``keep_original_gold``.
def keep_original_gold(conn: Connection) -> None:
    """Create (or replace) the trigger that fills a NULL original_gold with the old gold
    when the gold changes. A gold set to SQL NULL on such a row (``gold = original_gold``,
    the revert idiom of older schemas; the app writes JSON null, never SQL NULL) keeps
    the old gold: the original it asked for."""
    if conn.dialect.name == "postgresql":
        s = conn.dialect.identifier_preparer.quote(conn.exec_driver_sql("select current_schema()").scalar())
        # SECURITY INVOKER, touching no table: it only sets the row being written. The
        # search path keeps a caller's own objects out.
        conn.exec_driver_sql(f"""CREATE OR REPLACE FUNCTION {s}.reviewer_keep_original_gold() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF NEW.original_gold IS NULL AND OLD.original_gold IS NULL THEN
    IF NEW.gold IS NULL THEN  -- "gold = original_gold" on an unchanged item: it keeps its gold
      NEW.gold := OLD.gold;
    ELSE
      NEW.original_gold := OLD.gold;
    END IF;
  END IF;
  RETURN NEW;
END $$""")
        conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS reviewer_keep_original_gold ON {s}.item")
        conn.exec_driver_sql(f"CREATE TRIGGER reviewer_keep_original_gold BEFORE UPDATE OF gold ON {s}.item "
                             f"FOR EACH ROW EXECUTE FUNCTION {s}.reviewer_keep_original_gold()")
        return
    conn.exec_driver_sql("DROP TRIGGER IF EXISTS reviewer_keep_original_gold")
    conn.exec_driver_sql("CREATE TRIGGER reviewer_keep_original_gold AFTER UPDATE OF gold ON item FOR EACH ROW "
                         "WHEN OLD.original_gold IS NULL AND NEW.original_gold IS NULL BEGIN "
                         "UPDATE item SET original_gold = OLD.gold WHERE id = NEW.id AND NEW.gold IS NOT NULL; "
                         "UPDATE item SET gold = OLD.gold WHERE id = NEW.id AND NEW.gold IS NULL; END")


def _item_values_once(conn: Connection) -> None:
    # Before this step a SQL NULL original gold (written by another tool: imports stored the
    # gold) read as JSON null; from now on NULL means "unchanged": store the null it meant.
    conn.exec_driver_sql("UPDATE item SET original_gold = 'null' WHERE original_gold IS NULL")
    columns = {c["name"] for c in inspect(conn).get_columns("item")}
    if "raw_refs" not in columns:
        conn.exec_driver_sql(f"ALTER TABLE item ADD COLUMN raw_refs {_json_type(conn)}")
    keep_original_gold(conn)
    conn.exec_driver_sql("DROP INDEX IF EXISTS ix_item_gold_edited")  # was on gold_edited, every item
    next(i for i in models.Item.__table__.indexes if i.name == "ix_item_gold_edited").create(conn)


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "baseline: datasets, items, runs, outputs, scores, annotations, adjudications, audit", _baseline),
    Migration(2, "review protocol: item_review stage, annotation first submission, assignment", _review_protocol),
    Migration(3, "sort indexes: (dataset, column, position) per sortable item column", _sort_indexes),
    Migration(4, "guards: per-item check results, adjudicator overrides, per-dataset guard settings", _guard_tables),
    Migration(5, "item JSON columns compressed with lz4 on PostgreSQL (import speed)", item_compression),
    Migration(6, "position and record id indexes carry the item id on PostgreSQL (first screen)", browse_indexes),
    Migration(7, "score sort index: (mode, value, output_id) for the item table's score sort", _score_sort_index),
    Migration(8, "score carries its output's run and item (kept by triggers); score sort index by run", score_keys),
    Migration(9, "no single-column category, difficulty and depth indexes on item (import speed)",
              _drop_single_column_indexes),
    Migration(10, "each value of an item stored once: raw_refs, original_gold NULL until the gold changes; "
                  "gold_edited index of edited items only (import speed)", _item_values_once),
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
            if any(step.apply is score_keys for step in migrations):
                score_key_triggers(conn)  # nor triggers
            if any(step.apply is _item_values_once for step in migrations):
                keep_original_gold(conn)
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
