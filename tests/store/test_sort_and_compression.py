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


def _browse_index_defs(conn) -> dict:
    rows = conn.execute(text(
        "select indexname, indexdef from pg_indexes where schemaname = current_schema() "
        "and indexname in ('uq_item_record', 'ix_item_dataset_position')")).all()
    return dict(rows)


def _first_screen_plan(conn, dataset_id: int, column: str) -> str:
    """The plan of the item table's ordered id list (browse.ordered_ids) by ``column`` descending."""
    conn.execute(text("set local enable_seqscan = off"))  # a tiny table would be read whole instead
    return "\n".join(conn.execute(text(
        f"explain select id from item where dataset_id = :ds order by {column} desc"), {"ds": dataset_id}).scalars())


def test_postgresql_position_and_record_id_orders_read_only_the_index(pg_url):
    """Schema step 6: the id list by position or record id needs no table row (index-only scan),
    on a new database and on one upgraded from version 5, whose items stay, unique as before."""
    store = Store(pg_url)
    with store.engine.begin() as conn:
        assert all("INCLUDE (id)" in d for d in _browse_index_defs(conn).values())
        conn.execute(text("alter table item drop constraint uq_item_record, "
                          "add constraint uq_item_record unique (dataset_id, record_id)"))
        conn.execute(text("drop index ix_item_dataset_position"))
        conn.execute(text("create index ix_item_dataset_position on item (dataset_id, position)"))
        conn.execute(schema_table.update().values(version=5))  # as a version 5 database was made
    ds = import_dataset(store.engine, R.dataset(_items(30)), silent()).dataset_id
    with store.engine.begin() as conn:
        assert "Index Only Scan" not in _first_screen_plan(conn, ds, "record_id")
    assert upgrade(store.engine, MIGRATIONS) == MIGRATIONS[-1].version
    with store.engine.begin() as conn:
        defs = _browse_index_defs(conn)
        assert len(defs) == 2 and all("INCLUDE (id)" in d for d in defs.values())
        assert "Index Only Scan Backward using uq_item_record" in _first_screen_plan(conn, ds, "record_id")
    with store.engine.begin() as conn:
        assert "Index Only Scan Backward using ix_item_dataset_position" in _first_screen_plan(conn, ds, "position")
    assert len(store.item_page(ItemQuery(ds, sort="record_id", descending=True), 0, 100)) == 30
    with pytest.raises(Exception, match="uq_item_record"):
        with store.engine.begin() as conn:  # still one record id per dataset
            conn.execute(text("insert into item (dataset_id, record_id, position, kind, gold_edited, version) "
                              "values (:ds, 'q0', 99, 'k', false, 1)"), {"ds": ds})
    store.close()
