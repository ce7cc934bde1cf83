"""Attack: a score's item decides whether an annotator reads it (schema step 8).

The score policy probes score.item_id, a copy of its output's item, instead of reading the
output (reviewer.team.sql). alice is assigned q0 and q1, bob q2 (tests.team.test_team_reads'
``scored``). What must hold: alice reads the scores of q0's and q1's outputs and never one of
q2's output, by the app's read (stored_results, now by the score's own run, no join) or by
psql; and no writer can make a score of q2's output carry q0's item: carol (an adjudicator,
who may write scores) forging the copies on insert or update, or shadowing output with a
temporary table, leaves them the output's. A team database made before step 8 (the old
policy, no copies) is upgraded by `reviewer team init` again, to the same policies."""

from __future__ import annotations

import psycopg
import pytest

from reviewer.scoring.job import stored_results
from reviewer.store import Store
from reviewer.store.migrations import MIGRATIONS
from tests.team.conftest import reviewer_cli
from tests.team.test_team_reads import policies, raw, scored  # noqa: F401  (scored: a fixture)

pytestmark = pytest.mark.postgres

FORGED = "FORGED-SCORE-MARK"


def _ids(team, scored):  # noqa: F811
    """(run id, {item name: output id}) of the scored run."""
    with psycopg.connect(team.admin_url.replace("postgresql+psycopg://", "postgresql://")) as conn:
        rows = conn.execute("select o.run_id, o.item_id, o.id from output o").fetchall()
    by_item = {item: oid for _, item, oid in rows}
    return rows[0][0], {name: by_item[item_id] for name, item_id in scored[1].items()}


def _alices_scores(team, run_id: int) -> tuple[set[int], set[int], str]:
    """What alice reads of score: output ids by the app's stored_results, output ids by psql
    (every row; those of the run are the same), and the text of every row she can select."""
    store = team.store("alice")
    try:
        app = set(stored_results(store, run_id))
    finally:
        store.close()
    with raw(team, "alice") as conn:
        rows = conn.execute("select * from score").fetchall()
        psql = {r[0] for r in conn.execute("select output_id from score")}
        assert {r[0] for r in conn.execute("select output_id from score where run_id = %s", (run_id,))} == psql
    return app, psql, "\n".join(repr(r) for r in rows)


def test_an_annotator_reads_the_scores_of_assigned_items_only_by_every_path(team, scored):  # noqa: F811
    run_id, outputs = _ids(team, scored)
    app, psql, _ = _alices_scores(team, run_id)
    assert app == psql == {outputs["q0"], outputs["q1"]}
    with raw(team, "alice") as conn:  # probing q2's item or output directly finds no row either
        assert conn.execute("select * from score where item_id = %s or output_id = %s",
                            (scored[1]["q2"], outputs["q2"])).fetchall() == []
    owner = Store(team.admin_url)
    try:
        assert set(stored_results(owner, run_id)) == {outputs[f"q{i}"] for i in range(3)}
    finally:
        owner.close()


def test_no_writer_makes_a_score_of_an_unassigned_item_readable(team, scored):  # noqa: F811
    run_id, outputs = _ids(team, scored)
    q0, q2 = scored[1]["q0"], scored[1]["q2"]
    with raw(team, "carol") as conn:
        # forged copies on insert: q2's output, q0's item
        conn.execute("insert into score (output_id, run_id, item_id, scorer, mode, skipped, notes, created_at) "
                     "values (%s, %s, %s, 'forged', 'faithful', false, %s, now())",
                     (outputs["q2"], run_id, q0, f'["{FORGED}-insert"]'))
        # on update: q2's real score moved to q0's item, then its output set to itself
        conn.execute("update score set item_id = %s, notes = %s where output_id = %s and scorer <> 'forged'",
                     (q0, f'["{FORGED}-update"]', outputs["q2"]))
        conn.execute("update score set output_id = output_id, item_id = %s where output_id = %s", (q0, outputs["q2"]))
        # a temporary table named output, whose row puts q2's output on q0's item
        conn.execute("create temporary table output (id int, run_id int, item_id int)")
        conn.execute("insert into output values (%s, %s, %s)", (outputs["q2"], run_id, q0))
        conn.execute("set search_path to pg_temp, " + conn.execute("select current_schema()").fetchone()[0])
        conn.execute("insert into score (output_id, scorer, mode, skipped, notes, created_at) "
                     "values (%s, 'shadowed', 'faithful', false, %s, now())", (outputs["q2"], f'["{FORGED}-temp"]'))
    with psycopg.connect(team.admin_url.replace("postgresql+psycopg://", "postgresql://")) as conn:
        stored = conn.execute("select scorer, item_id from score where output_id = %s order by scorer",
                              (outputs["q2"],)).fetchall()
        notes = " ".join(r[0] for r in conn.execute("select notes::text from score").fetchall())
    assert len(stored) == 3 and {item for _, item in stored} == {q2}, stored  # all written, all q2's
    assert all(f"{FORGED}-{how}" in notes for how in ("insert", "update", "temp"))
    app, psql, text = _alices_scores(team, run_id)
    assert app == psql == {outputs["q0"], outputs["q1"]}
    assert FORGED not in text


def test_team_init_again_upgrades_a_team_database_made_before_score_keys(team, scored):  # noqa: F811
    run_id, outputs = _ids(team, scored)
    before = policies(team)
    url = team.admin_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(url, autocommit=True) as conn:  # as version 7 and its `team init` left it
        ann = f"{team.prefix}annotator"
        conn.execute("drop policy assigned_score on score")
        conn.execute(f"create policy assigned_score on score for select to {ann} "
                     "using (exists (select 1 from output o where o.id = score.output_id))")
        conn.execute("drop trigger reviewer_score_keys on score")
        conn.execute("drop trigger reviewer_output_keys on output")
        conn.execute("drop function reviewer_score_keys(), reviewer_output_keys()")
        conn.execute("drop index ix_score_sort")
        conn.execute("alter table score drop column run_id, drop column item_id")
        conn.execute("create index ix_score_sort on score (mode, value, output_id) include (id)")
        conn.execute("update reviewer_schema set version = 7")
    with raw(team, "alice") as conn:  # the old policy: the same rows
        assert {r[0] for r in conn.execute("select output_id from score")} == {outputs["q0"], outputs["q1"]}
    for _ in range(2):
        done = reviewer_cli("team", "init", "--db", team.admin_url, "--prefix", team.prefix)
        assert done.returncode == 0, done.stderr
        assert policies(team) == before
    with psycopg.connect(url) as conn:
        assert conn.execute("select version from reviewer_schema").fetchone()[0] == MIGRATIONS[-1].version
        assert conn.execute("select count(*) from score s join output o on o.id = s.output_id "
                            "where (s.run_id, s.item_id) is distinct from (o.run_id, o.item_id)").fetchone()[0] == 0
    app, psql, _ = _alices_scores(team, run_id)
    assert app == psql == {outputs["q0"], outputs["q1"]}
