"""Guards over a real store (SQLite and PostgreSQL): stored results, recomputation when the
gold changes, the item table's filter, overrides and the release rule, the CLI."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from reviewer import guards
from reviewer.cli import main
from reviewer.errors import ReviewerError
from reviewer.guards import settings as guard_settings
from reviewer.guards.tables import CheckResult
from reviewer.jobs import JobContext, silent
from reviewer.review import release
from reviewer.review.annotate import save_annotation, set_role
from reviewer.review.rubric import Draft
from reviewer.store import ItemQuery
from reviewer.store.importing import import_dataset
from tests.store import records as R

TEXT = ("The expedition started on 2 June 2023 and ended on 20 June 2023. "
        "The team of 12 climbers was led by Ana Ruiz. ") * 3
OK_CHECKS = {"schema_conformance": True, "content_faithfulness": True, "cross_field_consistency": True}
NO_LEAKAGE = ["schema", "constraints", "grounding", "length", "gold_program"]


def ext(i: int, gold: dict, text: str = TEXT):
    return R.item(i, gold=gold, kind="extraction", payload={"text": text}, context=None,
                  schema=json.dumps({"type": "object"}))


@pytest.fixture
def ds(store):
    items = [
        ext(0, {"leader": "Ana Ruiz", "start": "2023-06-02", "end": "2023-06-20", "team": 12}),
        ext(1, {"leader": "Bo Chen", "start": "2023-06-02", "end": "2023-06-20", "team": 12}),  # ungrounded
        ext(2, {"leader": "Ana Ruiz", "start": "2023-06-20", "end": "2023-06-02", "team": 12}),  # dates swapped
    ]
    summary = import_dataset(store.engine, R.dataset(items), silent())
    guard_settings.update(store, summary.dataset_id, rules=["$.start <= $.end", "$.team between 1 and 50"],
                          min_words=10)
    ids = {f"q{i}": store.find_item("demo", f"q{i}").id for i in range(3)}
    return summary.dataset_id, ids


def failed(store, dataset_id, guard):
    q = ItemQuery(dataset_id=dataset_id, guard_failed=guard)
    return [r.record_id for r in store.item_page(q, 0, 100)]


def test_results_are_stored_and_recomputed_only_when_the_gold_changes(store, ds):
    dataset_id, ids = ds
    first = guards.run_checks(store, dataset_id, guards=NO_LEAKAGE)
    assert first.recomputed == 15 and first.unchanged == 0
    assert first.counts["grounding"] == {"pass": 2, "fail": 1}
    assert first.counts["constraints"] == {"pass": 2, "fail": 1}
    assert first.counts["length"] == {"pass": 3}
    assert first.counts["gold_program"] == {"skip": 3}
    with store.engine.connect() as conn:
        row = conn.execute(select(CheckResult.__table__).where(
            CheckResult.__table__.c.item_id == ids["q2"], CheckResult.__table__.c.guard == "constraints")).one()
    assert row.status == "fail" and "$.start" in row.summary and "2023-06-02" in row.summary
    assert row.details["violations"][0]["other_path"] == "$.end"

    again = guards.run_checks(store, dataset_id, guards=NO_LEAKAGE)
    assert again.recomputed == 0 and again.unchanged == 15

    item = store.item(ids["q1"])
    store.set_gold(ids["q1"], {**item.gold, "leader": "Ana Ruiz"}, "alice", item.version)
    view = guards.item_guards(store, dataset_id, [ids["q1"]])[ids["q1"]]
    assert view.results["grounding"].status == "pass"  # a stale cheap result is recomputed for the view
    third = guards.run_checks(store, dataset_id, guards=NO_LEAKAGE)
    # only q1's results that read the gold (length reads the source alone, which did not change)
    assert third.recomputed == 4 and third.unchanged == 11
    assert third.counts["grounding"] == {"pass": 3}


def test_the_item_table_filters_on_failed_guards_and_overrides_lift_the_filter(store, ds):
    dataset_id, ids = ds
    guards.run_checks(store, dataset_id, guards=NO_LEAKAGE)
    assert failed(store, dataset_id, "grounding") == ["q1"]
    assert failed(store, dataset_id, "constraints") == ["q2"]
    assert failed(store, dataset_id, "any") == ["q1", "q2"]
    assert store.count_items(ItemQuery(dataset_id=dataset_id, guard_failed="length")) == 0
    guards.add_override(store, ids["q1"], "grounding", "carol", "Bo Chen is the leader's legal name")
    assert failed(store, dataset_id, "any") == ["q2"]
    with pytest.raises(ValueError, match="unknown guard"):
        failed(store, dataset_id, "spelling")


def _settle_as_pass(store, item_id):
    for who in ("alice", "bob"):
        save_annotation(store, item_id, who, Draft(verdict="pass", checks=dict(OK_CHECKS), ambiguity="low",
                                                   difficulty="medium"), None)


def test_release_counts_the_guards_and_keeps_an_override_in_the_provenance(store, ds, tmp_path):
    dataset_id, ids = ds
    guards.run_checks(store, dataset_id, guards=NO_LEAKAGE)
    for item_id in ids.values():
        _settle_as_pass(store, item_id)
    status = {s.record_id: s for s in release.gold_status(store, dataset_id)}
    assert status["q0"].released
    assert status["q1"].reasons == ["guard failed: Grounding"]
    assert status["q2"].reasons == ["guard failed: Constraints"]
    assert guards.guards_pass(store, ids["q0"]) and not guards.guards_pass(store, ids["q1"])

    with pytest.raises(ReviewerError, match="written reason"):
        guards.add_override(store, ids["q1"], "grounding", "carol", "  ")
    set_role(store, "alice", "annotator")
    with pytest.raises(ReviewerError, match="only an adjudicator"):
        guards.add_override(store, ids["q1"], "grounding", "alice", "I think it is fine")
    guards.add_override(store, ids["q1"], "grounding", "carol", "the text names him on page 2 of the source")
    assert guards.guards_pass(store, ids["q1"])
    status = {s.record_id: s for s in release.gold_status(store, dataset_id)}
    assert [r for r, s in status.items() if s.released] == ["q0", "q1"]

    out = tmp_path / "gold.jsonl"
    assert release.export_gold_jsonl(store, dataset_id, out) == 2
    rows = {json.loads(line)["record_id"]: json.loads(line) for line in out.read_text().splitlines()}
    [override] = rows["q1"]["provenance"]["guard_overrides"]
    assert override["guard"] == "grounding" and override["adjudicator"] == "carol"
    assert override["reason"] == "the text names him on page 2 of the source"
    assert rows["q0"]["provenance"]["guard_overrides"] == []
    assert [h.action for h in store.history("item", ids["q1"])][-1] == "guard_override"


def test_a_dataset_never_checked_is_not_held_by_the_guards(store):
    summary = import_dataset(store.engine, R.dataset([ext(0, {"leader": "Nobody Here"})]), silent())
    item_id = store.find_item("demo", "q0").id
    _settle_as_pass(store, item_id)
    assert [s.released for s in release.gold_status(store, summary.dataset_id)] == [True]
    guards.run_checks(store, summary.dataset_id, guards=["grounding"])  # the first check turns them on
    [s] = release.gold_status(store, summary.dataset_id)
    assert s.reasons == ["guard failed: Grounding"]


def test_the_check_job_reports_progress_and_can_be_cancelled(store, ds):
    dataset_id, _ = ds
    seen = []
    ctx = JobContext(seen.append)
    guards.run_checks(store, dataset_id, ctx, guards=NO_LEAKAGE)
    assert seen and seen[-1].done == seen[-1].total == 3
    cancel = JobContext()
    cancel.cancel()
    from reviewer.jobs import Cancelled

    with pytest.raises(Cancelled):
        guards.run_checks(store, dataset_id, cancel, force=True)


def test_cli_check_prints_counts_per_guard_and_sets_rules(tmp_path, capsys):
    db = str(tmp_path / "cli.sqlite3")
    from reviewer.store import Store

    store = Store(db)
    import_dataset(store.engine, R.dataset([
        ext(0, {"leader": "Ana Ruiz", "start": "2023-06-02", "end": "2023-06-20"}),
        ext(1, {"leader": "Ana Ruiz", "start": "2023-06-20", "end": "2023-06-02"}),
    ]), silent())
    store.close()
    assert main(["--db", db, "check", "demo", "--rule", "$.start <= $.end", "--min-words", "10"]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line[:1].isupper()}
    assert lines["Constraints"] == ["1", "1", "0", "0"]  # pass fail skip error
    assert lines["Grounding"] == ["2", "0", "0", "0"]
    assert lines["Leakage"][:2] == ["0", "2"]  # the two sources are the same text: near-duplicates
    assert "q1: $.start <= $.end: $.start = \"2023-06-20\" vs $.end = \"2023-06-02\"" in out
    assert "near-duplicate of item q0 (similarity 1.00)" in out
    assert main(["--db", db, "check", "demo", "--rule", "$.start <=", "--guard", "schema"]) == 1
    assert "rule 1" in capsys.readouterr().err
    assert main(["--db", db, "override", "demo", "q1", "constraints", "--by", "carol",
                 "--reason", "the source lists the dates in reverse"]) == 0


def test_a_database_from_before_the_guards_gets_their_tables(db_url):
    from sqlalchemy import inspect, text

    from reviewer.guards.tables import TABLES
    from reviewer.store import Store

    store = Store(db_url)
    with store.engine.begin() as conn:
        for table in reversed(TABLES):
            table.drop(conn)
        conn.execute(text("UPDATE reviewer_schema SET version = 1"))
    store.close()
    store = Store(db_url)
    with store.engine.connect() as conn:
        names = set(inspect(conn).get_table_names())
    assert {"check_result", "guard_override", "guard_settings"} <= names
    store.close()
