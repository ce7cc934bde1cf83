"""The store on both backends: imports, idempotence, atomicity, queries, gold edits, audit."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from reviewer.errors import InputError, StaleWrite
from reviewer.jobs import Cancelled, JobContext, silent
from reviewer.store import ItemQuery
from reviewer.store.importing import import_dataset, import_run
from reviewer.store.models import Blob, Dataset, Item, Output
from tests.store import records as R


def count(store, model) -> int:
    with store.engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(model.__table__)).scalar_one()


def test_import_stores_items_with_payload_and_shared_blobs_once(store):
    summary = import_dataset(store.engine, R.dataset([R.item(i) for i in range(10)]), silent())
    assert (summary.added, summary.unchanged) == (10, 0)
    [info] = store.datasets()
    assert (info.name, info.items, info.runs, info.kind) == ("demo", 10, 0, "tool_qa")
    # ten items share one response and one schema; the dataset has one extra text
    assert count(store, Blob) == 3
    detail = store.find_item("demo", "q4")
    assert detail.context == R.RESPONSE and detail.schema == '{"type": "object"}'
    assert (detail.gold, detail.category, detail.depth, detail.source_line) == ("A", "FILTERING", 1, 5)
    assert detail.payload == {"task": "T"} and detail.raw == {"uid": "q4", "gold_answer": "A"}


def test_reimport_adds_nothing_and_keeps_edited_gold(store):
    import_dataset(store.engine, R.dataset([R.item(i) for i in range(5)]), silent())
    item = store.find_item("demo", "q1")
    store.set_gold(item.id, "B", actor="ann", expected_version=item.version)
    changed = R.item(2, gold="Z", raw={"uid": "q2", "gold_answer": "Z"})
    again = import_dataset(
        store.engine, R.dataset([R.item(0), R.item(1), changed, R.item(3), R.item(4), R.item(5)]), silent()
    )
    assert again.added == 1 and again.unchanged == 4 and again.changed_in_source == ["q2"]
    assert count(store, Item) == 6
    assert store.find_item("demo", "q1").gold == "B"
    assert store.find_item("demo", "q2").gold == "A"
    assert "differ from the stored version" in again.describe()


def test_failed_import_writes_nothing(store):
    def items():
        yield R.item(0)
        yield R.item(1)
        raise InputError("qa.json", "line 3", "expected an object")

    with pytest.raises(InputError, match=r"qa.json: line 3: expected an object"):
        import_dataset(store.engine, R.dataset(items()), silent())
    assert store.datasets() == [] and count(store, Item) == 0 and count(store, Blob) == 0


def test_duplicate_ids_are_rejected_naming_both_places(store):
    dup = R.item(7, record_id="q1")
    with pytest.raises(InputError) as err:
        import_dataset(store.engine, R.dataset([R.item(0), R.item(1), dup]), silent())
    assert "duplicate id 'q1'" in str(err.value) and "line 8" in str(err.value) and "line 2" in str(err.value)
    assert count(store, Dataset) == 0


def snapshot(store) -> dict:
    """Every row of every table, for comparing a whole database before and after."""
    from reviewer.store.migrations import schema_table
    from sqlmodel import SQLModel

    tables = [*SQLModel.metadata.sorted_tables, schema_table]
    with store.engine.connect() as conn:
        return {t.name: sorted(repr(tuple(r)) for r in conn.execute(select(t))) for t in tables}


@pytest.mark.parametrize("into", ["new dataset", "existing dataset"])
def test_import_cancelled_midway_writes_nothing(store, into):
    """Cancelled after chunks were already inserted (not before the first), every table
    is as it was: items, blobs, the dataset row and its meta, the audit log."""
    from reviewer.store.bulk import CHUNK

    import_dataset(store.engine, R.dataset([R.item(i) for i in range(5)]), silent())
    import_run(store.engine, store.dataset("demo").id, R.run([R.output(0)]), silent())
    before = snapshot(store)
    name = "demo" if into == "existing dataset" else "other"
    seen = []

    def progress(p):
        seen.append(p.done)
        if p.done >= 2 * CHUNK + 200:
            ctx.cancel()  # mid-way: two chunks are in the transaction already

    ctx = JobContext(progress)
    items = [R.item(i, context=f"response {i}") for i in range(3 * CHUNK)]
    with pytest.raises(Cancelled):
        import_dataset(store.engine, R.dataset(items, name=name), ctx)
    assert max(seen) >= 2 * CHUNK + 200 and max(seen) < 3 * CHUNK  # it really stopped mid-way
    assert snapshot(store) == before


def test_run_import_attaches_outputs_and_rejects_unknown_ids(store):
    summary = import_dataset(store.engine, R.dataset([R.item(i) for i in range(3)]), silent())
    s = import_run(store.engine, summary.dataset_id, R.run([R.output(0), R.output(1, text="B"),
                                                            R.output(2, text=None, status="error", error="-1")]),
                   silent())
    assert s.added == 3
    [run] = store.runs("demo")
    assert (run.name, run.outputs, run.errors) == ("model-a", 3, 1)
    outs = store.outputs(store.find_item("demo", "q1").id)
    assert [(o.run, o.text) for o in outs] == [("model-a", "B")]
    # the same file again adds nothing
    again = import_run(store.engine, summary.dataset_id, R.run([R.output(0)]), silent())
    assert (again.added, again.unchanged) == (0, 1)
    with pytest.raises(InputError, match=r"preds.json: line 10: id 'q9' is not an item of dataset 'demo'"):
        import_run(store.engine, summary.dataset_id, R.run([R.output(0)], name="other") if False else
                   R.run([R.output(9)], name="other"), silent())
    assert [r.name for r in store.runs("demo")] == ["model-a"]
    assert count(store, Output) == 3


def test_gold_edit_versions_audit_and_stale_write(store):
    import_dataset(store.engine, R.dataset([R.item(0)]), silent())
    item = store.find_item("demo", "q0")
    v2 = store.set_gold(item.id, {"answer": "B"}, actor="alice", expected_version=item.version, reason="typo")
    assert v2 == 2
    with pytest.raises(StaleWrite, match="version 1"):
        store.set_gold(item.id, "C", actor="bob", expected_version=1)
    after = store.find_item("demo", "q0")
    assert after.gold == {"answer": "B"} and after.original_gold == "A" and after.gold_edited
    edits = [h for h in store.history("item", item.id) if h.action == "edit_gold"]
    assert len(edits) == 1
    assert (edits[0].actor, edits[0].before["gold"], edits[0].after["gold"]) == ("alice", "A", {"answer": "B"})
    # editing back to the original clears the edited flag
    store.set_gold(item.id, "A", actor="alice", expected_version=2)
    assert not store.find_item("demo", "q0").gold_edited


def test_item_pages_filter_and_sort_in_sql(store):
    import_dataset(store.engine, R.dataset([R.item(i) for i in range(250)]), silent())
    ds = store.dataset("demo")
    q = ItemQuery(dataset_id=ds.id)
    assert store.count_items(q) == 250
    pages = [store.item_page(q, off, 100) for off in (0, 100, 200)]
    ids = [r.record_id for p in pages for r in p]
    assert len(ids) == 250 and len(set(ids)) == 250 and ids[:3] == ["q0", "q1", "q2"]
    q = ItemQuery(dataset_id=ds.id, categories=["AGGREGATION"], sort="depth", descending=True)
    rows = store.item_page(q, 0, 1000)
    assert store.count_items(q) == len(rows) == 83
    assert all(r.category == "AGGREGATION" for r in rows)
    assert [r.depth for r in rows] == sorted((r.depth for r in rows), reverse=True)
    found = store.item_page(ItemQuery(dataset_id=ds.id, text="NUMBER 12?"), 0, 10)
    assert [r.record_id for r in found] == ["q12"]


def test_jsonl_export_carries_provenance(store, tmp_path):
    import_dataset(store.engine, R.dataset([R.item(i) for i in range(3)]), silent())
    item = store.find_item("demo", "q2")
    store.set_gold(item.id, "fixed", actor="alice", expected_version=1)
    out = tmp_path / "export.jsonl"
    assert store.export_jsonl("demo", out) == 3
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["record_id"] for r in rows] == ["q0", "q1", "q2"]
    assert rows[2]["gold"] == "fixed" and rows[2]["original_gold"] == "A" and rows[2]["gold_edited"]
    assert rows[0]["provenance"]["source_file"] == "qa.json"


def test_deleting_a_dataset_removes_its_items_and_outputs(store):
    summary = import_dataset(store.engine, R.dataset([R.item(i) for i in range(3)]), silent())
    import_run(store.engine, summary.dataset_id, R.run([R.output(0)]), silent())
    store.delete_dataset("demo", actor="alice")
    assert count(store, Item) == 0 and count(store, Output) == 0
    assert store.history("dataset", summary.dataset_id)[-1].action == "delete"


def test_filters_by_review_state_score_range_and_disagreeing_runs(store):
    from reviewer.review.annotate import save_annotation
    from reviewer.review.rubric import Draft
    from reviewer.samples import ensure_samples
    from reviewer.scoring.job import score_run

    ensure_samples(store)
    ds = store.dataset("sample-tool-selection")
    a, b = store.runs(ds.id)
    for run in (a, b):
        score_run(store, run.id)
    rows = store.item_page(ItemQuery(dataset_id=ds.id), 0, 100)
    ok = Draft(verdict="pass", ambiguity="low")
    save_annotation(store, rows[0].id, "alice", ok, None)  # in review
    save_annotation(store, rows[1].id, "alice", ok, None)  # settled (both agree)
    save_annotation(store, rows[1].id, "bob", ok, None)
    save_annotation(store, rows[2].id, "alice", ok, None)  # disagreement
    save_annotation(store, rows[2].id, "bob", Draft(verdict="reject", ambiguity="high"), None)

    def ids(**kw):
        q = ItemQuery(dataset_id=ds.id, **kw)
        found = [r.id for r in store.item_page(q, 0, 100)]
        assert store.count_items(q) == len(found)
        return found

    assert ids(review="in_review") == [rows[0].id]
    assert ids(review="settled") == [rows[1].id]
    assert ids(review="disagreement") == [rows[2].id]
    assert len(ids(review="unannotated")) == 29

    scores_a = store.run_scores(a.id)
    failing = sorted(i for i, v in scores_a.items() if v == 0.0)
    assert sorted(ids(score_run_id=a.id, score_max=0.0)) == failing and failing
    by_score = ids(score_run_id=a.id, sort="score")
    assert [scores_a[i] for i in by_score] == sorted(scores_a[i] for i in by_score)

    scores_b = store.run_scores(b.id)
    differ = sorted(i for i in scores_a if (scores_a[i] == 1.0) != (scores_b[i] == 1.0))
    assert sorted(ids(runs_disagree=(a.id, b.id))) == differ and differ


def test_an_exported_jsonl_file_has_the_users_usual_permissions(store, tmp_path):
    """Written through a private temporary file, the export used to keep its 0o600: a release
    copied to a team share could not be read by the team. It now has 0o666 less the umask."""
    import os
    import stat

    import_dataset(store.engine, R.dataset([R.item(i) for i in range(3)]), silent())
    out = tmp_path / "out.jsonl"
    old = os.umask(0o022)
    try:
        store.export_jsonl("demo", out)
        assert stat.S_IMODE(out.stat().st_mode) == 0o644
        os.umask(0o027)
        store.export_jsonl("demo", out)
        assert stat.S_IMODE(out.stat().st_mode) == 0o640
    finally:
        os.umask(old)
