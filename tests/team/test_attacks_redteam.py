"""Red team: an annotator with psql attacks the team database's security boundary.

Every test connects as a given login (alice, an annotator) with plain psycopg, tries one
attack, and then asserts that its EFFECT did not happen: the owner's view of the review
tables is byte-identical, no secret string of bob's (or of an unassigned item) is in
anything alice got back, no role was gained.

Tests of holes found on this code are marked ``HOLE:``. They were ``xfail(strict=True)``
until fixed; the fixes of branches teamfix and protocol3 (issue 16) removed the marker of every hole,
so they now pass and guard against regressions.
"""

from __future__ import annotations

import json
from dataclasses import replace

import psycopg
import pytest
from sqlalchemy import text

from reviewer.jobs import silent
from reviewer.review import Draft, Review, Stage
from reviewer.review.protocol import AgreementRule, agreement_key
from reviewer.store import Store
from reviewer.store.importing import import_dataset
from reviewer.team.masking import masked_schema
from tests.store import records as R
from tests.team.test_team_protocol import OK, passed, rejected  # the drafts the protocol tests use

pytestmark = pytest.mark.postgres

BOB_SECRET = "bob-secret-note-7f3a"
UNASSIGNED = "UNASSIGNED-SECRET-q5"  # in the question and gold of q5 (nobody's item)
UNASSIGNED_CONTEXT = "UNASSIGNED-CONTEXT-q5"  # in q5's tool response


@pytest.fixture
def items(team):
    """q0..q3 shared by alice and bob, q4 bob's alone, q5 nobody's (its texts carry UNASSIGNED)."""
    owner = Store(team.admin_url)
    records = [R.item(i, gold={"answer": f"A{i}"}, context=f"tool response {i}") for i in range(5)]
    records.append(R.item(5, gold={"answer": UNASSIGNED}, question=f"{UNASSIGNED}?", category="EXTRACTIVE",
                          context=f"tool response of the fifth: {UNASSIGNED_CONTEXT}"))
    summary = import_dataset(owner.engine, R.dataset(records), silent())
    ids = [owner.find_item("demo", f"q{i}").id for i in range(6)]
    alice, bob = team.logins["alice"], team.logins["bob"]
    with owner.engine.begin() as conn:
        conn.execute(text("insert into assignment (dataset_id, item_id, annotator, created_at) "
                          "select :ds, unnest(cast(:ids as int[])), :who, now()"),
                     [{"ds": summary.dataset_id, "ids": ids[:4], "who": alice},
                      {"ds": summary.dataset_id, "ids": ids[:5], "who": bob}])
    owner.close()
    return summary.dataset_id, ids


def _pg(url: str):
    return psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True)


def _raw(team, person: str):
    """A plain psycopg connection as ``person`` (what they could do with psql)."""
    return _pg(team.url(person))


def _owner(team):
    return _pg(team.admin_url)


TABLES = ("item", "annotation", "adjudication", "item_review", "audit_log", "assignment", "dataset", "run",
          "output", "person", "blob", "score")


def _tables(team) -> dict:
    """Every table as the schema owner sees it, text form, to compare before/after byte for byte."""
    with _owner(team) as conn:
        return {t: json.dumps(conn.execute(f"select * from {t} order by 1").fetchall(), default=str)
                for t in TABLES}


def _schema(conn) -> str:
    return conn.execute("select current_schema()").fetchone()[0]


def _is_member(team, person: str, role: str) -> bool:
    with _owner(team) as conn:
        return conn.execute("select pg_has_role(%s, %s, 'MEMBER')",
                            (team.logins[person], f"{team.prefix}{role}")).fetchone()[0]


def _submit_raw(conn, schema: str, item_id: int, login: str, first_submission: dict, first_key: str,
                verdict: str = "pass") -> None:
    """alice's own first submission, written with psql into the real table (schema-qualified)."""
    conn.execute(
        f"insert into {schema}.annotation (item_id, annotator, verdict, rubric, error_tags, note, version, "
        "first_submission, first_key, created_at, updated_at) "
        "values (%s, %s, %s, '{}', '[]', 'mine', 1, %s, %s, now(), now())",
        (item_id, login, verdict, json.dumps(first_submission), first_key))


def _pass_key() -> str:
    return agreement_key(passed(), AgreementRule.from_meta({}), "")


def _bob_submits_secret(team, ids) -> None:
    bob = Review(team.store("bob"))
    bob.annotate(ids[0], rejected(BOB_SECRET), None, item_version=1)
    bob.annotate(ids[4], rejected(BOB_SECRET), None, item_version=1)


# --------------------------------------------------------------------------------------------
# HOLES
# --------------------------------------------------------------------------------------------

# HOLE: the SECURITY DEFINER trigger functions of reviewer.team.sql are created with
# ``SET search_path FROM CURRENT`` and that path does not name pg_temp, so PostgreSQL searches
# the caller's temporary schema FIRST for the unqualified tables they use (item_review,
# annotation, adjudication, audit_log, item). An annotator shadows ``item_review`` with a temp
# table carrying a trigger of her own; the definer function inserts into it and her trigger
# function runs as the function's owner (a superuser in `team init` as documented/tested):
# she reads every annotation (RLS bypassed) and grants herself the adjudicator role.
def test_temp_table_shadowing_runs_annotator_code_as_the_trigger_owner(team, items):
    _, ids = items
    _bob_submits_secret(team, ids)
    alice = team.logins["alice"]
    before = _tables(team)
    with _raw(team, "alice") as conn:
        schema = _schema(conn)
        conn.execute("create temp table loot (who text, note text)")
        conn.execute("create temp table item_review (item_id int primary key, stage text, version int, "
                     "updated_at timestamp)")
        conn.execute(f"""
            create function pg_temp.payload() returns trigger language plpgsql as $$
            begin
              insert into pg_temp.loot select annotator, note from {schema}.annotation;
              execute 'grant {team.prefix}adjudicator to {alice}';
              return null;
            end $$""")
        conn.execute("create trigger payload after insert or update on pg_temp.item_review "
                     "for each row execute function pg_temp.payload()")
        _submit_raw(conn, schema, ids[1], alice, {"verdict": "pass"}, _pass_key())
        stolen = json.dumps(conn.execute("select * from pg_temp.loot").fetchall())
    escalated = _is_member(team, "alice", "adjudicator")
    after = _tables(team)
    assert BOB_SECRET not in stolen, "alice read bob's note through code run as the trigger's owner"
    assert not escalated, "alice granted herself the adjudicator role"
    assert after["item_review"] != before["item_review"], "the real stage was never written (shadowed)"


# HOLE: the same shadowing with a temp ``annotation`` table: the definer trigger compares two
# first submissions alice made up, settles the item as unanimous and writes her gold into the
# real item and adjudication tables (an annotator settles an item and writes gold).
def test_temp_annotation_table_makes_the_trigger_settle_with_the_annotators_gold(team, items):
    _, ids = items
    alice, bob = team.logins["alice"], team.logins["bob"]
    evil = {"verdict": "fix", "fixed_gold": {"answer": "ALICE WROTE THIS GOLD"}, "rubric": {"ambiguity": "low"}}
    with _raw(team, "alice") as conn:
        schema = _schema(conn)
        conn.execute("create temp table annotation (id int, item_id int, annotator text, "
                     "first_submission json, first_key text)")
        conn.execute("insert into pg_temp.annotation values (1, %s, %s, %s, 'k'), (2, %s, %s, %s, 'k')",
                     (ids[2], alice, json.dumps(evil), ids[2], bob, json.dumps(evil)))
        _submit_raw(conn, schema, ids[2], alice, {"verdict": "pass"}, _pass_key())
    with _owner(team) as conn:
        gold = conn.execute("select gold::text from item where id = %s", (ids[2],)).fetchone()[0]
        adj = conn.execute("select count(*) from adjudication where item_id = %s", (ids[2],)).fetchone()[0]
    assert "ALICE WROTE THIS GOLD" not in gold and adj == 0
    assert Review(team.store("carol")).stage(ids[2]) == Stage.ONE_REVIEW


# HOLE: the guard trigger's "settled items refuse revisions" reads the unqualified
# ``item_review``; with an empty temp table of that name alice revises her annotation of a
# settled item.
def test_temp_item_review_lets_an_annotator_revise_a_settled_item(team, items):
    _, ids = items
    Review(team.store("alice")).annotate(ids[3], passed("alice first"), None, item_version=1)
    Review(team.store("bob")).annotate(ids[3], passed("bob first"), None, item_version=1)
    assert Review(team.store("carol")).stage(ids[3]) == Stage.UNANIMOUS
    before = _tables(team)
    with _raw(team, "alice") as conn:
        schema = _schema(conn)
        with pytest.raises(psycopg.errors.CheckViolation):  # refused without the trick
            conn.execute(f"update {schema}.annotation set note = 'changed after settlement' "
                         "where item_id = %s", (ids[3],))
        conn.execute("create temp table item_review (item_id int, stage text)")
        try:
            conn.execute(f"update {schema}.annotation set note = 'changed after settlement', verdict = 'reject' "
                         "where item_id = %s", (ids[3],))
        except psycopg.errors.CheckViolation:
            pass  # refused (the guard reads the real item_review); the table below is what counts
    assert _tables(team)["annotation"] == before["annotation"]


# HOLE: the agreement key that decides "unanimous" is computed by the client and stored as is
# (annotation.first_key); nothing checks it against first_submission. Alice stores a Fix with
# the key of a Pass; when bob passes, the trigger settles the item as unanimous with alice's
# (first) submission: verdict fix and her gold, though bob never agreed to any fix.
def test_a_forged_agreement_key_settles_the_item_with_the_forgers_gold(team, items):
    _, ids = items
    alice = team.logins["alice"]
    evil = {"verdict": "fix", "fixed_gold": {"answer": "FORGED GOLD"}, "rubric": {"ambiguity": "low"},
            "note": "", "error_tags": [], "patch": None, "version": 1}
    with _raw(team, "alice") as conn:
        _submit_raw(conn, _schema(conn), ids[1], alice, evil, _pass_key(), verdict="fix")
    Review(team.store("bob")).annotate(ids[1], passed("bob says the gold is right"), None, item_version=1)
    with _owner(team) as conn:
        gold = conn.execute("select gold::text from item where id = %s", (ids[1],)).fetchone()[0]
        stage = conn.execute("select stage from item_review where item_id = %s", (ids[1],)).fetchone()[0]
    assert "FORGED GOLD" not in gold
    assert stage == "disputed"


# HOLE (denial of service): annotators hold table-level UPDATE on ``annotation``, which lets
# them LOCK it IN ACCESS EXCLUSIVE MODE: every other session reading or writing annotations
# (the adjudicator's queue, the other annotators' saves) waits until her transaction ends.
def test_an_annotator_cannot_lock_everyone_out_of_annotations(team, items):
    _, ids = items
    with _raw(team, "alice") as alice, _raw(team, "carol") as carol:
        alice.autocommit = False
        try:
            alice.execute("lock table annotation in access exclusive mode")
            locked = True
        except psycopg.errors.InsufficientPrivilege:
            locked = False
            alice.rollback()
        carol.execute("set lock_timeout = '300ms'")
        try:
            carol.execute("select count(*) from annotation").fetchone()
            stalled = False
        except psycopg.errors.LockNotAvailable:
            stalled = True
        alice.rollback()
    assert not stalled, f"the adjudicator's read waited on alice's lock (lock taken: {locked})"


# HOLE: ``blob`` is readable by every role without row-level security, and holds the tool
# responses (contexts) and schemas of every item: alice reads the tool response of q5, an item
# not assigned to her.
def test_an_annotator_reads_no_tool_response_of_an_unassigned_item(team, items):
    with _raw(team, "alice") as conn:
        seen = json.dumps(conn.execute("select * from blob").fetchall())
    assert UNASSIGNED_CONTEXT not in seen


# HOLE (side channel): USAGE, SELECT on ALL sequences. ``annotation_id_seq.last_value`` moves
# whenever anyone saves an annotation, so alice watches bob work on items not assigned to her;
# nextval() on adjudication's sequence writes to a sequence she has no business with.
def test_sequences_tell_an_annotator_nothing_and_take_no_writes(team, items):
    _, ids = items
    with _raw(team, "alice") as conn:
        def observe():
            try:
                return conn.execute("select last_value, is_called from annotation_id_seq").fetchone()
            except psycopg.Error:
                return None
        seen_before = observe()
        Review(team.store("bob")).annotate(ids[4], rejected(BOB_SECRET), None, item_version=1)  # not alice's item
        seen_after = observe()
        try:
            conn.execute("select nextval('adjudication_id_seq')")
            advanced = True
        except psycopg.Error:
            advanced = False
    assert seen_before == seen_after, "alice saw bob's save on an item not assigned to her"
    assert not advanced


# HOLE: ``check_result`` (the quality guards' results) is readable by every role for every
# item, without row-level security. The grounding guard stores the gold values it looked for
# (details.values, and the summary when they are missing): alice reads the gold of q5, an
# item not assigned to her.
def test_an_annotator_reads_no_gold_of_an_unassigned_item_through_guard_results(team, items):
    from reviewer.guards.job import run_checks

    dataset_id, ids = items
    owner = Store(team.admin_url)
    run_checks(owner, dataset_id)
    owner.close()
    with _owner(team) as conn:  # the guards did store something about q5
        assert conn.execute("select count(*) from check_result where item_id = %s", (ids[5],)).fetchone()[0] > 0
    with _raw(team, "alice") as conn:
        seen = json.dumps(conn.execute("select * from check_result").fetchall(), default=str)
    assert UNASSIGNED not in seen


# HOLE (to confirm with the lead: a consequence of a dataset's rule): with the agreement rule
# "verdict" only, two Fixes with different golds are "unanimous" and the trigger writes the
# FIRST submitter's fixed gold into item.gold, which annotators read: alice reads bob's fix.
def test_a_verdict_only_rule_does_not_show_alice_bobs_fixed_gold(team, items):
    from reviewer.review.protocol import AgreementRule

    dataset_id, ids = items
    carol = Review(team.store("carol"))
    carol.set_rule(dataset_id, AgreementRule(rubric=False, fix=False))
    fix = Draft(verdict="fix", checks=dict(OK, content_faithfulness=False), ambiguity="low", difficulty="medium")
    Review(team.store("bob")).annotate(ids[2], replace(fix, fixed_gold={"answer": BOB_SECRET}),
                                       None, item_version=1)
    Review(team.store("alice")).annotate(ids[2], replace(fix, fixed_gold={"answer": "alice's"}),
                                         None, item_version=1)
    with _raw(team, "alice") as conn:
        seen = json.dumps(conn.execute("select * from item").fetchall(), default=str)
    assert BOB_SECRET not in seen


# HOLE: annotators hold INSERT on audit_log, limited only by ``actor = current_user``. Alice
# appends entries no change produced: that she adjudicated q5 (not even hers), backdated to
# 2020, and a run of "submit" entries that shape the per-annotator median seconds the
# adjudicators read (reviewer.review.assignment.progress). The audit log claims to record
# every change; under her own name it records whatever she writes.
def test_an_annotator_cannot_fabricate_audit_history(team, items):
    _, ids = items
    before = _tables(team)
    with _raw(team, "alice") as conn:
        for sql in (
            "insert into audit_log (at, actor, entity, entity_id, action, before, after) values "
            f"('2020-01-01', current_user, 'adjudication', {ids[5]}, 'adjudicate', null, "
            "'{\"verdict\": \"reject\", \"rationale\": \"alice settled it\"}')",
            "insert into audit_log (at, actor, entity, entity_id, action) select "
            "now() - make_interval(secs => g * 30), current_user, 'annotation', 999999, 'submit' "
            "from generate_series(1, 20) g",
        ):
            try:
                conn.execute(sql)
            except psycopg.Error:
                pass
    assert _tables(team)["audit_log"] == before["audit_log"]


# HOLE (denial of service): imports serialise on a transaction advisory lock keyed by
# hashtext('reviewer.import:dataset:<name>') (reviewer.store.importing). Advisory locks are
# open to every login, so an annotator holds that key in an idle session and the admin's
# import of that dataset waits for as long as she likes (here: until a 1 s lock_timeout).
def test_an_annotator_cannot_stall_an_admins_import(team, items):
    from reviewer.store.importing import import_dataset as do_import

    with _raw(team, "alice") as alice:
        alice.execute("select pg_advisory_lock(hashtext('reviewer.import:dataset:second'))")
        admin = Store(team.url("admin").replace("search_path%3D", "lock_timeout%3D1000%20-csearch_path%3D"))
        try:
            do_import(admin.engine, R.dataset([R.item(0)], name="second"), silent())
            imported, reason = True, ""
        except Exception as exc:  # noqa: BLE001  (the lock timeout, however the importer words it)
            imported, reason = False, str(exc)
        finally:
            admin.close()
    assert imported, f"the admin's import waited on alice's advisory lock: {reason}"


# HOLE (denial of service on the adjudicator): first_submission is any JSON the annotator
# writes; nothing checks its shape. A submission whose rubric is a string makes the
# adjudicator's queue raise (ValueError in Draft.from_stored) for the whole dataset, so no
# disputed item of it can be reached through the queue.
def test_a_malformed_first_submission_does_not_break_the_adjudicators_queue(team, items):
    dataset_id, ids = items
    with _raw(team, "alice") as conn:
        _submit_raw(conn, _schema(conn), ids[1], team.logins["alice"],
                    {"verdict": "pass", "rubric": "x", "error_tags": 5, "fixed_gold": None, "note": 7}, "zzz")
    Review(team.store("bob")).annotate(ids[1], passed("bob"), None, item_version=1)
    carol = Review(team.store("carol"))
    assert carol.stage(ids[1]) == Stage.DISPUTED
    try:
        queued = [e.item_id for e in carol.queue(dataset_id)]
    except Exception as exc:  # noqa: BLE001
        queued = [f"queue failed: {exc!r}"]
    assert queued == [ids[1]]


# --------------------------------------------------------------------------------------------
# REFUSED: attacks the database turns away (these pass on this code)
# --------------------------------------------------------------------------------------------

def _collect(conn, sql: str, params=None) -> str:
    try:
        rows = conn.execute(sql, params).fetchall()
        return json.dumps(rows, default=str)
    except psycopg.Error as exc:
        return f"ERROR {exc}"


def test_reading_bobs_annotation_through_every_channel_is_refused(team, items):
    dataset_id, ids = items
    Review(team.store("alice")).annotate(ids[0], passed("alice's own"), None, item_version=1)
    _bob_submits_secret(team, ids)
    with _owner(team) as conn:
        conn.execute("analyze annotation; analyze audit_log; analyze item; analyze blob")
    seen: list[str] = []
    with _raw(team, "alice") as conn:
        notices: list[str] = []
        conn.add_notice_handler(lambda d: notices.append(d.message_primary or ""))
        schema = _schema(conn)
        # a leaky function in the WHERE clause: RLS quals run first (the function is not leakproof)
        conn.execute("create function pg_temp.leak(t text) returns bool language plpgsql cost 0.0000001 as $$ "
                     "begin raise notice 'leak %', t; return true; end $$")
        attacks = [
            "select * from annotation", "select * from annotation where pg_temp.leak(note)",
            "select * from annotation where pg_temp.leak(first_submission::text)",
            "select * from audit_log", "select * from audit_log where pg_temp.leak(after::text)",
            "select * from adjudication", "select * from item_review",
            "select * from pg_stats where tablename in ('annotation', 'audit_log', 'adjudication')",
            "select * from pg_stats_ext",
            "select * from item", "select * from output", "select * from check_result",
            "select * from guard_override", "select * from score",
            f"select * from {masked_schema(schema)}.output where pg_temp.leak(text)",
            "explain (analyze, verbose, format json) select * from annotation",
            "select pg_notify('reviewer', 'x')",
            # a prepared join with the stage: only alice's own row
            "select a.note, r.stage from annotation a join item_review r using (item_id)",
            # unique-constraint oracle: bob's (item, annotator) pair; refused by the policy before the index
            f"insert into annotation (item_id, annotator, version, created_at, updated_at) "
            f"values ({ids[0]}, '{team.logins['bob']}', 1, now(), now()) on conflict do nothing returning *",
            f"insert into annotation (item_id, annotator, version, created_at, updated_at) "
            f"values ({ids[0]}, '{team.logins['bob']}', 1, now(), now()) "
            f"on conflict (item_id, annotator) do update set note = excluded.note returning *",
        ]
        for sql in attacks:
            seen.append(_collect(conn, sql))
        seen.extend(notices)
    everything = "\n".join(seen)
    assert BOB_SECRET not in everything
    assert "alice's own" in everything  # the attacks ran: her own row came back
    assert not [n for n in notices if BOB_SECRET in n]


def test_writes_outside_the_annotators_rights_change_nothing(team, items):
    dataset_id, ids = items
    Review(team.store("alice")).annotate(ids[0], passed("alice's own"), None, item_version=1)
    _bob_submits_secret(team, ids)
    alice, bob = team.logins["alice"], team.logins["bob"]
    before = _tables(team)
    with _raw(team, "alice") as conn:
        schema = _schema(conn)
        attempts = [
            # another's name
            f"insert into annotation (item_id, annotator, verdict, version, created_at, updated_at) "
            f"values ({ids[1]}, '{bob}', 'pass', 1, now(), now())",
            f"update annotation set annotator = '{bob}', item_id = {ids[1]} where annotator = '{alice}'",
            f"update annotation set note = 'x' where annotator = '{bob}'",
            "insert into audit_log (at, actor, entity, action) values (now(), 'auto', 'adjudication', 'x')",
            f"insert into audit_log (at, actor, entity, action) values (now(), '{bob}', 'annotation', 'submit')",
            f"update audit_log set actor = '{bob}'", "delete from audit_log", "delete from annotation",
            # changing her first submission
            "update annotation set first_submission = '{\"verdict\": \"reject\"}', first_key = 'x'",
            # settling, gold, assignments, options
            f"insert into adjudication (item_id, verdict, resolution, version, created_at, updated_at) "
            f"values ({ids[0]}, 'pass', 'manual', 1, now(), now())",
            f"update item set gold = '\"alice\"' where id = {ids[0]}",
            f"insert into item_review (item_id, stage, version, updated_at) values ({ids[2]}, 'adjudicated', 1, now())",
            f"update item_review set stage = 'adjudicated' where item_id = {ids[0]}",
            f"insert into assignment (dataset_id, item_id, annotator, created_at) "
            f"values ({dataset_id}, {ids[5]}, '{alice}', now())",
            f"update assignment set item_id = {ids[5]} where annotator = '{alice}'",
            "update dataset set meta = '{\"review\": {\"blind_models\": false, \"agreement\": [\"verdict\"]}}'",
            f"insert into annotation (item_id, annotator, verdict, version, created_at, updated_at) "
            f"values ({ids[5]}, '{alice}', 'pass', 1, now(), now())",
            "truncate annotation", "truncate audit_log",
            # owning objects, DDL, privileges
            f"create table {schema}.mine (x int)", f"create view {schema}.item_review2 as select 1",
            f"create table {masked_schema(schema)}.run2 (x int)",
            f"create function {schema}.now() returns timestamptz language sql as 'select now()'",
            "create table public.annotation (x int)",
            "alter table annotation disable trigger reviewer_annotation_guard",
            "drop trigger reviewer_after_submission on annotation",
            "alter function reviewer_after_submission() security invoker",
            "create or replace function reviewer_annotation_guard() returns trigger language plpgsql "
            "as $$ begin return new; end $$",
            "alter table annotation disable row level security",
            "drop policy own_annotations on annotation",
            f"set role {team.prefix}adjudicator", f"set role {bob}", f"set session authorization {bob}",
            f"grant {team.prefix}adjudicator to {alice}", f"grant {team.prefix}admin to {alice}",
            f"alter role {alice} superuser", f"alter role {alice} createrole",
            f"create role {alice}_x login",
            f"select setval('item_id_seq', 1)",
            "select reviewer_after_submission()",
            f"create trigger t after insert on {schema}.annotation for each row execute function "
            "reviewer_notify_review()",
            f"comment on table {schema}.annotation is 'alice was here'",
            "lock table adjudication in access exclusive mode",
        ]
        outcomes = []
        for sql in attempts:
            try:
                conn.execute(sql)
                outcomes.append((sql, "ran"))
            except psycopg.Error as exc:
                outcomes.append((sql, exc.__class__.__name__))
                assert BOB_SECRET not in str(exc)
        still_annotator = conn.execute("select current_user, session_user").fetchone()
    after = _tables(team)
    for table in TABLES:
        if table == "annotation":
            continue
        assert after[table] == before[table], f"{table} changed"
    assert after["annotation"] == before["annotation"]  # her first submission is frozen too
    assert still_annotator == (alice, alice)
    assert not _is_member(team, "alice", "adjudicator") and not _is_member(team, "alice", "admin")
    ran = [s for s, o in outcomes if o == "ran"]
    # the only statements that "ran" touched nothing (0 rows through RLS or the frozen-first guard)
    assert set(ran) <= {
        f"update annotation set note = 'x' where annotator = '{bob}'",
        f"update audit_log set actor = '{bob}'", "delete from audit_log", "delete from annotation",
        "update annotation set first_submission = '{\"verdict\": \"reject\"}', first_key = 'x'",
        f"update annotation set annotator = '{bob}', item_id = {ids[1]} where annotator = '{alice}'",
        f"update item_review set stage = 'adjudicated' where item_id = {ids[0]}",
        f"update assignment set item_id = {ids[5]} where annotator = '{alice}'",
    }, ran
    with _owner(team) as conn:
        owner = conn.execute("select obj_description(%s::regclass)", ("annotation",)).fetchone()[0]
    assert owner is None


def test_an_annotator_reads_no_unassigned_item_through_tables_views_or_stats(team, items):
    _, ids = items
    with _owner(team) as conn:
        conn.execute("analyze item; analyze output; analyze item_review")
    with _raw(team, "alice") as conn:
        schema = _schema(conn)
        seen = [_collect(conn, sql) for sql in (
            "select * from item", f"select * from item where id = {ids[5]}",
            "select * from item_review", "select * from assignment", "select * from output",
            f"select * from {masked_schema(schema)}.output",
            "select * from pg_stats where tablename = 'item'",
            f"select * from item where question like '{UNASSIGNED[:10]}%'",
        )]
        count = conn.execute("select count(*) from item").fetchone()[0]
    assert UNASSIGNED not in "\n".join(seen)
    assert count == 4


def test_notify_payloads_carry_nothing_and_listeners_see_only_that_something_changed(team, items):
    _, ids = items
    with _raw(team, "alice") as conn:
        conn.execute("listen reviewer")
        _bob_submits_secret(team, ids)
        got = [(n.channel, n.payload) for n in conn.notifies(timeout=1.0, stop_after=5)]
    assert got and all(payload == "" for _, payload in got)


# --------------------------------------------------------------------------------------------
# The suggested fix for the shadowing and lock holes, applied by the owner here to prove it
# holds (and that the app still works under it); the lead folds it into reviewer.team.sql.
# --------------------------------------------------------------------------------------------

def test_suggested_fix_pg_temp_last_and_column_level_update_stop_shadowing_and_the_lock(team, items):
    _, ids = items
    _bob_submits_secret(team, ids)
    p = team.prefix
    with _owner(team) as conn:
        s = _schema(conn)
        for f in ("reviewer_after_submission", "reviewer_annotation_guard", "reviewer_notify_review"):
            conn.execute(f"alter function {s}.{f}() set search_path = {s}, pg_catalog, pg_temp")
        conn.execute(f"revoke update on {s}.annotation from {p}annotator, {p}adjudicator, {p}admin")
        conn.execute(f"grant update (verdict, rubric, error_tags, note, patch, fixed_gold, version, first_submission, "
                     f"first_key, updated_at) on {s}.annotation to {p}annotator, {p}adjudicator, {p}admin")
    alice = team.logins["alice"]
    with _raw(team, "alice") as conn:
        conn.execute("create temp table loot (who text, note text)")
        conn.execute("create temp table item_review (item_id int primary key, stage text, version int, "
                     "updated_at timestamp)")
        conn.execute(f"""
            create function pg_temp.payload() returns trigger language plpgsql as $$
            begin
              insert into pg_temp.loot select annotator, note from {s}.annotation;
              execute 'grant {p}adjudicator to {alice}';
              return null;
            end $$""")
        conn.execute("create trigger payload after insert or update on pg_temp.item_review "
                     "for each row execute function pg_temp.payload()")
        _submit_raw(conn, s, ids[1], alice, {"verdict": "pass"}, _pass_key())
        stolen = json.dumps(conn.execute("select * from pg_temp.loot").fetchall())
        conn.autocommit = False
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("lock table annotation in access exclusive mode")
        conn.rollback()
    assert stolen == "[]" and not _is_member(team, "alice", "adjudicator")
    assert Review(team.store("carol")).stage(ids[1]) == Stage.ONE_REVIEW  # the real stage was written
    bob = Review(team.store("bob"))
    # the app's own writes still work; the database computes the keys from the rows themselves
    # (teamfix, hole 4), so bob agrees with what alice's row holds: a Pass with an empty rubric
    bob.annotate(ids[1], Draft(verdict="pass", note="bob agrees"), None, item_version=1)
    mine = Review(team.store("alice")).snapshot(ids[1]).mine
    assert Review(team.store("carol")).stage(ids[1]) == Stage.UNANIMOUS and mine is not None
