"""Team mode on the real PostgreSQL: the protocol held by the database, for any client.

alice and bob (annotators) and carol (adjudicator) connect with their own logins. What
each can read and write is checked through the core API and through raw SQL; every
refused attempt is followed by a check that the rows did not change.
"""

from __future__ import annotations

import psycopg
import pytest
from sqlalchemy import text

from reviewer.errors import ReviewerError
from reviewer.jobs import silent
from reviewer.review import Draft, NotPermitted, Review, Stage
from reviewer.review.assignment import assign
from reviewer.store import Store
from reviewer.store.importing import import_dataset
from tests.store import records as R
from tests.team.conftest import reviewer_cli

pytestmark = pytest.mark.postgres

OK = {"schema_conformance": True, "content_faithfulness": True, "cross_field_consistency": True}


def passed(note: str = "") -> Draft:
    return Draft(verdict="pass", checks=dict(OK), ambiguity="low", difficulty="medium", note=note)


def rejected(note: str = "") -> Draft:
    return Draft(verdict="reject", checks=dict(OK, content_faithfulness=False), ambiguity="medium",
                 difficulty="hard", error_tags=["semantic_ambiguity"], note=note)


@pytest.fixture
def items(team):
    owner = Store(team.admin_url)
    summary = import_dataset(owner.engine, R.dataset([R.item(i, gold={"answer": f"A{i}"}) for i in range(6)]),
                             silent())
    ids = [owner.find_item("demo", f"q{i}").id for i in range(6)]
    admin = Review(team.store("admin"))
    assert admin.role == "admin" and admin.viewer == team.logins["admin"]
    # alice and bob share q0..q3; q4 goes to bob and carol's pool is not needed; q5 is nobody's
    alice, bob = team.logins["alice"], team.logins["bob"]
    from reviewer.review.assignment import plan  # noqa: F401  (the rule; here a fixed assignment)

    with admin.store.engine.begin() as conn:
        conn.execute(text("insert into assignment (dataset_id, item_id, annotator, created_at) "
                          "select :ds, unnest(cast(:ids as int[])), :who, now()"),
                     [{"ds": summary.dataset_id, "ids": ids[:4], "who": alice},
                      {"ds": summary.dataset_id, "ids": ids[:5], "who": bob}])
    owner.close()
    return summary.dataset_id, ids


def _raw(team, person: str):
    """A plain psycopg connection as ``person`` (what they could do with psql)."""
    url = team.url(person).replace("postgresql+psycopg://", "postgresql://")
    return psycopg.connect(url, autocommit=True)


def _tables(team) -> dict:
    """Every review table as the schema owner sees it, to prove refused writes changed nothing."""
    with _raw_owner(team) as conn:
        return {t: conn.execute(f"select * from {t} order by 1").fetchall()
                for t in ("item", "annotation", "adjudication", "item_review", "audit_log", "assignment")}


def _raw_owner(team):
    return psycopg.connect(team.admin_url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True)


def test_identity_is_the_login_and_the_role_comes_from_postgresql(team, items):
    alice = Review(team.store("alice"), viewer="carol")  # a typed name means nothing in team mode
    assert (alice.viewer, alice.role, alice.team) == (team.logins["alice"], "annotator", True)
    carol = Review(team.store("carol"))
    assert (carol.viewer, carol.role) == (team.logins["carol"], "adjudicator")
    listed = reviewer_cli("team", "list", "--db", team.admin_url)
    assert listed.returncode == 0
    assert f"{team.logins['alice']}\tannotator" in listed.stdout
    assert f"{team.logins['carol']}\tadjudicator" in listed.stdout
    removed = reviewer_cli("team", "remove", team.logins["admin"], "--db", team.admin_url)
    assert removed.returncode == 0
    with pytest.raises(ReviewerError, match="PostgreSQL refused"):  # no team role left: no access at all
        team.store("admin")


def test_three_people_follow_the_protocol_and_the_database_holds_it(team, items):
    dataset_id, ids = items
    alice, bob, carol = (Review(team.store(p)) for p in ("alice", "bob", "carol"))
    a = alice.annotate(ids[0], passed("alice thinks it is fine"), None, item_version=1)
    assert alice.snapshot(ids[0]).status == "waiting for a second review"
    b = bob.annotate(ids[0], rejected("bob's secret note"), None, item_version=1)

    # 1. blind through the core API, after both submitted
    for me, other in ((alice, "bob"), (bob, "alice")):
        snap = me.snapshot(ids[0])
        assert snap.stage == Stage.DISPUTED and snap.status == "with the adjudicator"
        assert snap.others == [] and snap.adjudication is None and snap.first_submissions == {}
        assert team.logins[other] not in repr(snap)
        assert me.states([ids[0]])[ids[0]].verdicts == ()
        with pytest.raises(NotPermitted):
            me.queue(dataset_id)

    # 2. blind through raw SQL (psql)
    with _raw(team, "alice") as conn:
        rows = conn.execute("select annotator, verdict, note, rubric, error_tags, fixed_gold, first_submission "
                            "from annotation").fetchall()
        assert [(r[0], r[1]) for r in rows] == [(team.logins["alice"], "pass")]
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("select * from adjudication")
        assert conn.execute("select stage from item_review where item_id = %s", (ids[0],)).fetchone() == ("disputed",)
        assert {r[0] for r in conn.execute("select distinct actor from audit_log")} == {team.logins["alice"]}
        assert "bob's secret note" not in str(conn.execute("select before, after from audit_log").fetchall())
        # only the items assigned to her
        assert sorted(r[0] for r in conn.execute("select id from item")) == ids[:4]
        assert conn.execute("select count(*) from output where item_id = %s", (ids[5],)).fetchone() == (0,)

    # 3. bob changes his verdict: the item stays disputed, nobody settled it
    bob.annotate(ids[0], passed("bob changed his mind"), b.version, item_version=1)
    assert carol.stage(ids[0]) == Stage.DISPUTED
    assert [e.item_id for e in carol.queue(dataset_id)] == [ids[0]]
    assert carol.queue(dataset_id)[0].reasons[0] == "verdict pass vs reject"  # first submissions

    # 4. an annotator's attempts to adjudicate or set gold are refused by the database
    before = _tables(team)
    with pytest.raises(NotPermitted):
        alice.adjudicate(ids[0], "pass", None, "I decide", expected_version=None)
    sneaky = Review(team.store("alice"))
    sneaky.role = "adjudicator"  # skip the app's own check: the database must still refuse
    with pytest.raises(Exception) as refused:
        sneaky.adjudicate(ids[0], "pass", None, "I decide", expected_version=None)
    assert "permission denied" in str(refused.value)
    with pytest.raises(Exception) as refused:
        sneaky.set_gold(ids[0], {"answer": "alice's gold"}, 1, "mine")
    assert "permission denied" in str(refused.value)
    with _raw(team, "alice") as conn:
        attempts = [
            "insert into adjudication (item_id, verdict, resolution, version, created_at, updated_at) "
            f"values ({ids[0]}, 'pass', 'manual', 1, now(), now())",
            f"update item set gold = '\"alice\"' where id = {ids[0]}",
            f"update item_review set stage = 'adjudicated' where item_id = {ids[0]}",
            f"insert into annotation (item_id, annotator, verdict, version, created_at, updated_at) "
            f"values ({ids[1]}, '{team.logins['bob']}', 'pass', 1, now(), now())",
            f"update annotation set verdict = 'reject' where annotator = '{team.logins['bob']}'",
            "insert into audit_log (at, actor, entity, action) values (now(), 'carol', 'item', 'edit_gold')",
            f"insert into annotation (item_id, annotator, verdict, version, created_at, updated_at) "
            f"values ({ids[5]}, '{team.logins['alice']}', 'pass', 1, now(), now())",  # not assigned to her
            f"update annotation set first_submission = '{{\"verdict\": \"reject\"}}', first_key = 'x' "
            f"where item_id = {ids[0]}",
        ]
        for sql in attempts:
            try:
                result = conn.execute(sql)
                assert result.rowcount in (0, 1)
            except (psycopg.errors.InsufficientPrivilege, psycopg.errors.CheckViolation):
                pass
    after = _tables(team)
    for table in ("item", "adjudication", "item_review", "assignment"):
        assert after[table] == before[table], f"{table} changed"
    # her own row may have been touched by the last UPDATE, but its first submission is frozen
    mine_before = [r for r in before["annotation"] if r[2] == team.logins["alice"]]
    mine_after = [r for r in after["annotation"] if r[2] == team.logins["alice"]]
    assert mine_after == mine_before or [r[-3:] for r in mine_after] != [("x",)]
    with _raw_owner(team) as conn:
        first = conn.execute("select first_submission->>'verdict', first_key from annotation where annotator = %s",
                             (team.logins["alice"],)).fetchone()
    assert first[0] == "pass" and first[1] != "x"
    assert [r for r in after["annotation"] if r[2] == team.logins["bob"]] == \
        [r for r in before["annotation"] if r[2] == team.logins["bob"]]

    # 5. carol settles it, with a rationale; the audit says it was carol
    snap = carol.snapshot(ids[0])
    assert {a.annotator for a in snap.others} == {team.logins["alice"], team.logins["bob"]}
    with pytest.raises(ReviewerError, match="rationale"):
        carol.adjudicate(ids[0], "pass", None, "  ", expected_version=None)
    adj = carol.adjudicate(ids[0], "pass", None, "the source supports the answer", expected_version=None,
                           item_version=snap.item_version,
                           annotation_versions={x.annotator: x.version for x in snap.others})
    assert adj.adjudicator == team.logins["carol"] and adj.rationale == "the source supports the answer"
    assert alice.snapshot(ids[0]).status == "settled" and bob.snapshot(ids[0]).adjudication is None
    with _raw_owner(team) as conn:
        actors = {r[0] for r in conn.execute(
            "select actor from audit_log where entity = 'adjudication' and entity_id = %s", (ids[0],))}
    assert actors == {team.logins["carol"]}
    with pytest.raises(ReviewerError, match="settled"):
        alice.annotate(ids[0], rejected(), a.version)  # settled: no more revisions


def test_a_unanimous_fix_settles_through_the_trigger_without_anyone_reading_the_other(team, items):
    _, ids = items
    alice, bob, carol = (Review(team.store(p)) for p in ("alice", "bob", "carol"))
    fix = Draft(verdict="fix", checks=dict(OK, content_faithfulness=False), ambiguity="low", difficulty="medium",
                fixed_gold={"answer": "corrected"})
    alice.annotate(ids[1], fix, None, item_version=1)
    assert carol.stage(ids[1]) == Stage.ONE_REVIEW
    bob.annotate(ids[1], fix, None, item_version=1)
    assert carol.stage(ids[1]) == Stage.UNANIMOUS
    assert alice.snapshot(ids[1]).status == "settled"
    settled = carol.snapshot(ids[1]).adjudication
    assert settled.resolution == "auto" and settled.final_gold == {"answer": "corrected"}
    owner = Store(team.admin_url)
    assert owner.item(ids[1]).gold == {"answer": "corrected"} and owner.item(ids[1]).version == 2
    # the adjudicator still sees the gold both annotators fixed (the trigger logs the unanimous
    # fix before it logs bob's save, in the same transaction)
    assert carol.reviewed_gold(ids[1]).gold == {"answer": "A1"}
    # bob's second item: a draft without verdict is not a submission
    bob.annotate(ids[4], Draft(note="thinking"), None)
    assert carol.stage(ids[4]) == Stage.NOT_ANNOTATED


def test_assignment_is_admin_work_and_annotators_see_their_queue(team, items):
    dataset_id, ids = items
    alice = Review(team.store("alice"))
    with pytest.raises(Exception) as refused:
        assign(alice, dataset_id, [team.logins["alice"], team.logins["bob"]])
    assert "permission denied" in str(refused.value)
    from reviewer.review.assignment import queue

    assert queue(alice, dataset_id) == ids[:4]
    assert alice.next_item(dataset_id) == ids[0]
