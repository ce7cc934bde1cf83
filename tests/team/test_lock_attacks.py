"""Review of 9cf83a8 ("break this"): reviewer_lock_item(bigint), the SECURITY DEFINER function an
annotator's save calls to hold its item, and _reviewed_gold placing tool-written annotations by
their updated_at.

Every attack asserts on its EFFECT: the review tables as the schema owner sees them are
unchanged, the row is free (the owner's ``FOR UPDATE NOWAIT`` gets it), the decider's write went
through, the gold after a settlement is the one the annotators reviewed. The five holes found here
(settled items lockable, a decider made the deadlock victim, a disputed item held without bound,
deciders who annotate refused, audit times off by the session's TimeZone) were strict xfails until
the commit that fixed them; all tests now guard against their return.
"""

from __future__ import annotations

import json
import threading
import time
from datetime import UTC, datetime

import psycopg
import pytest
from sqlalchemy import text

from reviewer.errors import StaleWrite
from reviewer.jobs import silent
from reviewer.review import Draft, Review, Stage
from reviewer.review.core import ProtocolViolation
from reviewer.store import Store
from reviewer.store.importing import import_dataset
from reviewer.store.models import Annotation, ItemReview
from tests.store import records as R
from tests.team.test_adjreview_team import LOW, _settle, _waiting_on_a_lock, fixed
from tests.team.test_team_protocol import items, passed  # noqa: F401  (items: q0..q3 alice+bob, q4 bob, q5 nobody)

postgres = pytest.mark.postgres
TABLES = ("item", "annotation", "adjudication", "item_review", "audit_log", "assignment")


def rejected(note="no") -> Draft:
    return Draft(verdict="reject", ambiguity="low", note=note)


def _pg(url: str, autocommit: bool = True, **kw):
    return psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), autocommit=autocommit, **kw)


def _raw(team, person: str, autocommit: bool = True):
    """A plain psycopg connection as ``person`` (what they could do with psql)."""
    return _pg(team.url(person), autocommit)


def _owner(team):
    return _pg(team.admin_url)


def _tables(team) -> dict:
    with _owner(team) as conn:
        return {t: json.dumps(conn.execute(f"select * from {t} order by 1").fetchall(), default=str) for t in TABLES}


def _free(team, item_id: int) -> bool:
    """Whether no other transaction holds any row lock on the item (FOR UPDATE conflicts with all)."""
    with _pg(team.admin_url, autocommit=False) as conn:
        try:
            conn.execute("select 1 from item where id = %s for update nowait", (item_id,))
            return True
        except psycopg.errors.LockNotAvailable:
            return False
        finally:
            conn.rollback()


def _lock(conn, item_id) -> bool:
    return conn.execute("select reviewer_lock_item(%s)", (item_id,)).fetchone()[0]


def _settle_all(team, ids, alice_draft, bob_draft):
    alice, bob = (Review(team.store(p)) for p in ("alice", "bob"))
    for i in ids:
        alice.annotate(i, alice_draft, None, item_version=1)
        bob.annotate(i, bob_draft, None, item_version=1)


# ------------------------------------------------------------------------------------------------
# Probing items not assigned to the caller: return value, errors, blocking, plan
# ------------------------------------------------------------------------------------------------

@postgres
def test_unassigned_missing_and_odd_ids_look_alike_and_lock_nothing(team, items):
    """alice calls the function on bob's q4, nobody's q5, ids that do not exist and odd values:
    every answer is False, nothing is locked while her transaction stays open, and carol holding
    q4/q5 (editing them) does not make alice's calls wait (no oracle of others' activity)."""
    _, ids = items
    before = _tables(team)
    missing = [max(ids) + 1000, 0, -1, 2**63 - 1]
    with _raw(team, "carol", autocommit=False) as carol, _raw(team, "alice", autocommit=False) as alice:
        carol.execute("update item set version = version where id = any(%s)", ([ids[4], ids[5]],))  # holds them
        alice.execute("set lock_timeout = '300ms'")
        answers = [_lock(alice, i) for i in (ids[4], ids[5], *missing, None)]
        answers += [alice.execute(f"select reviewer_lock_item({lit})").fetchone()[0]
                    for lit in (f"'{ids[4]}'", f"{ids[4]}::int", f"{ids[4]}::smallint")]
        assert answers == [False] * len(answers)
        errors = set()
        for bad in (f"{2**63}", "'x'", f"{ids[4]}.0", f"'{ids[4]}'::text"):
            try:
                alice.execute(f"select reviewer_lock_item({bad})")
            except psycopg.Error as e:
                errors.add(type(e).__name__)
            alice.rollback()
            alice.execute("set lock_timeout = '300ms'")
        assert errors <= {"NumericValueOutOfRange", "InvalidTextRepresentation", "UndefinedFunction"}
        carol.rollback()
        for i in ids[4:]:
            assert _free(team, i)
        alice.rollback()
    assert _tables(team) == before


@postgres
def test_the_item_row_is_not_even_read_for_an_unassigned_id(team, items):
    """No timing oracle on the item table: for an id not assigned to the caller the assignment
    probe is a one-time filter and the item's index scan never runs (auto_explain on the
    function's statement, with session_user = alice). The probe of ``assignment`` itself does
    read one more heap row when the id is someone else's, as the row-level security policies
    every annotator query runs already did before this change."""
    _, ids = items
    with _owner(team) as su:
        plans = []
        su.add_notice_handler(lambda d: plans.append(d.message_primary or ""))
        su.execute("load 'auto_explain'")
        for s in ("log_min_duration = 0", "log_nested_statements = on", "log_analyze = on"):
            su.execute("set auto_explain." + s)
        su.execute("set client_min_messages = log")
        su.execute(f"set session authorization {team.logins['alice']}")
        seen = {}
        for label, i in (("mine", ids[0]), ("bob's", ids[4]), ("nobody's", ids[5]), ("missing", max(ids) + 99)):
            plans.clear()
            su.execute("select reviewer_lock_item(%s)", (i,)).fetchone()
            inner = next(p for p in plans if "FOR UPDATE OF i" in p)
            scan = next(line for line in inner.splitlines() if "item_pkey on item" in line)
            seen[label] = "never executed" in scan
        su.execute("reset session authorization")
    assert seen == {"mine": False, "bob's": True, "nobody's": True, "missing": True}


# ------------------------------------------------------------------------------------------------
# Redirecting the lock: search_path, temporary objects, overloads, casts
# ------------------------------------------------------------------------------------------------

@postgres
def test_temp_tables_search_path_and_overloads_do_not_redirect_the_lock(team, items):
    """alice shadows ``item`` and ``assignment`` with temporary tables claiming q4 and q5 are
    hers, puts pg_temp first on her path and calls the function, and tries to plant overloads
    (smallint: what psycopg sends for small ints, so it would win over bigint) in every schema
    on an annotator's path: the function reads only the real tables, nothing is planted."""
    _, ids = items
    before = _tables(team)
    with _raw(team, "alice", autocommit=False) as alice:
        schema = alice.execute("select current_schema()").fetchone()[0]
        alice.execute("create temp table item (id bigint primary key, gold json)")
        alice.execute("create temp table assignment (item_id bigint, annotator text)")
        alice.execute("insert into pg_temp.item select unnest(%s::bigint[]), '{}'", ([ids[4], ids[5]],))
        alice.execute("insert into pg_temp.assignment select unnest(%s::bigint[]), session_user",
                      ([ids[4], ids[5]],))
        alice.execute(f"set search_path = pg_temp, {schema}_blind, {schema}, public")
        assert [_lock(alice, i) for i in (ids[4], ids[5])] == [False, False]
        assert _free(team, ids[4]) and _free(team, ids[5])
        alice.rollback()
        refused = 0
        for where in (schema, f"{schema}_blind", "public"):
            for arg in ("smallint", "integer", "numeric", "bigint"):
                try:
                    alice.execute(f"create function {where}.reviewer_lock_item(t {arg}) returns boolean "
                                  "language sql as 'select true'")
                except psycopg.errors.InsufficientPrivilege:
                    refused += 1
                alice.rollback()
        assert refused == 12
    with _owner(team) as conn:
        found = conn.execute("select n.nspname, pg_get_function_identity_arguments(p.oid) from pg_proc p "
                             "join pg_namespace n on n.oid = p.pronamespace where p.proname = 'reviewer_lock_item'"
                             ).fetchall()
    assert found == [(schema, "target bigint")]
    assert _tables(team) == before


@postgres
def test_a_save_through_the_app_with_a_hostile_path_still_locks_the_real_item(team, items):
    """The app resolves ``reviewer_lock_item`` through the connection's path; an annotator who
    controls her own client only fools her own session. Bob's app (his own connection) is not
    affected by anything alice leaves in hers: his save still takes the real lock."""
    _, ids = items
    with _raw(team, "alice", autocommit=False) as alice:
        alice.execute("create function pg_temp.reviewer_lock_item(t bigint) returns boolean "
                      "language sql as 'select true'")
        bob = Review(team.store("bob"))
        with bob.store.engine.begin() as conn:
            from reviewer.review import core

            core._lock_item(conn, ids[4], True)
            assert not _free(team, ids[4])  # bob holds the real row
        alice.rollback()
    assert _free(team, ids[4])


# ------------------------------------------------------------------------------------------------
# Whose lock: session_user
# ------------------------------------------------------------------------------------------------

@postgres
@pytest.mark.parametrize("how", ["set session authorization {bob}", "set role {bob}",
                                 "options:-c session_authorization={bob}", "options:-c role={bob}"])
def test_an_annotator_cannot_borrow_another_logins_session_identity(team, items, how):
    """alice tries to become bob for session_user (SET SESSION AUTHORIZATION, SET ROLE, or the
    same as connection options) to lock q4, bob's item: refused, and q4 stays free."""
    _, ids = items
    before = _tables(team)
    stmt = how.format(bob=team.logins["bob"])
    got = None
    try:
        if stmt.startswith("options:"):
            url = team.url("alice").replace("postgresql+psycopg://", "postgresql://")
            with psycopg.connect(url, options=stmt[len("options:"):], autocommit=False) as conn:
                got = _lock(conn, ids[4])
                assert _free(team, ids[4])
        else:
            with _raw(team, "alice", autocommit=False) as conn:
                conn.execute(stmt)
                got = _lock(conn, ids[4])
                assert _free(team, ids[4])
    except psycopg.errors.InsufficientPrivilege:
        pass
    except psycopg.OperationalError as e:  # refused at connection
        assert "permission denied" in str(e)
    assert got in (None, False)
    assert _free(team, ids[4]) and _tables(team) == before


@postgres
def test_a_login_spelled_like_alice_cannot_lock_her_items(team, items):
    """An annotator login whose name differs from alice's only by case or a trailing space
    (quoted identifiers): session_user compares exactly with assignment.annotator."""
    _, ids = items
    alice = team.logins["alice"]
    twins = [alice.upper(), alice + " "]
    try:
        with _owner(team) as conn:
            for name in twins:
                conn.execute(f'create role "{name}" login')
                conn.execute(f'grant {team.prefix}annotator to "{name}"')
        for name in twins:
            with psycopg.connect(team.url("alice").replace("postgresql+psycopg://", "postgresql://"),
                                 user=name, autocommit=False) as conn:
                assert conn.execute("select session_user").fetchone()[0] == name
                assert [_lock(conn, i) for i in ids[:4]] == [False] * 4
                assert all(_free(team, i) for i in ids[:4])
    finally:
        with _owner(team) as conn:
            for name in twins:
                conn.execute(f'drop owned by "{name}" cascade')
                conn.execute(f'drop role if exists "{name}"')


@postgres
def test_assignments_are_not_locked_and_an_unassigned_annotator_locks_no_more(team, items):
    """While alice holds q0, the admin can take q0 away from her (assignment rows are only read);
    her next call on q0 is refused."""
    _, ids = items
    with _raw(team, "alice", autocommit=False) as alice, _raw(team, "admin", autocommit=False) as admin:
        assert _lock(alice, ids[0])
        admin.execute("set lock_timeout = '1s'")
        admin.execute("delete from assignment where item_id = %s and annotator = %s", (ids[0], team.logins["alice"]))
        admin.commit()
        alice.rollback()
        assert not _lock(alice, ids[0]) and _free(team, ids[0])
        alice.rollback()


# ------------------------------------------------------------------------------------------------
# Stalling deciders and the other annotator
# ------------------------------------------------------------------------------------------------

@postgres
def test_before_this_change_a_settled_item_gave_its_annotator_no_lock(team, items):
    """Baseline for the hole below: on an item she has annotated and that is settled, alice's
    own writes (revise, insert again) are refused before touching the item row."""
    _, ids = items
    _settle_all(team, ids[:1], passed(), passed())
    with _raw(team, "alice", autocommit=False) as alice:
        for sql in ("update annotation set note = 'x' where item_id = %s",
                    "insert into annotation (item_id, annotator, verdict, version, created_at, updated_at) "
                    "values (%s, session_user, 'pass', 1, now(), now())"):
            alice.execute("savepoint s")
            with pytest.raises(psycopg.Error):
                alice.execute(sql, (ids[0],))
            alice.execute("rollback to savepoint s")
        assert _free(team, ids[0])
        alice.rollback()


@postgres
def test_an_annotator_cannot_hold_a_settled_item(team, items):
    """q0 is unanimous (settled). alice, in psql: begin; select reviewer_lock_item(q0); and idles.
    Her app never saves a settled item (annotate refuses it after locking), so the lock serves
    nothing; before this change she had no way to lock it (baseline test above). Carol's gold
    edit of q0 now waits until alice ends her transaction."""
    _, ids = items
    _settle_all(team, ids[:1], passed(), passed())
    carol = Review(team.store("carol"))
    with _raw(team, "alice", autocommit=False) as alice:
        held = _lock(alice, ids[0])
        edit = threading.Thread(target=carol.set_gold, args=(ids[0], {"answer": "corrected"}, 1, "typo"))
        edit.start()
        stalled = _waiting_on_a_lock(team, "carol", edit)
        alice.rollback()
        edit.join(30)
    assert (held, stalled) == (False, False)


@postgres
def test_an_annotator_cannot_make_a_deciders_score_save_deadlock(team, items):
    """q0..q3 are unanimous. alice locks q3; carol's score save locks q0..q3 in id order (as
    reviewer.scoring.job._save does) and waits on q3; alice then locks q0. carol waited first, so
    her deadlock check runs first and aborts HER transaction: the scores are lost."""
    _, ids = items
    _settle_all(team, ids[:4], passed(), passed())
    outcome = {}
    with _raw(team, "alice", autocommit=False) as alice, _raw(team, "carol", autocommit=False) as carol:
        _lock(alice, ids[3])

        def score_save():
            try:
                carol.execute("select id, version from item where id = any(%s) order by id for update",
                              (sorted(ids[:4]),)).fetchall()
                outcome["carol"] = "locked"
            except psycopg.Error as e:
                outcome["carol"] = type(e).__name__
            carol.rollback()

        worker = threading.Thread(target=score_save)
        worker.start()
        _waiting_on_a_lock(team, "carol", worker)
        try:
            _lock(alice, ids[0])
        except psycopg.Error as e:
            outcome["alice"] = type(e).__name__
        alice.rollback()
        worker.join(30)
    assert outcome.get("carol") == "locked", outcome


@postgres
def test_an_annotator_holding_a_disputed_item_stalls_others_only_briefly(team, items):
    """q0 is disputed: alice and bob both submitted, so before reviewer_lock_item neither could lock
    it. alice may still revise it, so the function locks it for her, and from psql she can hold it
    and idle. carol's adjudication and bob's revision wait ITEM_LOCK_WAIT_S at most, then are refused
    with ItemBusy, writing nothing, while alice still holds the item."""
    from reviewer.errors import ItemBusy

    _, ids = items
    alice_r, bob, carol = (Review(team.store(p)) for p in ("alice", "bob", "carol"))
    alice_r.annotate(ids[0], passed(), None, item_version=1)
    mine = bob.annotate(ids[0], rejected(), None, item_version=1)
    assert carol.stage(ids[0]) is Stage.DISPUTED
    snap = carol.snapshot(ids[0])
    args = (ids[0], "reject", None, "unanswerable", dict(LOW), None, snap.item_version,
            {a.annotator: a.version for a in snap.others})
    errors = []

    def run(fn, *a):
        try:
            fn(*a)
        except Exception as e:  # noqa: BLE001 - asserted below
            errors.append(e)

    before = _tables(team)
    with _raw(team, "alice", autocommit=False) as alice:
        assert _lock(alice, ids[0])
        workers = [threading.Thread(target=run, args=(carol.adjudicate, *args)),
                   threading.Thread(target=run, args=(bob.annotate, ids[0], rejected("revised"), mine.version, 1))]
        for w in workers:
            w.start()
        for w in workers:
            w.join(60)
        finished_while_held = [not w.is_alive() for w in workers]
        alice.rollback()
    assert finished_while_held == [True, True]
    assert [type(e) for e in errors] == [ItemBusy, ItemBusy], errors
    assert "held by another session" in str(errors[0]) and "nothing was written" in str(errors[0])
    assert _tables(team) == before


# ------------------------------------------------------------------------------------------------
# Honest concurrency: no deadlock between saves, edits and settlements
# ------------------------------------------------------------------------------------------------

def _race(*calls):
    """Run the calls at once; return their exceptions (None: succeeded)."""
    barrier = threading.Barrier(len(calls))
    out = [None] * len(calls)

    def run(n, fn, args):
        try:
            barrier.wait(10)
            fn(*args)
        except Exception as e:  # noqa: BLE001 - classified by the caller
            out[n] = e

    workers = [threading.Thread(target=run, args=(n, fn, args)) for n, (fn, args) in enumerate(calls)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert not any(w.is_alive() for w in workers)
    return out


def _no_deadlock(errors):
    for e in errors:
        assert e is None or isinstance(e, (StaleWrite, ProtocolViolation)), repr(e)
        assert "deadlock" not in str(e or "").lower()


@postgres
def test_first_submissions_unanimous_fix_and_gold_edits_at_once_never_deadlock(team, items):
    """Each of q0..q3, several times over fresh items: alice and bob submit (identical Fixes: the
    trigger writes the unanimous fix; or Pass vs Reject) while carol edits the gold. Every outcome
    is a success or a clean StaleWrite; the gold the annotators reviewed is A<n> whenever both
    submissions landed before carol's edit."""
    _, ids = items
    alice, bob, carol = (Review(team.store(p)) for p in ("alice", "bob", "carol"))
    for n, i in enumerate(ids[:4]):
        drafts = (fixed({"answer": "Z"}), fixed({"answer": "Z"})) if n % 2 == 0 else (passed(), rejected())
        errors = _race((alice.annotate, (i, drafts[0], None, 1)), (bob.annotate, (i, drafts[1], None, 1)),
                       (carol.set_gold, (i, {"answer": f"edit {n}"}, 1, "typo")))
        _no_deadlock(errors)
        if errors[2] is not None and errors[0] is None and errors[1] is None:  # both saved, carol stale
            assert carol.reviewed_gold(i).gold == {"answer": f"A{i - ids[0]}"}


@postgres
def test_revisions_adjudication_and_gold_edits_at_once_never_deadlock(team, items):
    """Disputed q0..q3: alice and bob revise while carol adjudicates and edits the gold, at once,
    a few rounds. Nothing deadlocks; a settled item takes no revision afterwards."""
    _, ids = items
    alice, bob, carol = (Review(team.store(p)) for p in ("alice", "bob", "carol"))
    for i in ids[:4]:
        alice.annotate(i, fixed({"answer": "X"}), None, item_version=1)
        bob.annotate(i, passed(), None, item_version=1)
    for i in ids[:4]:
        for round_ in range(2):
            a, b, snap = alice.snapshot(i), bob.snapshot(i), carol.snapshot(i)
            errors = _race(
                (alice.annotate, (i, fixed({"answer": f"X{round_}"}), a.mine.version, None)),
                (bob.annotate, (i, passed(f"r{round_}"), b.mine.version, None)),
                (carol.set_gold, (i, {"answer": f"e{round_}"}, snap.item_version, "typo")),
                (carol.adjudicate, (i, "reject", None, "no", dict(LOW), None, None, None)),
            )
            _no_deadlock(errors)
    assert all(carol.stage(i) is Stage.ADJUDICATED for i in ids[:4])


# ------------------------------------------------------------------------------------------------
# Deciders who annotate
# ------------------------------------------------------------------------------------------------

def _assign(team, item_id, person):
    with _owner(team) as conn:
        conn.execute("insert into assignment (dataset_id, item_id, annotator, created_at) "
                     "select dataset_id, id, %s, now() from item where id = %s", (team.logins[person], item_id))


@postgres
@pytest.mark.parametrize("person", ["carol", "admin"])
def test_without_the_function_a_decider_annotates_an_item_assigned_to_them(team, items, person):
    """Baseline for the hole below: on a team database without reviewer_lock_item (as before
    9cf83a8), an adjudicator or admin assigned an item saves their annotation of it."""
    _, ids = items
    with _owner(team) as conn:
        schema = conn.execute("select current_schema()").fetchone()[0]
        conn.execute(f"drop function {schema}.reviewer_lock_item(bigint)")
    _assign(team, ids[5], person)
    view = Review(team.store(person)).annotate(ids[5], passed(), None, item_version=1)
    assert view.annotator == team.logins[person]


@postgres
@pytest.mark.parametrize("person", ["carol", "admin"])
def test_a_decider_assigned_an_item_can_still_annotate_it(team, items, person):
    _, ids = items
    _assign(team, ids[5], person)
    Review(team.store(person)).annotate(ids[5], passed(), None, item_version=1)
    with _owner(team) as conn:
        assert conn.execute("select count(*) from annotation where item_id = %s and annotator = %s",
                            (ids[5], team.logins[person])).fetchone()[0] == 1


# ------------------------------------------------------------------------------------------------
# _reviewed_gold: annotations with no audit entry, placed by updated_at
# ------------------------------------------------------------------------------------------------

@postgres
@pytest.mark.parametrize("zone", ["Asia/Tokyo", "Europe/Berlin"])
def test_team_dispute_edit_by_a_decider_outside_utc_then_reject(team, items, zone):
    """Annotations written by another tool (no audit entry: before `team init`, or with triggers
    off) are placed by updated_at, an absolute time (timestamptz). carol's login has TimeZone
    ``zone`` (ALTER ROLE ... SET timezone, or the server's own timezone, which initdb takes from
    the system): reviewer_audit_stamp writes ``now() AT TIME ZONE 'utc'`` into audit_log.at, which
    PostgreSQL reads as ``zone`` wall time, i.e. 9 h (1-2 h) before the real time. carol edits
    the gold in the dispute, then settles as Reject: the edit is taken for one the annotators saw,
    and stays."""
    _, ids = items
    q = ids[0]
    with _pg(team.admin_url, autocommit=False) as conn:
        conn.execute(f"alter role {team.logins['carol']} set timezone = '{zone}'")
        conn.execute("set local session_replication_role = replica")  # no trigger: no audit entry
        for who, verdict in ((team.logins["alice"], "pass"), (team.logins["bob"], "reject")):
            conn.execute("insert into annotation (item_id, annotator, verdict, rubric, error_tags, note, version, "
                         "first_submission, first_key, created_at, updated_at) "
                         "values (%s, %s, %s, '{\"ambiguity\": \"low\"}', '[]', 'tool', 1, '{}', %s, %s, %s)",
                         (q, who, verdict, verdict, datetime.now(UTC), datetime.now(UTC)))
        conn.execute("insert into item_review (item_id, stage, version, updated_at) values (%s, 'disputed', 1, now())",
                     (q,))
        conn.commit()
    carol = Review(team.store("carol"))
    carol.set_gold(q, {"answer": "edited in the dispute"}, 1, "typo")
    with _owner(team) as conn:  # the edit's audit time against the annotations' (both timestamptz)
        skew = conn.execute("select extract(epoch from (select max(at) from audit_log where entity = 'item') - "
                            "(select max(updated_at) from annotation where item_id = %s))", (q,)).fetchone()[0]
    _settle(carol, q, "reject", why="unanswerable")
    with _owner(team) as conn:
        gold = conn.execute("select gold from item where id = %s", (q,)).fetchone()[0]
    assert gold == {"answer": "A0"}, f"edit dated {skew:.0f} s after the annotations"


@pytest.fixture
def sqlite_store(tmp_path):
    s = Store(str(tmp_path / "reviewer.sqlite3"))
    yield s
    s.close()


def test_sqlite_tool_annotation_with_an_offset_timestamp_then_edit_then_reject(sqlite_store):
    """A tool writes its annotations' times as ISO text with an offset (Tokyo local time, +09:00):
    read back aware (sqlmodel's UTCDateTime) and compared in UTC: no naive/aware TypeError, and
    the edit is placed after them (regression guard)."""
    from datetime import timedelta, timezone

    from reviewer.review import annotate

    store = sqlite_store
    summary = import_dataset(store.engine, R.dataset([R.item(0, gold={"answer": "A0"})], name="demo"), silent())
    q = store.find_item("demo", "q0").id
    stamp = datetime.now(timezone(timedelta(hours=9))).isoformat()  # '2026-..T..+09:00'
    with store.engine.begin() as conn:
        for who, verdict in (("alice", "pass"), ("bob", "reject")):
            conn.execute(text("insert into annotation (item_id, annotator, verdict, rubric, error_tags, note, version, "
                              "created_at, updated_at) values (:q, :who, :v, '{\"ambiguity\": \"low\"}', '[]', 'tool', "
                              "1, :t, :t)"), {"q": q, "who": who, "v": verdict, "t": stamp})
        conn.execute(ItemReview.__table__.insert().values(item_id=q, stage="disputed", version=1))
    assert summary.dataset_id
    annotate.set_role(store, "carol", "adjudicator")
    carol = Review(store, "carol")
    time.sleep(0.01)
    carol.set_gold(q, {"answer": "edited in the dispute"}, store.item(q).version, "typo")
    snap = carol.snapshot(q)
    carol.adjudicate(q, "reject", None, "unanswerable", dict(LOW), None, snap.item_version)
    assert store.item(q).gold == {"answer": "A0"}


def test_sqlite_tool_annotation_with_a_naive_timestamp_is_placed_by_it(sqlite_store):
    """The same with the naive form SQLAlchemy itself writes: placed correctly (regression guard)."""
    from reviewer.review import annotate

    store = sqlite_store
    import_dataset(store.engine, R.dataset([R.item(0, gold={"answer": "A0"})], name="demo"), silent())
    q = store.find_item("demo", "q0").id
    with store.engine.begin() as conn:
        for who, verdict in (("alice", "pass"), ("bob", "reject")):
            conn.execute(Annotation.__table__.insert().values(
                item_id=q, annotator=who, verdict=verdict, rubric={"ambiguity": "low"}, error_tags=[],
                note="tool", version=1))
        conn.execute(ItemReview.__table__.insert().values(item_id=q, stage="disputed", version=1))
    annotate.set_role(store, "carol", "adjudicator")
    carol = Review(store, "carol")
    carol.set_gold(q, {"answer": "edited in the dispute"}, store.item(q).version, "typo")
    snap = carol.snapshot(q)
    carol.adjudicate(q, "reject", None, "unanswerable", dict(LOW), None, snap.item_version)
    assert store.item(q).gold == {"answer": "A0"}

