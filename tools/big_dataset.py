"""A large synthetic dataset written by bulk insert (benchmarks and the large-table tests).

``fill(store, n)`` adds a dataset of ``n`` NesTools-like items in seconds on SQLite
and PostgreSQL alike (no parsing, no per-item ORM objects): record ids ``r0000000``...
in a shuffled order, three categories, two difficulties, depths 0-4, 17 domains, so
every sortable column has a real order to sort by.
"""

from __future__ import annotations

import uuid
from contextlib import contextmanager

from reviewer.store.bulk import insert_many
from reviewer.store.models import Dataset, Item, utcnow

BATCH = 5000


def fill(store, n: int, name: str | None = None) -> int:
    """Add a dataset of ``n`` synthetic items to ``store``; return its id."""
    item_t, dataset_t = Item.__table__, Dataset.__table__
    with store.engine.begin() as conn:
        ds = conn.execute(dataset_t.insert().values(
            name=name or f"bench{n}", format="nestools", kind="k", source="s", meta={}, created_at=utcnow()
        )).inserted_primary_key[0]
        for start in range(0, n, BATCH):
            insert_many(conn, item_t, [{
                "dataset_id": ds, "record_id": f"r{(i * 7919) % n:07d}", "position": i, "kind": "call_chain",
                "question": f"question {i}", "gold": {"a": i}, "original_gold": {"a": i}, "raw": {"a": i},
                "payload": None, "context_hash": None, "schema_hash": None,
                "category": ("EXTRACTIVE", "FILTERING", "AGGREGATION")[i % 3], "difficulty": ("Medium", "Hard")[i % 2],
                "depth": i % 5, "domain": f"d{i % 17}", "source_file": "f", "source_line": i, "gold_edited": False,
                "version": 1,
            } for i in range(start, min(n, start + BATCH))])
    return ds


def add_scored_run(store, dataset_id: int, name: str = "scored") -> int:
    """Add a run with one output and one faithful score (0-1, scattered) per item of the
    dataset, in two INSERT ... SELECT statements; return the run's id."""
    from sqlalchemy import text

    from reviewer.store.models import Run

    with store.engine.begin() as conn:
        run = conn.execute(Run.__table__.insert().values(dataset_id=dataset_id, name=name, format="bench",
                                                         created_at=utcnow())).inserted_primary_key[0]
        now = utcnow()
        conn.execute(text("insert into output (run_id, item_id, replication, status, cached, created_at) "
                          "select :run, id, 0, 'ok', false, :now from item where dataset_id = :ds"),
                     {"run": run, "now": now, "ds": dataset_id})
        # run_id and item_id as the database copies them (schema step 8): SQLite's trigger then
        # finds them right and writes no second time
        conn.execute(text("insert into score (output_id, run_id, item_id, scorer, mode, value, skipped, created_at) "
                          "select id, run_id, item_id, 's', 'faithful', (item_id * 37 % 101) / 100.0, false, :now "
                          "from output where run_id = :run"), {"run": run, "now": now})
    return run


@contextmanager
def pg_schema(url: str, prefix: str = "bench"):
    """A fresh PostgreSQL schema for a benchmark: yields ``url`` with its search_path set
    to the schema, and drops the schema (and all in it) afterwards."""
    import psycopg

    schema = f"{prefix}_{uuid.uuid4().hex[:8]}"
    plain = url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f"create schema {schema}")
    try:
        sep = "&" if "?" in plain else "?"
        yield f"{plain}{sep}options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(plain, autocommit=True) as conn:
            conn.execute(f"drop schema {schema} cascade")
