"""Issue 14's second pass on the store: descending sorts and the lz4 schema step.

- Descending is the ascending order reversed, ties included, on both backends
  (so the database can walk one sort index backwards): with many items per
  category, the positions inside one category come out in reverse.
- Schema step 5 gives the item's JSON columns lz4 compression on PostgreSQL, to
  a new database and to one upgraded from version 4, and what was stored before
  reads back the same.
"""

from __future__ import annotations

import pytest
from sqlalchemy import text

from reviewer.jobs import silent
from reviewer.store import Store
from reviewer.store.importing import import_dataset
from reviewer.store.migrations import LZ4_COLUMNS, MIGRATIONS, schema_table, upgrade
from reviewer.store.queries import SORTABLE, ItemQuery
from tests.store import records as R


def _items(n: int) -> list:
    return [R.item(i, category=("A", "B", None)[i % 3], difficulty=("x", "y")[i % 2], depth=i % 4, domain=f"d{i % 5}")
            for i in range(n)]


@pytest.mark.parametrize("column", [c for c in SORTABLE])
def test_descending_is_ascending_reversed_ties_included(store, column):
    ds = import_dataset(store.engine, R.dataset(_items(60)), silent()).dataset_id
    up = [r.id for r in store.item_page(ItemQuery(ds, sort=column), 0, 1000)]
    down = [r.id for r in store.item_page(ItemQuery(ds, sort=column, descending=True), 0, 1000)]
    assert len(up) == 60 and down == up[::-1]


def _compression(conn) -> dict:
    rows = conn.execute(text(
        "select attname, attcompression from pg_attribute "
        "where attrelid = 'item'::regclass and attname = any(:cols)"), {"cols": list(LZ4_COLUMNS)}).all()
    return dict(rows)


def _has_lz4(conn) -> bool:
    return conn.execute(text(
        "select 'lz4' = any(enumvals) from pg_settings where name = 'default_toast_compression'")).scalar()


def test_new_postgresql_database_compresses_item_json_with_lz4(pg_url):
    store = Store(pg_url)
    with store.engine.connect() as conn:
        if not _has_lz4(conn):
            pytest.skip("this PostgreSQL server was built without lz4")
        assert _compression(conn) == dict.fromkeys(LZ4_COLUMNS, "l")
    store.close()


def test_upgrade_from_version_4_switches_to_lz4_and_keeps_the_items(pg_url):
    store = Store(pg_url)
    with store.engine.begin() as conn:
        if not _has_lz4(conn):
            pytest.skip("this PostgreSQL server was built without lz4")
        for c in LZ4_COLUMNS:  # as a version 4 database was made: the server's default (pglz)
            conn.execute(text(f"alter table item alter column {c} set compression default"))
        conn.execute(schema_table.update().values(version=4))
    big = {"text": "x" * 5000, "n": list(range(500))}  # above the 2 kB TOAST threshold
    import_dataset(store.engine, R.dataset([R.item(0, gold=big), R.item(1)]), silent())
    with store.engine.connect() as conn:
        assert "l" not in _compression(conn).values()
        stored = conn.execute(text("select record_id, gold::text from item order by record_id")).all()
    assert upgrade(store.engine, MIGRATIONS) == MIGRATIONS[-1].version
    with store.engine.connect() as conn:
        assert _compression(conn) == dict.fromkeys(LZ4_COLUMNS, "l")
        assert conn.execute(text("select record_id, gold::text from item order by record_id")).all() == stored
    store.close()
