"""What a run import tells its user: outputs changed in the file, how much of the dataset
the run covers, and a file with nothing in it (refused, nothing written)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from reviewer.errors import InputError
from reviewer.jobs import silent
from reviewer.store.importing import import_dataset, import_run
from reviewer.store.models import Output
from tests.store import records as R
from tests.store.test_store import snapshot


def _dataset(store, n=3):
    return import_dataset(store.engine, R.dataset([R.item(i) for i in range(n)]), silent())


def _texts(store) -> dict:
    with store.engine.connect() as conn:
        return dict(conn.execute(select(Output.__table__.c.item_id, Output.__table__.c.text)).all())


def test_reimported_run_with_a_changed_output_says_so_and_keeps_the_stored_one(store):
    ds = _dataset(store)
    import_run(store.engine, ds.dataset_id, R.run([R.output(i) for i in range(3)]), silent())
    before = snapshot(store)
    again = import_run(store.engine, ds.dataset_id,
                       R.run([R.output(0), R.output(1, text="changed"), R.output(2)]), silent())
    assert (again.added, again.unchanged, again.changed_in_source) == (0, 2, ["q1"])
    assert "0 outputs added, 2 already present, 1 differ from the stored version and were kept as stored " \
           "(first: q1)" in again.describe()
    # kept as stored: only the audit trail of the import itself is new
    after = snapshot(store)
    assert {k: v for k, v in after.items() if k != "audit_log"} == {k: v for k, v in before.items() if k != "audit_log"}
    # the identical file again: all unchanged (values compared after the JSON round trip)
    same = import_run(store.engine, ds.dataset_id, R.run([R.output(i) for i in range(3)]), silent())
    assert (same.added, same.unchanged, same.changed_in_source) == (0, 3, [])
    assert "differ" not in same.describe()


def test_reimport_compares_json_values_not_their_python_types_and_ignores_the_apps_own_fields(store):
    ds = _dataset(store, 1)
    import_run(store.engine, ds.dataset_id, R.run([R.output(0, extra={"calls": [1, 2.5], "k": "v"})]), silent())
    with store.engine.begin() as conn:  # fields a rerun fills, never in a file
        conn.execute(Output.__table__.update().values(latency_ms=12.5, retries=2, finish_reason="stop", cached=True))
    again = import_run(store.engine, ds.dataset_id, R.run([R.output(0, extra={"k": "v", "calls": (1, 2.5)})]), silent())
    assert (again.unchanged, again.changed_in_source) == (1, [])
    changed = import_run(store.engine, ds.dataset_id, R.run([R.output(0, extra={"k": "w", "calls": [1, 2.5]})]),
                         silent())
    assert changed.changed_in_source == ["q0"]


def test_run_import_says_how_many_of_the_datasets_items_it_covers(store):
    ds = _dataset(store, 5)
    part = import_run(store.engine, ds.dataset_id, R.run([R.output(0), R.output(3)]), silent())
    assert (part.covered, part.dataset_items) == (2, 5)
    assert part.describe().endswith("2 outputs added, 0 already present; the run covers 2 of 5 items")
    # more outputs for the same run: the run's coverage, not the file's
    more = import_run(store.engine, ds.dataset_id, R.run([R.output(1)]), silent())
    assert "the run covers 3 of 5 items" in more.describe()
    full = import_run(store.engine, ds.dataset_id, R.run([R.output(i) for i in range(5)], name="all"), silent())
    assert "covers" not in full.describe()


def test_an_empty_predictions_file_is_refused_and_writes_nothing(store):
    ds = _dataset(store)
    before = snapshot(store)
    with pytest.raises(InputError, match=r"^preds.json: holds no outputs; nothing was imported$"):
        import_run(store.engine, ds.dataset_id, R.run([]), silent())
    assert snapshot(store) == before
    # nor into a run that exists
    import_run(store.engine, ds.dataset_id, R.run([R.output(0)]), silent())
    before = snapshot(store)
    with pytest.raises(InputError, match="holds no outputs"):
        import_run(store.engine, ds.dataset_id, R.run([]), silent())
    assert snapshot(store) == before


def test_an_empty_dataset_file_is_refused_and_writes_nothing(store):
    before = snapshot(store)
    with pytest.raises(InputError, match=r"^qa.json: holds no items; nothing was imported$"):
        import_dataset(store.engine, R.dataset([]), silent())
    assert snapshot(store) == before
    # a dataset that exists: an empty file changes nothing; the same items again still import fine
    _dataset(store)
    before = snapshot(store)
    with pytest.raises(InputError, match="holds no items"):
        import_dataset(store.engine, R.dataset([]), silent())
    assert snapshot(store) == before
    again = _dataset(store)
    assert (again.added, again.unchanged) == (0, 3)
