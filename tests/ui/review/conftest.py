"""Fixtures for the review UI tests: offscreen Qt, a SQLite store with a small
dataset made here, and reviewer sessions with their own settings file."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before Qt is imported anywhere

import json

import pytest

from reviewer.jobs import silent
from reviewer.review import annotate
from reviewer.store.importing import import_dataset
from tests.store import records as R

SCHEMA = json.dumps({
    "type": "object",
    "properties": {"name": {"type": "string"}, "year": {"type": "integer"},
                   "authors": {"type": "array", "items": {"type": "string"}}},
    "required": ["name", "year"],
})


@pytest.fixture
def sqlite_store(tmp_path):
    """UI tests need one real backend; SQLite is enough (the core is tested on both)."""
    from reviewer.store import Store

    s = Store(str(tmp_path / "review-ui.sqlite3"))
    yield s
    s.close()


@pytest.fixture
def dataset(sqlite_store):
    """Four answer items (q0-q3, gold dicts) and one extraction item with a schema (x0, depth 5).
    Returns (dataset_id, {record_id: item id})."""
    records = [R.item(i, gold={"answer": f"A{i}", "n": i}) for i in range(4)]
    records.append(R.item(
        0, record_id="x0", kind="extraction", gold={"name": "Ada", "year": 1843, "authors": ["Ada"]},
        schema=SCHEMA, payload={"text": "Ada wrote the notes in 1843."}, depth=5, context=None))
    summary = import_dataset(sqlite_store.engine, R.dataset(records), silent())
    ids = {r.record_id: sqlite_store.find_item("demo", r.record_id).id for r in records}
    return summary.dataset_id, ids


def make_session(store, tmp_path, name: str, role: str = "annotator"):
    from PySide6.QtCore import QSettings

    from reviewer_ui.review.session import ReviewSession

    annotate.set_role(store, name, role)
    settings = QSettings(str(tmp_path / f"settings-{name}.ini"), QSettings.Format.IniFormat)
    session = ReviewSession(store, settings)
    session.set_identity(name)
    return session


@pytest.fixture
def alice(qapp, sqlite_store, tmp_path):
    return make_session(sqlite_store, tmp_path, "alice")


@pytest.fixture
def bob(qapp, sqlite_store, tmp_path):
    return make_session(sqlite_store, tmp_path, "bob")


@pytest.fixture
def carol(qapp, sqlite_store, tmp_path):
    return make_session(sqlite_store, tmp_path, "carol", "adjudicator")
