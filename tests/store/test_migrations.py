"""Schema versions: new databases are stamped, old ones upgraded in order, newer ones refused."""

from __future__ import annotations

import pytest
from sqlalchemy import inspect, text

from reviewer.jobs import silent
from reviewer.store import Store
from reviewer.store.importing import import_dataset
from reviewer.store.migrations import MIGRATIONS, Migration, SchemaTooNew, current_version, upgrade
from tests.store import records as R


def test_new_database_gets_the_latest_version(db_url):
    store = Store(db_url)
    with store.engine.connect() as conn:
        assert current_version(conn) == MIGRATIONS[-1].version == store.schema_version


def test_upgrade_applies_later_steps_in_order_and_keeps_data(db_url):
    store = Store(db_url)
    import_dataset(store.engine, R.dataset([R.item(0), R.item(1)]), silent())
    applied = []
    n = MIGRATIONS[-1].version  # the steps below come after however many the project has

    def add_reviewed_flag(conn):
        applied.append(n + 1)
        conn.execute(text("ALTER TABLE item ADD COLUMN reviewed_flag INTEGER DEFAULT 0"))

    def backfill(conn):
        applied.append(n + 2)
        conn.execute(text("UPDATE item SET reviewed_flag = 1 WHERE record_id = 'q1'"))

    steps = (*MIGRATIONS, Migration(n + 1, "add a flag", add_reviewed_flag), Migration(n + 2, "backfill", backfill))
    assert upgrade(store.engine, steps) == n + 2
    assert applied == [n + 1, n + 2]
    assert upgrade(store.engine, steps) == n + 2 and applied == [n + 1, n + 2]  # nothing runs twice
    with store.engine.connect() as conn:
        assert current_version(conn) == n + 2
        assert "reviewed_flag" in {c["name"] for c in inspect(conn).get_columns("item")}
        flags = dict(conn.execute(text("SELECT record_id, reviewed_flag FROM item")).all())
    assert flags == {"q0": 0, "q1": 1}


def test_failed_step_leaves_the_version_where_it_was(db_url):
    store = Store(db_url)

    def broken(conn):
        conn.execute(text("ALTER TABLE item ADD COLUMN half_done INTEGER"))
        raise RuntimeError("disk full")

    n = MIGRATIONS[-1].version
    with pytest.raises(RuntimeError):
        upgrade(store.engine, (*MIGRATIONS, Migration(n + 1, "broken", broken)))
    with store.engine.connect() as conn:
        assert current_version(conn) == n
        if conn.dialect.name == "postgresql":  # transactional DDL: the column is gone too
            assert "half_done" not in {c["name"] for c in inspect(conn).get_columns("item")}


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


def test_database_location_from_environment(tmp_path, monkeypatch):
    target = tmp_path / "from-env.sqlite3"
    monkeypatch.setenv("REVIEWER_DB", str(target))
    store = Store()
    assert store.backend == "sqlite" and target.exists()

