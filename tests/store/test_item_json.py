"""Each value of an item is stored once in its row (reviewer.store.item_json, issue 14), and
everything reads back as it was read: the source record whole and in order, the gold as
imported after any writer changes the gold, rows stored before the change."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import Text, cast, func, select, text

from reviewer.formats.base import ItemRecord
from reviewer.jobs import silent
from reviewer.store import Store
from reviewer.store.exporting import export_items
from reviewer.store.importing import import_dataset
from reviewer.store.item_json import ORIGINAL_GOLD, compact_raw, expand_raw
from reviewer.store.migrations import MIGRATIONS, current_version, upgrade
from reviewer.store.models import Item
from tests.store import records as R

item_t = Item.__table__
LATEST = MIGRATIONS[-1].version


def _record(i: int, gold=None) -> ItemRecord:
    """A record whose reader took the question and the gold out of the source record itself."""
    source = {
        "id": i,
        "task": f"Find the filings of company number {i} and list them by year",
        "call": [{"api_name": "filings", "parameters": {"company": i}}] if gold is None else gold,
        "field": "finance",
    }
    return R.item(i, gold=source["call"], raw=source, question=source["task"], payload={"apis": source["call"]})


def _source(i: int, gold=None) -> dict:
    return _record(i, gold).raw


@pytest.fixture
def store(db_url):
    s = Store(db_url)
    yield s
    s.close()


def _stored(store, record_id: str):
    with store.engine.connect() as conn:
        return conn.execute(
            select(item_t.c.id, item_t.c.raw, item_t.c.raw_refs, item_t.c.original_gold.is_(None).label("no_original"),
                   func.length(cast(item_t.c.raw, Text)).label("raw_chars"))
            .where(item_t.c.record_id == record_id)
        ).one()


def test_a_record_holding_its_question_and_gold_stores_them_once_and_reads_back_whole(store):
    import_dataset(store.engine, R.dataset([_record(i) for i in range(3)]), silent())
    row = _stored(store, "q1")
    assert row.raw_refs == {"task": "question", "call": "original_gold"}
    assert row.raw["task"] == "question" and row.raw["call"] == "original_gold"  # placeholders, in place
    assert row.no_original  # the gold as imported: not stored a second time
    assert row.raw_chars < len(json.dumps(_source(1))) - 60
    item = store.item(row.id)
    assert item.raw == _source(1) and list(item.raw) == ["id", "task", "call", "field"]
    assert item.original_gold == item.gold == _source(1)["call"] and not item.gold_edited
    assert item.payload == {"apis": _source(1)["call"]}
    with store.engine.connect() as conn:
        exported = {e.record_id: e for e in export_items(conn, item.dataset_id)}
    assert exported["q1"].raw == _source(1) and exported["q1"].original_gold == _source(1)["call"]


def test_a_gold_changed_by_any_writer_keeps_the_imported_gold_as_original_and_in_raw(store):
    import_dataset(store.engine, R.dataset([_record(i) for i in range(3)]), silent())
    by_app = store.find_item("demo", "q0")
    store.set_gold(by_app.id, [{"api_name": "fixed", "parameters": {}}], "carol", by_app.version)
    by_sql = _stored(store, "q1").id
    with store.engine.begin() as conn:  # another tool, or psql: no reviewer code involved
        conn.execute(text("UPDATE item SET gold = :g WHERE id = :i"), {"g": json.dumps(["edited"]), "i": by_sql})
    for record_id, new_gold in (("q0", [{"api_name": "fixed", "parameters": {}}]), ("q1", ["edited"])):
        item = store.find_item("demo", record_id)
        i = int(record_id[1:])
        assert item.gold == new_gold and item.original_gold == _source(i)["call"]
        assert item.raw == _source(i)  # the source record's gold is the imported one, not the edit
        assert not _stored(store, record_id).no_original  # the database kept it
    assert store.find_item("demo", "q0").gold_edited
    untouched = store.find_item("demo", "q2")
    assert untouched.original_gold == untouched.gold and _stored(store, "q2").no_original


def test_a_json_null_gold_that_changes_keeps_a_null_original(store):
    rec = R.item(0, gold=None, raw={"uid": "q0"})
    import_dataset(store.engine, R.dataset([rec]), silent())
    item = store.find_item("demo", "q0")
    assert item.gold is None and item.original_gold is None and not item.gold_edited
    store.set_gold(item.id, {"answer": 1}, "carol", item.version)
    item = store.find_item("demo", "q0")
    assert item.gold == {"answer": 1} and item.original_gold is None and item.gold_edited
    with store.engine.connect() as conn:  # JSON null kept as a value, not as "unchanged"
        assert conn.execute(select(ORIGINAL_GOLD).where(item_t.c.id == item.id)).scalar() is None
        assert conn.execute(text("SELECT original_gold IS NOT NULL FROM item WHERE id = :i"), {"i": item.id}).scalar()


def test_rows_stored_before_step_10_read_back_the_same_and_keep_their_original(store):
    """A version 9 database: whole raw, original gold stored, no raw_refs column, no trigger."""
    with store.engine.begin() as conn:
        conn.execute(text("DROP TRIGGER IF EXISTS reviewer_keep_original_gold"
                          + (" ON item" if store.backend == "postgresql" else "")))
        conn.execute(text("ALTER TABLE item DROP COLUMN raw_refs"))
        conn.execute(text("DROP INDEX ix_item_gold_edited"))
        conn.execute(text("CREATE INDEX ix_item_gold_edited ON item (gold_edited)"))  # every item in it
        conn.execute(text("UPDATE reviewer_schema SET version = 9"))
    old = _source(0)
    with store.engine.begin() as conn:
        ds = conn.execute(text("INSERT INTO dataset (name, format, kind, source, meta, created_at) "
                               "VALUES ('old', 'test-format', 'tool_qa', 's', '{}', '2026-01-01') RETURNING id")).scalar()
        conn.execute(text(
            "INSERT INTO item (dataset_id, record_id, position, kind, question, gold, original_gold, raw, payload, "
            "gold_edited, version) VALUES (:d, 'q0', 0, 'tool_qa', :q, :g, :g, :r, '{}', false, 1)"),
            {"d": ds, "q": old["task"], "g": json.dumps(old["call"]), "r": json.dumps(old)})
    assert upgrade(store.engine) == LATEST
    with store.engine.connect() as conn:
        assert current_version(conn) == LATEST
        assert "WHERE" in _index_definition(conn, "ix_item_gold_edited").upper()  # edited items only now
    item = store.find_item("old", "q0")
    assert item.raw == old and item.original_gold == old["call"] and item.question == old["task"]
    store.set_gold(item.id, ["new"], "carol", item.version)
    item = store.find_item("old", "q0")
    assert item.gold == ["new"] and item.original_gold == old["call"] and item.raw == old and item.gold_edited
    import_dataset(store.engine, R.dataset([_record(5)], name="new"), silent())  # and new rows go the new way
    assert _stored(store, "q5").raw_refs == {"task": "question", "call": "original_gold"}
    assert store.find_item("new", "q5").raw == _source(5)


def _index_definition(conn, name: str) -> str:
    if conn.dialect.name == "postgresql":
        return conn.execute(text("SELECT indexdef FROM pg_indexes WHERE indexname = :n AND schemaname = current_schema()"),
                            {"n": name}).scalar_one()
    return conn.execute(text("SELECT sql FROM sqlite_master WHERE name = :n"), {"n": name}).scalar_one()


def test_the_edited_filter_reads_an_index_of_the_edited_items_only(store):
    """An import adds nothing to it (all its items are unedited); the filter and the count find
    exactly the edited items, through it."""
    from reviewer.store.browse import facets
    from reviewer.store.queries import ItemQuery

    import_dataset(store.engine, R.dataset([R.item(i) for i in range(30)]), silent())
    for record_id in ("q3", "q17"):
        item = store.find_item("demo", record_id)
        store.set_gold(item.id, "Z", "carol", item.version)
    ds = store.find_item("demo", "q0").dataset_id
    assert [r.record_id for r in store.item_page(ItemQuery(ds, edited=True), 0, 50)] == ["q3", "q17"]
    assert store.count_items(ItemQuery(ds, edited=False)) == 28 and facets(store, ds).edited == 2
    with store.engine.connect() as conn:
        assert "WHERE" in _index_definition(conn, "ix_item_gold_edited").upper()
        query = ItemQuery(ds, edited=True).where(select(item_t.c.id))
        sql = str(query.compile(dialect=conn.dialect, compile_kwargs={"literal_binds": True}))
        if conn.dialect.name == "postgresql":  # with statistics, as autovacuum leaves them; and whether the
            conn.execute(text("ANALYZE item"))  # index can serve the query, not whether 30 rows need one
            conn.execute(text("SET LOCAL enable_seqscan = off"))
        plan = " ".join(str(r) for r in conn.execute(text(
            ("EXPLAIN QUERY PLAN " if conn.dialect.name == "sqlite" else "EXPLAIN ") + sql)))
    assert "ix_item_gold_edited" in plan


def test_reimporting_counts_a_record_whose_source_changed_against_the_whole_stored_record(store):
    import_dataset(store.engine, R.dataset([_record(i) for i in range(3)]), silent())
    changed = [_record(0), _record(1, gold=[{"api_name": "other", "parameters": {}}]), _record(2)]
    summary = import_dataset(store.engine, R.dataset(changed), silent())
    assert (summary.added, summary.unchanged, summary.changed_in_source) == (0, 2, ["q1"])


def test_only_the_very_values_worth_a_reference_are_referenced():
    question, gold = "a question long enough to be worth it", {"answer": [1, 2]}
    raw = {"q": question, "g": gold, "equal_copy": dict(gold), "short": "x"}
    stored, refs = compact_raw(raw, question, gold)
    assert refs == {"q": "question", "g": "original_gold"}  # an equal copy is not the value itself
    assert stored["equal_copy"] == gold and raw["q"] is question  # the reader's record is not changed
    assert expand_raw(stored, refs, question, gold) == raw
    short = {"q": "short"}
    assert compact_raw(short, short["q"], None) == (short, None)  # a placeholder would be no shorter
    empty: list = []
    assert compact_raw({"g": empty}, None, empty) == ({"g": empty}, None)
    assert compact_raw(["not", "a", "dict"], "not", None) == (["not", "a", "dict"], None)
