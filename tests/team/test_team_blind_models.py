"""Blind to model identity in a team database, attacked with raw SQL.

When a dataset is blind (``blind_models``), an annotator connected with their own login,
through the app's core or with psql, must not read a run's name, its model or its settings
(paper 001, Appendix D). Column privileges refuse the identifying columns of ``run`` and
``output``; the views of ``<schema>_blind`` (reviewer.team.masking) show what may be seen.
Every attack below collects whatever text came back and asserts no secret is in it.
"""

from __future__ import annotations

import json

import psycopg
import pytest

from reviewer.formats.base import OutputRecord, ParsedRun, RunRecord
from reviewer.jobs import silent
from reviewer.review import Review
from reviewer.store import Store
from reviewer.store.importing import import_dataset, import_run
from reviewer.team.masking import masked_schema
from tests.store import records as R

pytestmark = pytest.mark.postgres

# Every string that would tell an annotator which model wrote an output.
RUNS = {
    "zebra-run-alpha": ("gpt-zebra-7b-secret", "temperature sweep zebra", {"endpoint": "https://zebra.example/v1"}),
    "okapi-run-beta": ("claude-okapi-secret", "okapi setup", {"endpoint": "https://okapi.example/v1"}),
}
SECRETS = [s for name, (model, setup, meta) in RUNS.items() for s in (name, model, setup, meta["endpoint"])]


def _outputs(model: str):
    for i in range(3):
        yield OutputRecord(record_id=f"q{i}", text=f"answer {i}", prediction=f"answer {i}",
                           raw={"uid": f"q{i}", "model": model, "answer": f"answer {i}"},
                           extra={"model": model, "tool_calls": [{"name": "lookup"}]}, source_line=i + 1)


@pytest.fixture
def blind(team):
    owner = Store(team.admin_url)
    ds = import_dataset(owner.engine, R.dataset([R.item(i, gold=f"Answer {i}") for i in range(3)]),
                        silent()).dataset_id
    for name, (model, setup, meta) in RUNS.items():
        import_run(owner.engine, ds, ParsedRun(RunRecord(name=name, format="test-preds", source=f"{name}.jsonl",
                                                         model=model, setup=setup, meta=meta), _outputs(model)),
                   silent())
    with owner.engine.begin() as conn:
        conn.exec_driver_sql(
            "insert into assignment (dataset_id, item_id, annotator, created_at) "
            f"select {ds}, id, '{team.logins['alice']}', now() from item where dataset_id = {ds}")
        conn.exec_driver_sql("analyze run; analyze output")  # statistics exist: pg_stats is an attack too
    owner.close()
    carol = Review(team.store("carol"))
    carol.set_rule(ds, carol.rule(ds), blind_models=True)
    return ds


def _raw(team, person: str):
    return psycopg.connect(team.url(person).replace("postgresql+psycopg://", "postgresql://"), autocommit=True)


def _attempt(conn, sql: str, refused: list[str]) -> str:
    """Run ``sql``; the text of every row it returned ('' and noted when PostgreSQL refused it)."""
    try:
        rows = conn.execute(sql).fetchall()
    except psycopg.Error as exc:
        refused.append(sql)
        assert not any(s in str(exc) for s in SECRETS), f"an error message leaked a secret: {exc}"
        return ""
    return json.dumps([list(r) for r in rows], default=str)


def test_an_annotator_reads_no_run_or_model_name_of_a_blind_dataset_with_raw_sql(team, blind):
    with _raw(team, "alice") as conn:
        schema = conn.execute("select current_schema()").fetchone()[0]
        mask = masked_schema(schema)
        refused: list[str] = []
        seen = []
        attacks = [
            "select * from run", "select name, model, setup, endpoint, config, source from run",
            "select r.name from output o join run r on r.id = o.run_id",
            "select * from output", "select raw, extra from output",
            "select count(*) from run where name like 'zebra%'",  # a yes/no oracle on the hidden column
            "select * from audit_log", "select * from score", "select * from blob", "select * from dataset",
            "select * from person", "select * from item", "select * from assignment",
            "select * from check_result", "select * from guard_override", "select * from guard_settings",
            f"select * from {mask}.run", f"select * from {mask}.output",
            f"select o.*, r.* from {mask}.output o join {mask}.run r on r.id = o.run_id",
            "select * from pg_stats where tablename in ('run', 'output')",
            f"select definition from pg_views where schemaname = '{mask}'",
        ]
        for sql in attacks:
            seen.append(_attempt(conn, sql, refused))
        # every column of every table and view the login may read, one by one
        columns = conn.execute(
            "select table_schema, table_name, column_name from information_schema.columns "
            "where table_schema in (%s, %s)", (schema, mask)).fetchall()
        readable = 0
        for tschema, table, column in columns:
            ok = conn.execute("select has_column_privilege(%s, %s, 'SELECT')",
                              (f"{tschema}.{table}", column)).fetchone()[0]
            if ok:
                readable += 1
                seen.append(_attempt(conn, f'select "{column}" from "{tschema}"."{table}"', refused))
    everything = "\n".join(seen)
    leaked = [s for s in SECRETS if s in everything]
    assert leaked == []
    # the attacks were refused by the database, not empty by accident
    assert {"select * from run", "select * from output", "select raw, extra from output",
            "select count(*) from run where name like 'zebra%'"} <= set(refused)
    assert readable > 50 and "answer 1" in everything and "lookup" in everything  # the work itself is readable
    assert '"run ' in everything  # runs show as "run <id>"


def test_the_core_reads_through_the_views_and_blinds_each_item(team, blind):
    alice = Review(team.store("alice"))
    item = alice.store.find_item("demo", "q1")
    outputs = alice.outputs(item.id, blind)
    assert sorted(o.run for o in outputs) == ["Output 1", "Output 2"]
    assert all(o.model is None and "model" not in o.extra and o.extra["tool_calls"] for o in outputs)
    text = json.dumps([[r.name, r.model] for r in alice.store.runs(blind)], default=str)
    assert not any(s in text for s in SECRETS)
    carol = Review(team.store("carol"))  # adjudicators see the names
    assert sorted(o.run for o in carol.outputs(item.id, blind)) == sorted(RUNS)
    assert {o.model for o in carol.outputs(item.id, blind)} == {m for m, _s, _c in RUNS.values()}


def test_a_dataset_that_is_not_blind_shows_annotators_the_names(team, blind):
    carol = Review(team.store("carol"))
    carol.set_rule(blind, carol.rule(blind), blind_models=False)
    alice = Review(team.store("alice"))
    item = alice.store.find_item("demo", "q0")
    assert sorted(o.run for o in alice.outputs(item.id, blind)) == sorted(RUNS)
    assert {r.model for r in alice.store.runs(blind)} == {m for m, _s, _c in RUNS.values()}


def test_team_blind_turns_blindness_off_and_on_as_the_adjudicator(team, blind):
    from tests.team.conftest import reviewer_cli

    done = reviewer_cli("team", "blind", "demo", "--off", "--db", team.url("carol"))
    assert done.returncode == 0, done.stderr
    alice = Review(team.store("alice"))
    assert not alice.blind_models(blind)
    refused = reviewer_cli("team", "blind", "demo", "--db", team.url("alice"))  # annotators may not
    assert refused.returncode == 1 and "Traceback" not in refused.stderr and "only adjudicators" in refused.stderr
    assert not Review(team.store("alice")).blind_models(blind)
    done = reviewer_cli("team", "blind", "demo", "--db", team.url("carol"))
    assert done.returncode == 0 and '"Output 1, 2, 3"' in done.stdout
    assert Review(team.store("alice")).blind_models(blind)
