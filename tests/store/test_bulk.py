"""The bulk writer (COPY / prepared executemany) stores what SQLAlchemy Core's insert stores."""

from __future__ import annotations

import math

from sqlalchemy import select

from reviewer.store.bulk import insert_many
from reviewer.store.models import Dataset, Item, utcnow

item_t, dataset_t = Item.__table__, Dataset.__table__

AWKWARD = [
    {"a": 1, "b": [1.5, "é ü 漢", None, True]},  # non-ASCII: orjson writes UTF-8, json.dumps escapes
    {"big": 2**70},  # beyond 64 bits: orjson refuses, the column's own serializer writes it
    {"nan": math.nan, "inf": -math.inf},  # orjson would write null: must not be used
    ("a", "tuple"),  # reads back as a list either way
    None,  # a JSON column's None is JSON null
    "just a string",
    [],
]


def _rows(dataset_id: int, offset: int) -> list[dict]:
    return [
        {
            "dataset_id": dataset_id, "record_id": f"r{offset + i}", "position": offset + i, "kind": "k",
            "question": "q\u00e9", "gold": value, "original_gold": value, "raw": {"i": i, "v": value},
            "payload": value, "context_hash": None, "schema_hash": None, "category": "c", "difficulty": None,
            "depth": i, "domain": None, "source_file": "f", "source_line": i, "gold_edited": bool(i % 2),
            "version": 1,
        }
        for i, value in enumerate(AWKWARD)
    ]


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def test_bulk_rows_read_back_like_core_inserted_rows(store):
    postgres = store.engine.dialect.name == "postgresql"
    with store.engine.begin() as conn:
        ds = conn.execute(
            dataset_t.insert().values(name="bulk", format="f", kind="k", source="s", meta={}, created_at=utcnow())
        ).inserted_primary_key[0]
        core, fast = _rows(ds, 0), _rows(ds, 100)
        if postgres:  # PostgreSQL's json type rejects NaN on either path
            core, fast = [r for r in core if r["depth"] != 2], [r for r in fast if r["depth"] != 2]
        conn.execute(item_t.insert(), core)
        insert_many(conn, item_t, fast)
    with store.engine.connect() as conn:
        rows = conn.execute(select(item_t).order_by(item_t.c.position)).mappings().all()
    by_pos = {r["position"]: dict(r) for r in rows}
    assert len(rows) == 2 * len(core)
    for r in core:
        a, b = by_pos[r["position"]], by_pos[r["position"] + 100]
        for col in ("gold", "original_gold", "raw", "payload", "question", "category", "difficulty", "depth",
                    "gold_edited", "version", "source_line"):
            assert _same(a[col], b[col]), (col, a[col], b[col])


def test_bulk_insert_is_part_of_the_callers_transaction(store):
    """A failure after the bulk write rolls it back: imports stay atomic."""
    try:
        with store.engine.begin() as conn:
            ds = conn.execute(
                dataset_t.insert().values(name="tx", format="f", kind="k", source="s", meta={}, created_at=utcnow())
            ).inserted_primary_key[0]
            insert_many(conn, item_t, _rows(ds, 0)[:2])
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    with store.engine.connect() as conn:
        assert conn.execute(select(item_t.c.id)).all() == []
        assert conn.execute(select(dataset_t.c.id)).all() == []


def test_fetch_ids_gives_the_query_order_with_every_filter_bound(store):
    """browse.ordered_ids goes through bulk.fetch_ids: same ids, same order as SQLAlchemy's own execution."""
    from array import array

    from reviewer.store.browse import ordered_ids
    from reviewer.store.queries import ItemQuery

    with store.engine.begin() as conn:
        ds = conn.execute(
            dataset_t.insert().values(name="ids", format="f", kind="k", source="s", meta={}, created_at=utcnow())
        ).inserted_primary_key[0]
        insert_many(conn, item_t, [
            {"dataset_id": ds, "record_id": f"r{i}", "position": i, "kind": "ab"[i % 2], "category": "xyz"[i % 3],
             "depth": i % 4, "question": f"Q{i}", "gold_edited": False, "version": 1} for i in range(60)])
    queries = [
        ItemQuery(ds, kinds=["a"], categories=["x", "y"], depths=[0, 2], text="q", sort="depth", descending=True),
        ItemQuery(ds, review="unannotated", sort="review"),
        ItemQuery(ds, edited=False, sort="category"),
    ]
    for q in queries:
        stmt = q.order(q.where(select(item_t.c.id)))
        with store.engine.connect() as conn:
            expected = array("q", conn.execute(stmt).scalars())
        got = ordered_ids(store, q)
        assert len(got) > 0 and got == expected


def test_values_a_binary_copy_cannot_carry_go_as_text_and_meet_the_servers_checks(pg_url):
    """PostgreSQL's COPY goes in binary format (an item's JSON unescaped: ~10% less server
    time), but psycopg's int4 writer turns 2**40 into 0 without a word, and a str for an
    integer column would fail mid-COPY: such a chunk goes as text, as before binary, so the
    server refuses the first (nothing written) and reads the second as the number it spells."""
    import pytest
    from sqlalchemy.exc import DBAPIError

    from reviewer.store import Store
    from reviewer.store.bulk import _binary_types, _converted

    store = Store(pg_url)
    with store.engine.begin() as conn:
        ds = conn.execute(
            dataset_t.insert().values(name="b", format="f", kind="k", source="s", meta={}, created_at=utcnow())
        ).inserted_primary_key[0]
    # JSON values orjson writes (the column's own serializer's go through psycopg's Json adapter: text)
    plain = [r for r in _rows(ds, 0) if r["depth"] in (0, 3, 6)]  # an object, a tuple, an empty list
    keys = list(plain[0])
    with store.engine.connect() as conn:
        as_lists = _converted(conn, item_t, keys, plain)  # as the writer hands them to COPY
        assert _binary_types(conn, item_t, keys, as_lists) is not None  # the usual rows go binary
        too_big = [[2**40 if k == "depth" else v for k, v in zip(keys, row)] for row in as_lists]
        assert _binary_types(conn, item_t, keys, too_big) is None
    with pytest.raises(DBAPIError, match="out of range"):
        with store.engine.begin() as conn:
            insert_many(conn, item_t, [dict(plain[0], depth=2**40)])
    with store.engine.begin() as conn:
        insert_many(conn, item_t, [dict(plain[0], depth="7", record_id="spelled")])
        insert_many(conn, item_t, plain[1:])
    with store.engine.connect() as conn:
        depths = dict(conn.execute(select(item_t.c.record_id, item_t.c.depth)).all())
    assert depths["spelled"] == 7 and 2**40 not in depths.values() and 0 not in depths.values()
    assert len(depths) == len(plain)
    store.close()
