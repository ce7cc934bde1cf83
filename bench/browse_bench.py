"""Sorting and the first screen of a large item table (issue 14 rows), on SQLite and PostgreSQL.

Builds a dataset of N synthetic items (bulk insert), then times what the item
table does when the user opens it or clicks a column header: the ordered id
list of the query (browse.ordered_ids) plus the rows of the first screen
(browse.rows_by_ids of the first 50 ids). Prints ``name: value unit`` lines,
medians of --repeat runs, with the ratio to the 100 ms target, and the same
old path measured in the same run: the id list read through SQLAlchemy Rows,
without the sort indexes of schema step 2 (on PostgreSQL also without the id that
step 6 put in the position and record id indexes). Sizes 1k/10k/100k show how the cost grows.

    .venv/bin/python bench/browse_bench.py [--sizes 1000,10000,100000] [--repeat 5] [--pg postgresql://...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from array import array
from pathlib import Path

from sqlalchemy import select, text

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/

from reviewer.store import Store  # noqa: E402
from reviewer.store.browse import ordered_ids, rows_by_ids  # noqa: E402
from reviewer.store.models import Item  # noqa: E402
from reviewer.store.queries import SORTABLE, ItemQuery  # noqa: E402
from tools.big_dataset import fill, pg_schema  # noqa: E402

SCREEN = 50
SORTS = ("position", "category", "difficulty", "depth", "kind", "domain", "record_id")
TARGET = 0.100


class MixedDescendingQuery(ItemQuery):
    """The descending order before issue 14's second pass: the column descending, the
    position ascending -- two directions, which no (dataset, column, position) index
    gives, so the database sorted every item (149 ms on PostgreSQL at 100k)."""

    def order_by(self) -> tuple:
        return SORTABLE[self.sort].desc(), Item.__table__.c.position


def old_ordered_ids(store: Store, query: ItemQuery) -> array:
    """browse.ordered_ids before issue 14: the id list through SQLAlchemy Rows."""
    stmt = query.order(query.where(select(Item.__table__.c.id)))
    with store.engine.connect() as conn:
        return array("q", conn.execute(stmt).scalars())


def first_screen(store: Store, query: ItemQuery, old: bool = False) -> float:
    start = time.perf_counter()
    ids = (old_ordered_ids if old else ordered_ids)(store, query)
    rows = rows_by_ids(store, ids[:SCREEN])
    assert len(rows) == min(SCREEN, len(ids))
    return time.perf_counter() - start


def median(fn, repeat: int) -> float:
    return statistics.median(fn() for _ in range(repeat))


def sort_indexes(store: Store) -> list[str]:
    with store.engine.connect() as conn:
        if store.engine.dialect.name == "sqlite":
            names = conn.execute(text("select name from sqlite_master where type='index' and tbl_name='item'")).scalars()
        else:
            names = conn.execute(text("select indexname from pg_indexes where tablename='item' "
                                      "and schemaname=current_schema()")).scalars()
        return [x for x in names if x.startswith("ix_item_sort_")]


def settle(store: Store) -> None:
    """Statistics as the database keeps them some time after an import: ANALYZE, and on
    PostgreSQL VACUUM too, which autovacuum runs after that many inserts (PostgreSQL 13+,
    within a minute); it marks the pages all-visible, which index-only scans need (schema
    step 6 makes the position and record id orders index-only). Straight after an import,
    before autovacuum, PostgreSQL still reads the rows: the old figures."""
    if store.engine.dialect.name == "postgresql":
        with store.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text("vacuum analyze"))
    else:
        with store.engine.begin() as conn:
            conn.execute(text("analyze"))


def run(label: str, url: str, sizes: list[int], repeat: int) -> None:
    """Every sortable column in both directions: ours, then the same-run peers (the
    mixed-direction descending order with the indexes in place; then, with the sort
    indexes dropped, the id list read through SQLAlchemy Rows)."""
    for n in sizes:
        store = Store(url)
        ds = fill(store, n)
        k = f"{n // 1000}k" if n % 1000 == 0 else str(n)
        settle(store)
        new = {(s, d): median(lambda: first_screen(store, ItemQuery(ds, sort=s, descending=d)), repeat)
               for s in SORTS for d in (False, True)}
        mixed = {s: median(lambda: first_screen(store, MixedDescendingQuery(ds, sort=s, descending=True)), repeat)
                 for s in SORTS}
        dropped = sort_indexes(store)
        with store.engine.begin() as conn:
            for name in dropped:
                conn.execute(text(f'drop index "{name}"'))
            if store.engine.dialect.name == "postgresql":  # and as before schema step 6: no id in them
                conn.execute(text("alter table item drop constraint uq_item_record, "
                                  "add constraint uq_item_record unique (dataset_id, record_id)"))
                conn.execute(text("drop index ix_item_dataset_position"))
                conn.execute(text("create index ix_item_dataset_position on item (dataset_id, position)"))
        settle(store)
        old = {s: median(lambda: first_screen(store, ItemQuery(ds, sort=s), old=True), repeat) for s in SORTS}
        worst = max(new, key=new.get)
        first = new[("position", False)]
        print(f"{label}_first_screen_{k}: {first * 1000:.1f} ms "
              f"({first / TARGET:.2f} of 100 ms; old path {old['position'] * 1000:.1f} ms)")
        for s in SORTS:
            up, down = new[(s, False)], new[(s, True)]
            if s != "position":
                print(f"{label}_sort_{k}_by_{s}: {up * 1000:.1f} ms ({up / TARGET:.2f} of 100 ms; "
                      f"old path {old[s] * 1000:.1f} ms, {old[s] / up:.2f} x)")
            print(f"{label}_sort_{k}_by_{s}_descending: {down * 1000:.1f} ms ({down / TARGET:.2f} of 100 ms; "
                  f"mixed-direction order {mixed[s] * 1000:.1f} ms, {mixed[s] / down:.2f} x)")
        print(f"{label}_sort_{k}_slowest: {new[worst] * 1000:.1f} ms ({worst[0]}{' descending' if worst[1] else ''}; "
              f"{new[worst] / TARGET:.2f} of 100 ms)")
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--pg", default=os.environ.get("REVIEWER_TEST_PG"), help="PostgreSQL URL (db to make a schema in)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"load_average_1min: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            run("sqlite", str(Path(tmp) / f"b{n}.sqlite3"), [n], args.repeat)
    if args.pg:
        for n in sizes:  # a fresh schema each: the sizes do not share tables
            with pg_schema(args.pg, "bench_browse") as url:
                run("postgres", url, [n], args.repeat)

if __name__ == "__main__":
    main()
