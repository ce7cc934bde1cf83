"""Team mode after the red team (issue 16): the database computes agreement keys itself, and
`reviewer team init` run again upgrades an existing team database in place.

Real PostgreSQL, the CLI as users run it (fixtures in tests/team/conftest.py)."""

from __future__ import annotations

import itertools
import json

import psycopg
import pytest

from reviewer.jobs import silent
from reviewer.review import Draft, Review, Stage
from reviewer.review.protocol import AgreementRule, agreement_key, draft_of
from reviewer.store import Store
from reviewer.store.importing import import_dataset
from tests.store import records as R
from tests.team.conftest import reviewer_cli

pytestmark = pytest.mark.postgres

OK = {"schema_conformance": True, "content_faithfulness": True, "cross_field_consistency": True}

# First submissions as JSON text (what the database holds), chosen where a canonical form can
# go wrong: key order, duplicate keys, escapes, 1 vs 1.0 vs 1e0, nulls in the rubric, fixes.
SUBMISSIONS = [
    '{"verdict": "pass", "rubric": {"schema_conformance": true, "ambiguity": "low", "difficulty": "medium"}}',
    '{"rubric": {"difficulty": "medium", "ambiguity": "low", "schema_conformance": true}, "verdict": "pass"}',
    '{"verdict": "pass", "rubric": {"schema_conformance": true, "ambiguity": "low", "difficulty": "medium", '
    '"content_faithfulness": null}}',
    '{"verdict": "pass", "rubric": {"schema_conformance": false, "ambiguity": "low", "difficulty": "medium"}}',
    '{"verdict": "pass", "rubric": {"schema_conformance": true, "ambiguity": "high", "difficulty": "medium"}}',
    '{"verdict": "pass", "rubric": {}}',
    '{"verdict": "pass", "rubric": {"ambiguity": null, "difficulty": null}}',
    '{"verdict": "pass", "rubric": "x", "error_tags": 5, "note": 7}',
    '{"verdict": "reject", "rubric": {}}',
    '{"verdict": 5, "rubric": {}}',
    '{"verdict": null, "rubric": {}}',
    '{"verdict": "fix", "rubric": {}, "fixed_gold": {"answer": "A", "n": 1}}',
    '{"verdict": "fix", "rubric": {}, "fixed_gold": {"n": 1, "answer": "A"}}',
    '{"verdict": "fix", "rubric": {}, "fixed_gold": {"n": 1, "answer": "\\u0041"}}',
    '{"verdict": "fix", "rubric": {}, "fixed_gold": {"n": 1.0, "answer": "A"}}',
    '{"verdict": "fix", "rubric": {}, "fixed_gold": {"n": 1e0, "answer": "A"}}',
    '{"verdict": "fix", "rubric": {}, "fixed_gold": {"n": 1.00, "answer": "A"}}',
    '{"verdict": "fix", "rubric": {}, "fixed_gold": {"n": 2, "n": 1, "answer": "A"}}',
    '{"verdict": "fix", "rubric": {}, "fixed_gold": {"n": -0, "answer": "A"}}',
    '{"verdict": "fix", "rubric": {}, "fixed_gold": {"n": 0, "answer": "A"}}',
    '{"verdict": "fix", "rubric": {}, "fixed_gold": {"n": -0.0, "answer": "A"}}',
    '{"verdict": "fix", "rubric": {}, "fixed_gold": {"n": 0.1, "answer": "A"}}',
    '{"verdict": "fix", "rubric": {}, "fixed_gold": {"n": 0.10000000000000001, "answer": "A"}}',
    '{"verdict": "fix", "rubric": {}, "fixed_gold": {"n": 1e400, "answer": "A"}}',
    '{"verdict": "fix", "rubric": {}, "fixed_gold": {"n": 100000.0, "answer": "A"}}',
    '{"verdict": "fix", "rubric": {}, "fixed_gold": {"n": 1e5, "answer": "A"}}',
    '{"verdict": "fix", "rubric": {}, "fixed_gold": {"n": 100000, "answer": "A"}}',
    '{"verdict": "fix", "rubric": {}, "fixed_gold": ["A", {"b": [1, 2]}]}',
    '{"verdict": "fix", "rubric": {}, "fixed_gold": ["A", {"b": [2, 1]}]}',
    '{"verdict": "fix", "rubric": {}, "fixed_gold": "caf\\u00e9"}',
    '{"verdict": "fix", "rubric": {}, "fixed_gold": "café"}',
    '{"verdict": "fix", "rubric": {}, "fixed_gold": null}',
    '{"verdict": "fix", "rubric": {}}',
    '{"verdict": "fix", "rubric": {}, "fixed_gold": true}',
    '{"verdict": "fix", "rubric": {}, "fixed_gold": "true"}',
    '{"verdict": "fix", "rubric": {"ambiguity": "low"}, "fixed_gold": {"n": 1, "answer": "A"}}',
]
METAS = [
    None, {}, {"review": {"agreement": ["verdict", "rubric", "fix"]}},
    {"review": {"agreement": ["verdict"]}}, {"review": {"agreement": ["verdict", "rubric"]}},
    {"review": {"agreement": ["verdict", "fix"], "auto_settle": True}},
    {"review": {"agreement": ["verdict", "rubric", "fix"], "auto_settle": False}},
    {"review": {"auto_settle": False}}, {"review": {"blind_models": True}},
]
ANNOTATORS = ("alice", "bob")


def test_database_agreement_keys_are_equal_exactly_when_pythons_are(team):
    """reviewer_agreement_key (PL/pgSQL) against reviewer.review.protocol.agreement_key on every
    submission x rule x annotator: equal where Python's are equal, different where different."""
    cases = [(s, m, a) for s in SUBMISSIONS for m in METAS for a in ANNOTATORS]
    with psycopg.connect(team.admin_url.replace("postgresql+psycopg://", "postgresql://")) as conn:
        schema = conn.execute("select current_schema()").fetchone()[0]
        sql_keys = [conn.execute(f"select {schema}.reviewer_agreement_key(%s::json, %s::json, %s)",
                                 (s, json.dumps(m), a)).fetchone()[0] for s, m, a in cases]
    py_keys = [agreement_key(draft_of(json.loads(s)), AgreementRule.from_meta(m), a) for s, m, a in cases]
    assert all(k and len(k) == 64 for k in sql_keys)
    wrong = [(cases[i], cases[j]) for i, j in itertools.combinations(range(len(cases)), 2)
             if (py_keys[i] == py_keys[j]) != (sql_keys[i] == sql_keys[j])]
    assert not wrong, f"{len(wrong)} pairs differ, e.g. {wrong[:3]}"
    # the set is not trivial: both relations hold many equal and many different pairs
    equal = sum(py_keys[i] == py_keys[j] for i, j in itertools.combinations(range(len(cases)), 2))
    assert equal > 100 and len(set(py_keys)) > 50


def _owner(team):
    return psycopg.connect(team.admin_url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True)


def _make_it_old(team, schema: str) -> None:
    """Put the team database back in the state `team init` left it in before issue 16's fixes:
    superuser-owned definer functions with the caller's path, table-level UPDATE on annotation,
    every sequence readable, annotators writing the audit log, keys from the client; and, as
    before the save race was fixed, no reviewer_lock_item (the app then saves without it)."""
    p = team.prefix
    everyone = f"{p}annotator, {p}adjudicator, {p}admin"
    with _owner(team) as conn:
        for f in ("reviewer_after_submission", "reviewer_annotation_guard", "reviewer_notify_review"):
            conn.execute(f"alter function {schema}.{f}() owner to current_user")
            conn.execute(f"alter function {schema}.{f}() set search_path = {schema}")
        for t in ("reviewer_first_submission", "reviewer_audit_annotation"):
            conn.execute(f"drop trigger {t} on {schema}.annotation")
        conn.execute(f"grant update on {schema}.annotation to {everyone}")
        conn.execute(f"grant usage, select on all sequences in schema {schema} to {everyone}")
        conn.execute(f"grant insert on {schema}.audit_log to {everyone}")
        conn.execute(f"drop function {schema}.reviewer_lock_item(bigint)")  # saves held no item lock


def test_team_init_again_upgrades_an_old_team_database_in_place(team):
    owner = Store(team.admin_url)
    summary = import_dataset(owner.engine, R.dataset([R.item(i, gold={"answer": f"A{i}"}) for i in range(3)]),
                             silent())
    ids = [owner.find_item("demo", f"q{i}").id for i in range(3)]
    with owner.engine.begin() as conn:
        conn.exec_driver_sql(
            "insert into assignment (dataset_id, item_id, annotator, created_at) "
            "select %(ds)s, unnest(cast(%(ids)s as int[])), unnest(cast(%(who)s as text[])), now()",
            {"ds": summary.dataset_id, "ids": ids[:2] * 2,
             "who": [team.logins["alice"]] * 2 + [team.logins["bob"]] * 2})
    owner.close()
    with _owner(team) as conn:
        schema = conn.execute("select current_schema()").fetchone()[0]
    _make_it_old(team, schema)
    agreed = Draft(verdict="pass", checks=dict(OK), ambiguity="low", difficulty="medium")
    # an old client's save: the key is the client's (Python's digest, not the database's)
    Review(team.store("alice")).annotate(ids[0], agreed, None, item_version=1)
    with _owner(team) as conn:
        client_key = conn.execute(f"select first_key from {schema}.annotation where item_id = %s",
                                  (ids[0],)).fetchone()[0]
    assert client_key == agreement_key(agreed, AgreementRule(), team.logins["alice"])

    for _ in range(2):  # idempotent: a second run changes nothing and fails on nothing
        done = reviewer_cli("team", "init", "--db", team.admin_url, "--prefix", team.prefix)
        assert done.returncode == 0, done.stderr

    definer = f"{team.prefix}definer"
    with _owner(team) as conn:
        functions = conn.execute(
            "select p.proname, r.rolname, r.rolsuper, r.rolcanlogin, p.prosecdef, p.proconfig from pg_proc p "
            "join pg_roles r on r.oid = p.proowner where p.pronamespace = %s::regnamespace "
            "and p.proname like 'reviewer\\_%%'", (schema,)).fetchall()
        ann = f"{team.prefix}annotator"
        rights = conn.execute(
            "select has_table_privilege(%(a)s, %(t)s, 'UPDATE'), has_column_privilege(%(a)s, %(t)s, 'note', 'UPDATE'),"
            " has_sequence_privilege(%(a)s, %(s)s, 'SELECT'), has_table_privilege(%(a)s, %(l)s, 'INSERT')",
            {"a": ann, "t": f"{schema}.annotation", "s": f"{schema}.annotation_id_seq",
             "l": f"{schema}.audit_log"}).fetchone()
        upgraded_key = conn.execute(f"select first_key from {schema}.annotation where item_id = %s",
                                    (ids[0],)).fetchone()[0]
        triggers = {r[0] for r in conn.execute(
            "select tgname from pg_trigger where tgrelid = %s::regclass and not tgisinternal",
            (f"{schema}.annotation",))}
    definers = {f[0]: f for f in functions if f[4]}
    assert set(definers) == {"reviewer_first_submission", "reviewer_annotation_guard", "reviewer_after_submission",
                             "reviewer_audit_annotation", "reviewer_notify_review", "reviewer_lock_item"}
    for name, owner_role, superuser, login, _, config in definers.values():
        assert (owner_role, superuser, login) == (definer, False, False), name
        assert f"search_path={schema}, pg_catalog, pg_temp" in config, (name, config)
    assert rights == (False, True, False, False)
    assert triggers >= {"reviewer_first_submission", "reviewer_audit_annotation", "reviewer_annotation_guard",
                        "reviewer_after_submission"}
    assert upgraded_key != client_key and len(upgraded_key) == 64  # recomputed by the database

    # the app works on the upgraded database: bob agrees with alice's pre-upgrade submission ->
    # unanimous (her key was recomputed in the database's form); then a disagreement -> disputed
    Review(team.store("bob")).annotate(ids[0], agreed, None, item_version=1)
    Review(team.store("alice")).annotate(ids[1], agreed, None, item_version=1)
    Review(team.store("bob")).annotate(ids[1], Draft(verdict="reject", checks=dict(OK, content_faithfulness=False),
                                                     ambiguity="medium", difficulty="hard"), None, item_version=1)
    carol = Review(team.store("carol"))
    assert carol.stage(ids[0]) == Stage.UNANIMOUS
    assert carol.stage(ids[1]) == Stage.DISPUTED
    assert [e.item_id for e in carol.queue(summary.dataset_id)] == [ids[1]]
    with _owner(team) as conn:
        audit = conn.execute(f"select actor, action from {schema}.audit_log where entity = 'annotation' "
                             "order by id").fetchall()
    alice, bob = team.logins["alice"], team.logins["bob"]
    # after the upgrade the database logs each save once, under its owner's name (the client
    # writes no annotation audit rows in team mode, so the pre-upgrade save left none)
    assert audit == [(bob, "submit"), (alice, "submit"), (bob, "submit")]


def test_a_team_members_audit_entries_carry_their_login_and_the_databases_clock(team):
    """Adjudicators (and admins) still write audit entries (adjudications, imports, rules), but
    the database stamps who and when: a backdated entry in another's name lands as theirs, now."""
    carol = team.logins["carol"]
    with psycopg.connect(team.url("carol").replace("postgresql+psycopg://", "postgresql://"),
                         autocommit=True) as conn:
        conn.execute("insert into audit_log (at, actor, entity, entity_id, action) "
                     "values ('2020-01-01', 'auto', 'adjudication', 1, 'unanimous')")
    with _owner(team) as conn:
        actor, age = conn.execute("select actor, abs(extract(epoch from at - (now() at time zone 'utc'))) "
                                  "from audit_log order by id desc limit 1").fetchone()
    assert actor == carol
    assert age < 60, f"the entry is dated {age} s from now"
