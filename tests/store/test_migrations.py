"""Schema versions: new databases are stamped, old ones upgraded in order, newer ones refused."""

from __future__ import annotations

import pytest
from sqlalchemy import inspect, text

from reviewer.jobs import silent
from reviewer.store import Store
from reviewer.store.importing import import_dataset
from reviewer.store.migrations import MIGRATIONS, Migration, SchemaTooNew, current_version, upgrade
from tests.store import records as R

LATEST = MIGRATIONS[-1].version  # steps appended by a test come after every real one


def test_new_database_gets_the_latest_version(db_url):
    store = Store(db_url)
    with store.engine.connect() as conn:
        assert current_version(conn) == MIGRATIONS[-1].version == store.schema_version


def test_upgrade_applies_later_steps_in_order_and_keeps_data(db_url):
    store = Store(db_url)
    import_dataset(store.engine, R.dataset([R.item(0), R.item(1)]), silent())
    applied = []

    def add_reviewed_flag(conn):
        applied.append(LATEST + 1)
        conn.execute(text("ALTER TABLE item ADD COLUMN reviewed_flag INTEGER DEFAULT 0"))

    def backfill(conn):
        applied.append(LATEST + 2)
        conn.execute(text("UPDATE item SET reviewed_flag = 1 WHERE record_id = 'q1'"))

    steps = (*MIGRATIONS, Migration(LATEST + 1, "add a flag", add_reviewed_flag), Migration(LATEST + 2, "backfill", backfill))
    assert upgrade(store.engine, steps) == LATEST + 2
    assert applied == [LATEST + 1, LATEST + 2]
    assert upgrade(store.engine, steps) == LATEST + 2 and applied == [LATEST + 1, LATEST + 2]  # nothing runs twice
    with store.engine.connect() as conn:
        assert current_version(conn) == LATEST + 2
        assert "reviewed_flag" in {c["name"] for c in inspect(conn).get_columns("item")}
        flags = dict(conn.execute(text("SELECT record_id, reviewed_flag FROM item")).all())
    assert flags == {"q0": 0, "q1": 1}


def _schema(conn) -> dict:
    """Every table with its column names, as the database reports them."""
    insp = inspect(conn)
    return {t: sorted(c["name"] for c in insp.get_columns(t)) for t in sorted(insp.get_table_names())}


def test_failed_step_is_undone_whole_and_can_be_retried(db_url):
    """One transaction per step, on SQLite as on PostgreSQL: a step failing after its DDL
    leaves the schema exactly as it was (no half-added column), so the retry succeeds."""
    store = Store(db_url)
    with store.engine.connect() as conn:
        before = _schema(conn)
    fail = [True]

    def step(conn):
        conn.execute(text("ALTER TABLE item ADD COLUMN half_done INTEGER"))
        conn.execute(text("CREATE TABLE step_side_table (x INTEGER)"))
        if fail[0]:
            raise RuntimeError("disk full")

    top = MIGRATIONS[-1].version
    steps = (*MIGRATIONS, Migration(top + 1, "add a column and a table", step))
    with pytest.raises(RuntimeError):
        upgrade(store.engine, steps)
    with store.engine.connect() as conn:
        assert current_version(conn) == top
        assert _schema(conn) == before  # the column and the table are gone too
    fail[0] = False
    assert upgrade(store.engine, steps) == top + 1  # no "duplicate column": the retry starts clean
    with store.engine.connect() as conn:
        after = _schema(conn)
    assert "half_done" in after["item"] and "step_side_table" in after


def test_database_from_a_newer_reviewer_is_refused(db_url):
    store = Store(db_url)
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE reviewer_schema SET version = 99"))
    with pytest.raises(SchemaTooNew, match="schema version 99"):
        Store(db_url)


def test_sqlite_runs_in_wal_mode_with_foreign_keys(tmp_path):
    store = Store(tmp_path / "x.sqlite3")
    with store.engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1


def test_a_new_sqlite_database_has_16k_pages_and_an_old_4k_one_keeps_its_own(tmp_path):
    """New files get 16 KiB pages (reviewer.store.db: import speed); a file made with SQLite's
    4 KiB default (every database before) opens, imports and reads back unchanged in page size."""
    import sqlite3

    store = Store(tmp_path / "new.sqlite3")
    with store.engine.connect() as conn:
        assert conn.execute(text("PRAGMA page_size")).scalar() == 16384
    store.close()
    old = tmp_path / "old.sqlite3"
    plain = sqlite3.connect(old)
    plain.execute("PRAGMA page_size=4096")
    plain.execute("PRAGMA journal_mode=WAL")
    plain.execute("create table earlier (x integer)")
    plain.close()
    store = Store(old)
    import_dataset(store.engine, R.dataset([R.item(i) for i in range(3)]), silent())
    with store.engine.connect() as conn:
        assert conn.execute(text("PRAGMA page_size")).scalar() == 4096
        assert conn.execute(text("PRAGMA integrity_check")).scalar() == "ok"
    assert [store.find_item("demo", f"q{i}").record_id for i in range(3)] == ["q0", "q1", "q2"]
    store.close()


def test_database_location_from_environment(tmp_path, monkeypatch):
    target = tmp_path / "from-env.sqlite3"
    monkeypatch.setenv("REVIEWER_DB", str(target))
    store = Store()
    assert store.backend == "sqlite" and target.exists()



def test_a_version_1_database_gets_the_sort_indexes_and_sorts_the_same(db_url):
    """Issue 14: an existing database gets the (dataset, column, position) indexes by upgrade,
    and a column sort gives the same order with them as without."""
    from reviewer.store.browse import ordered_ids
    from reviewer.store.bulk import insert_many
    from reviewer.store.migrations import SORT_INDEXES
    from reviewer.store.models import Dataset, Item, utcnow
    from reviewer.store.queries import ItemQuery

    store = Store(db_url)
    with store.engine.begin() as conn:
        ds = conn.execute(Dataset.__table__.insert().values(
            name="s", format="f", kind="k", source="s", meta={}, created_at=utcnow())).inserted_primary_key[0]
        insert_many(conn, Item.__table__, [
            {"dataset_id": ds, "record_id": f"r{i}", "position": i, "kind": "k", "category": "abc"[(i * 7) % 3],
             "depth": (i * 5) % 4, "gold_edited": False, "version": 1} for i in range(40)])
    queries = [ItemQuery(ds, sort=s, descending=d) for s in ("category", "depth") for d in (False, True)]
    with_indexes = [list(ordered_ids(store, q)) for q in queries]
    with store.engine.begin() as conn:
        for index in SORT_INDEXES:
            index.drop(conn)
        conn.execute(text("UPDATE reviewer_schema SET version = 1"))
    assert [list(ordered_ids(store, q)) for q in queries] == with_indexes
    assert upgrade(store.engine) == LATEST
    with store.engine.connect() as conn:
        names = {i["name"] for i in inspect(conn).get_indexes("item")}
        assert current_version(conn) == LATEST
    assert {i.name for i in SORT_INDEXES} <= names
    assert [list(ordered_ids(store, q)) for q in queries] == with_indexes
    # the orders are the documented ones: column, then position
    rows = {i: ("abc"[(i * 7) % 3], (i * 5) % 4) for i in range(40)}
    by_position = sorted(rows, key=lambda i: (rows[i][0], i))
    with store.engine.connect() as conn:
        pos = dict(conn.execute(text("SELECT id, position FROM item")).all())
    assert [pos[i] for i in with_indexes[0]] == by_position
    store.close()


def test_a_version_8_database_loses_the_single_column_indexes_and_filters_the_same(db_url):
    """Step 9 (issue 14): the category, difficulty and depth indexes of older databases go, the
    items a filter finds do not change, and a new database never had them; gold_edited's stays."""
    from reviewer.store.browse import ordered_ids
    from reviewer.store.migrations import DROPPED_ITEM_INDEXES
    from reviewer.store.queries import ItemQuery

    store = Store(db_url)
    import_dataset(store.engine, R.dataset([R.item(i) for i in range(12)]), silent())
    ds = store.datasets()[0].id
    with store.engine.connect() as conn:
        before = {i["name"] for i in inspect(conn).get_indexes("item")}
    assert not before & set(DROPPED_ITEM_INDEXES) and "ix_item_gold_edited" in before
    queries = [ItemQuery(ds, depths=[1]), ItemQuery(ds, categories=["FILTERING"]), ItemQuery(ds, edited=False)]
    found = [list(ordered_ids(store, q)) for q in queries]
    assert all(found[:2]) and len(found[2]) == 12, "the filters must find something for the check to mean anything"
    with store.engine.begin() as conn:  # as a version 8 database has them
        for name, column in zip(DROPPED_ITEM_INDEXES, ("category", "difficulty", "depth"), strict=True):
            conn.execute(text(f"CREATE INDEX {name} ON item ({column})"))
        conn.execute(text("UPDATE reviewer_schema SET version = 8"))
    assert upgrade(store.engine) == LATEST
    with store.engine.connect() as conn:
        assert {i["name"] for i in inspect(conn).get_indexes("item")} == before
    assert [list(ordered_ids(store, q)) for q in queries] == found
    store.close()
