"""Attack: what an annotator can read with psql, table by table, in a team database.

alice is assigned q0 and q1. Each item's tool response (a blob), its model output, its score
and its guards' results carry a marker of the item. Connected with her own login through plain
psycopg, alice reads every row of every relation she has any SELECT right on (every column she
may read) in the team schema and the blind-view schema: q0's markers are there (the dump does
read text), q2's never are. The same attack on a team database initialised before score, blob
and guard results had row-level security finds q2's response, which a second `reviewer team
init` removes (the upgrade is idempotent: a third run changes no policy)."""

from __future__ import annotations

import json

import psycopg
import pytest

from reviewer.jobs import silent
from reviewer.store import Store
from reviewer.store.importing import import_dataset, import_run
from tests.store import records as R
from tests.team.conftest import reviewer_cli

pytestmark = pytest.mark.postgres


def response(i: int) -> str:
    return json.dumps({"filings": [{"form": "10-K", "note": f"RESPONSE-MARK-q{i}", "n": n} for n in range(5)]})


def markers(i: int) -> dict[str, str]:
    return {"response": f"RESPONSE-MARK-q{i}", "output": f"OUTPUT-MARK-q{i}", "gold": f"GOLD-MARK-q{i}"}


@pytest.fixture
def scored(team):
    """Three items (q0, q1 assigned to alice; q2 to bob only), a run, its scores, the guards' results."""
    from reviewer.guards.job import run_checks
    from reviewer.scoring.job import score_run

    owner = Store(team.admin_url)
    try:
        items = [R.item(i, gold=markers(i)["gold"], context=response(i), category="EXTRACTIVE") for i in range(3)]
        ds = import_dataset(owner.engine, R.dataset(items), silent()).dataset_id
        outputs = [R.output(i, text=markers(i)["output"]) for i in range(3)]
        run_id = import_run(owner.engine, ds, R.run(outputs), silent()).run_id
        score_run(owner, run_id)
        run_checks(owner, ds)
        ids = {f"q{i}": owner.find_item("demo", f"q{i}").id for i in range(3)}
        with owner.engine.begin() as conn:
            conn.exec_driver_sql(
                "insert into assignment (dataset_id, item_id, annotator, created_at) values "
                f"({ds}, {ids['q0']}, '{team.logins['alice']}', now()), ({ds}, {ids['q1']}, '{team.logins['alice']}', now()),"
                f"({ds}, {ids['q2']}, '{team.logins['bob']}', now())")
            seeded = {t: conn.exec_driver_sql(f"select count(*) from {t}").scalar()
                      for t in ("score", "blob", "check_result")}
        assert seeded["score"] >= 3 and seeded["blob"] >= 3 and seeded["check_result"] >= 3, seeded
    finally:
        owner.close()
    return ds, ids


def raw(team, person: str):
    return psycopg.connect(team.url(person).replace("postgresql+psycopg://", "postgresql://"), autocommit=True)


def everything_readable(conn) -> dict[str, str]:
    """relation -> the text of every row of every column this login may read in it."""
    schema = conn.execute("select current_schema()").fetchone()[0]
    rels = conn.execute(
        "select n.nspname, c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace "
        "where c.relkind in ('r', 'v', 'm', 'p') and n.nspname in (%s, %s) and has_schema_privilege(n.oid, 'USAGE')", (schema, schema[:57] + "_blind")
    ).fetchall()
    seen = {}
    for nsp, rel in rels:
        cols = [r[0] for r in conn.execute(
            "select attname from pg_attribute where attrelid = format('%%I.%%I', %s::text, %s::text)::regclass "
            "and attnum > 0 and not attisdropped and has_column_privilege(attrelid, attnum, 'SELECT') "
            "order by attnum", (nsp, rel)).fetchall()]
        if not cols:
            continue
        quoted = ", ".join('"' + c.replace('"', '""') + '"' for c in cols)
        rows = conn.execute(f'select {quoted} from "{nsp}"."{rel}"').fetchall()
        seen[f"{nsp}.{rel}"] = "\n".join(repr(r) for r in rows)
    return seen


def leaks(seen: dict[str, str], i: int) -> list[str]:
    return sorted(f"{rel}: {what}" for rel, text in seen.items() for what, mark in markers(i).items() if mark in text)


def test_an_annotator_reads_nothing_of_an_unassigned_item_in_any_table(team, scored):
    with raw(team, "alice") as conn:
        seen = everything_readable(conn)
    assert {"score", "blob", "check_result", "item", "output"} <= {k.split(".")[1] for k in seen}
    assert leaks(seen, 2) == [], "alice read q2, which is not assigned to her"
    found = leaks(seen, 0)  # the dump does read text: her own items' markers are there
    assert any("blob: response" in f for f in found) and any("output" in f for f in found), found
    with raw(team, "alice") as conn:  # the scores of her items are there, q2's are not
        schema = conn.execute("select current_schema()").fetchone()[0]
        items = {r[0] for r in conn.execute(f"select o.item_id from {schema}.score s join {schema}.output o "
                                            "on o.id = s.output_id").fetchall()}
    assert items == {scored[1]["q0"], scored[1]["q1"]}
    with raw(team, "carol") as conn:  # the adjudicator reads everything
        assert leaks(everything_readable(conn), 2)


def policies(team) -> list[tuple]:
    with psycopg.connect(team.admin_url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as conn:
        schema = conn.execute("select current_schema()").fetchone()[0]
        return conn.execute("select tablename, policyname, roles::text, cmd, qual, with_check from pg_policies "
                            "where schemaname = %s order by 1, 2", (schema,)).fetchall()


def test_team_init_again_upgrades_an_older_team_database(team, scored):
    before = policies(team)
    with psycopg.connect(team.admin_url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as conn:
        for table in ("score", "blob", "check_result", "guard_override"):  # as an older `team init` left it
            conn.execute(f"drop policy assigned_{table} on {table}")
            conn.execute(f"drop policy deciders_{table} on {table}")
            conn.execute(f"alter table {table} disable row level security")
    with raw(team, "alice") as conn:
        assert "blob: response" in " ".join(leaks(everything_readable(conn), 2))  # the hole this closes
    for _ in range(2):
        done = reviewer_cli("team", "init", "--db", team.admin_url, "--prefix", team.prefix)
        assert done.returncode == 0, done.stderr
        assert policies(team) == before  # the same policies, however often it runs
    with raw(team, "alice") as conn:
        assert leaks(everything_readable(conn), 2) == []
    store = Store(team.url("alice"))  # the app as alice still shows her item's response
    try:
        assert "RESPONSE-MARK-q0" in (store.item(scored[1]["q0"]).context or "")
    finally:
        store.close()
