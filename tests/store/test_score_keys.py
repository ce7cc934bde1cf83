"""A score's run and item (schema step 8), on SQLite and PostgreSQL: copies of its output's,
written by the database whatever the writer sends (nothing, or other values), following an
output moved to another item or run; a version 7 database gets them, filled, by the upgrade.
A run's stored scores are read by them (reviewer.scoring.job.stored_results) and come back as
the join through output read them before, JSON values included."""

from __future__ import annotations

import math

from sqlalchemy import select, text

from reviewer.jobs import silent
from reviewer.scoring.base import ScoreResult
from reviewer.scoring.job import score_run, stored_results
from reviewer.store.importing import import_dataset, import_run
from reviewer.store.migrations import MIGRATIONS, schema_table, upgrade
from reviewer.store.models import Output, Score
from tests.store import records as R

score_t, output_t = Score.__table__, Output.__table__


def _two_runs(store) -> tuple[dict[str, int], dict[str, int], dict[tuple[str, str], int]]:
    """Items q0-q3, runs a and b answering q0-q2 (q3 has no output); ids by name, and the
    output ids by (run, item)."""
    ds = import_dataset(store.engine, R.dataset([R.item(i) for i in range(4)]), silent()).dataset_id
    runs = {name: import_run(store.engine, ds, R.run([R.output(i) for i in range(3)], name=name), silent()).run_id
            for name in ("a", "b")}
    with store.engine.connect() as conn:
        items = dict(conn.execute(text("select record_id, id from item")).all())
        outputs = {(name, record): oid for name, run in runs.items()
                   for record, oid in conn.execute(text(
                       "select i.record_id, o.id from output o join item i on i.id = o.item_id where o.run_id = :r"),
                       {"r": run}).all()}
    return items, runs, outputs


def _keys(store) -> dict[int, tuple[int, int]]:
    """score id -> (run_id, item_id) as stored."""
    with store.engine.connect() as conn:
        return {r.id: (r.run_id, r.item_id) for r in conn.execute(select(score_t.c.id, score_t.c.run_id,
                                                                          score_t.c.item_id))}


def _outputs_keys(store) -> dict[int, tuple[int, int]]:
    """score id -> its output's (run_id, item_id)."""
    with store.engine.connect() as conn:
        return {r.id: (r.run_id, r.item_id) for r in conn.execute(
            select(score_t.c.id, output_t.c.run_id, output_t.c.item_id).join(
                output_t, output_t.c.id == score_t.c.output_id))}


def _insert(store, **values) -> int:
    with store.engine.begin() as conn:
        return conn.execute(score_t.insert().values(scorer=values.pop("scorer", "s"), mode="faithful", skipped=False,
                                                    **values)).inserted_primary_key[0]


def test_the_database_writes_the_keys_whatever_the_writer_sends(store):
    items, runs, outputs = _two_runs(store)
    plain = _insert(store, output_id=outputs[("a", "q0")], value=1.0)  # none sent (an older writer)
    forged = _insert(store, output_id=outputs[("a", "q1")], run_id=runs["b"], item_id=items["q2"], value=0.5)
    stray = _insert(store, output_id=outputs[("b", "q2")], run_id=123456, item_id=None, value=0.0)
    assert _keys(store) == _outputs_keys(store)
    assert _keys(store)[plain] == (runs["a"], items["q0"]) and _keys(store)[forged] == (runs["a"], items["q1"])
    with store.engine.begin() as conn:  # rewritten later: the copies stay the output's
        conn.execute(score_t.update().where(score_t.c.id == forged).values(item_id=items["q0"], run_id=runs["b"]))
        conn.execute(score_t.update().where(score_t.c.id == stray).values(item_id=items["q3"]))
        conn.execute(score_t.update().where(score_t.c.id == plain).values(output_id=outputs[("b", "q1")]))
    assert _keys(store) == _outputs_keys(store)
    assert _keys(store)[plain] == (runs["b"], items["q1"]) and _keys(store)[stray] == (runs["b"], items["q2"])


def test_an_output_moved_to_another_item_or_run_takes_its_scores_keys_along(store):
    items, runs, outputs = _two_runs(store)
    first = _insert(store, output_id=outputs[("a", "q0")], value=1.0)
    second = _insert(store, output_id=outputs[("a", "q0")], scorer="t", value=0.0)
    with store.engine.begin() as conn:
        conn.execute(output_t.update().where(output_t.c.id == outputs[("a", "q0")]).values(item_id=items["q3"]))
    assert _keys(store)[first] == _keys(store)[second] == (runs["a"], items["q3"])
    with store.engine.begin() as conn:
        conn.execute(output_t.update().where(output_t.c.id == outputs[("a", "q0")]).values(run_id=runs["b"]))
    assert _keys(store)[first] == _keys(store)[second] == (runs["b"], items["q3"])
    assert _keys(store) == _outputs_keys(store)


def _old_stored_results(store, run_id: int, mode: str = "faithful") -> dict[int, ScoreResult]:
    """stored_results as version 7 read it: joined through output, JSON decoded per value by the driver."""
    c = score_t.c
    stmt = select(c.output_id, c.primary, c.passed, c.skipped, c.metrics, c.notes).join(
        output_t, output_t.c.id == score_t.c.output_id).where(
        output_t.c.run_id == run_id, score_t.c.mode == mode)
    with store.engine.connect() as conn:
        return {r.output_id: ScoreResult(r.metrics or {}, r.primary or "", r.passed, r.skipped, list(r.notes or []))
                for r in conn.execute(stmt)}


def test_stored_results_read_by_the_scores_run_as_the_join_read_them(store):
    items, runs, outputs = _two_runs(store)
    score_run(store, runs["a"])
    metrics = {"nested": {"ü": [1, 2.5, None, True, "x\"y"]}, "big": 2 ** 70, "tiny": 1e-300}
    with store.engine.begin() as conn:  # odd values: NULL and empty JSON, non-ASCII, nesting, big numbers
        conn.execute(score_t.update().where(score_t.c.output_id == outputs[("a", "q0")]).values(
            metrics=metrics, notes=["n\u00e9", {"k": [None]}]))
        conn.execute(score_t.update().where(score_t.c.output_id == outputs[("a", "q1")]).values(
            metrics=None, notes=None, primary=None))
        conn.execute(score_t.update().where(score_t.c.output_id == outputs[("a", "q2")]).values(metrics={}, notes=[]))
    score_run(store, runs["b"], "fixed")
    got = stored_results(store, runs["a"])
    assert got == _old_stored_results(store, runs["a"]) and set(got) == {outputs[("a", f"q{i}")] for i in range(3)}
    assert got[outputs[("a", "q0")]].metrics == metrics and got[outputs[("a", "q1")]].metrics == {}
    assert got[outputs[("a", "q0")]].notes == ["n\u00e9", {"k": [None]}] and got[outputs[("a", "q1")]].notes == []
    assert stored_results(store, runs["b"]) == {} and stored_results(store, runs["b"], "fixed") == _old_stored_results(
        store, runs["b"], "fixed") != {}


def test_stored_results_decodes_what_json_decodes_nan_included(tmp_path):
    # SQLite keeps the text SQLAlchemy wrote, NaN included (PostgreSQL's json refuses it)
    from reviewer.store import Store

    store = Store(str(tmp_path / "s.sqlite3"))
    items, runs, outputs = _two_runs(store)
    _insert(store, output_id=outputs[("a", "q0")], metrics={"f1": float("nan"), "x": [float("inf")]}, notes=[])
    got = stored_results(store, runs["a"])[outputs[("a", "q0")]]
    assert math.isnan(got.metrics["f1"]) and got.metrics["x"] == [float("inf")]
    store.close()


def _as_version_7(store) -> None:
    """The score table as schema version 7 left it: no run or item on it, no triggers, the
    (mode, value, output_id) sort index."""
    with store.engine.begin() as conn:
        if store.backend == "postgresql":
            conn.execute(text("drop trigger reviewer_score_keys on score"))
            conn.execute(text("drop trigger reviewer_output_keys on output"))
            conn.execute(text("drop function reviewer_score_keys(), reviewer_output_keys()"))
        else:
            for name in ("reviewer_score_keys_insert", "reviewer_score_keys_update", "reviewer_output_keys"):
                conn.execute(text(f"drop trigger {name}"))
        conn.execute(text("drop index ix_score_sort"))
        conn.execute(text("alter table score drop column run_id"))
        conn.execute(text("alter table score drop column item_id"))
        include = " include (id)" if store.backend == "postgresql" else ""
        conn.execute(text(f"create index ix_score_sort on score (mode, value, output_id){include}"))
        conn.execute(schema_table.update().values(version=7))


def test_version_7_database_gets_the_keys_filled_and_kept_by_the_upgrade(store):
    items, runs, outputs = _two_runs(store)
    score_run(store, runs["a"])
    score_run(store, runs["b"], "fixed")
    _as_version_7(store)
    with store.engine.begin() as conn:  # a score written by version 7
        conn.execute(text("insert into score (output_id, scorer, mode, skipped, created_at) "
                          "values (:o, 'other', 'faithful', false, '2024-01-01')"), {"o": outputs[("b", "q2")]})
    before = {run: _old_stored_results(store, run) for run in runs.values()}
    assert upgrade(store.engine, MIGRATIONS) == MIGRATIONS[-1].version >= 8
    with store.engine.connect() as conn:
        assert conn.execute(select(schema_table.c.version)).scalar() == MIGRATIONS[-1].version
    assert _keys(store) == _outputs_keys(store) and None not in {k for pair in _keys(store).values() for k in pair}
    assert {run: stored_results(store, run) for run in runs.values()} == before
    _insert(store, output_id=outputs[("a", "q1")], scorer="later", item_id=items["q3"])  # the triggers are there
    assert _keys(store) == _outputs_keys(store)
