"""Review of 78a2983 in team mode (real PostgreSQL, row-level security, the definer triggers):
settling again as Pass/Reject writes the gold the annotators reviewed, computed from the
audit log as the adjudicator's login may read it."""

from __future__ import annotations

import threading

import psycopg
import pytest
from sqlalchemy import text

from reviewer.errors import StaleWrite
from reviewer.review import Draft, Review, Stage
from reviewer.review import core
from reviewer.store import Store
from tests.team.test_team_protocol import OK, items, passed  # noqa: F401  (items: the protocol tests' fixture)

pytestmark = pytest.mark.postgres

LOW = {"ambiguity": "low", "difficulty": "medium"}


def fixed(gold, note="") -> Draft:
    return Draft(verdict="fix", checks=dict(OK, content_faithfulness=False), ambiguity="low", difficulty="medium",
                 fixed_gold=gold, note=note)


def _owner_tables(team) -> dict:
    with psycopg.connect(team.admin_url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as conn:
        return {t: conn.execute(f"select * from {t} order by 1").fetchall()
                for t in ("item", "annotation", "adjudication", "item_review", "audit_log")}


def _settle(review, item_id, verdict, gold=None, why="because"):
    snap = review.snapshot(item_id)
    return review.adjudicate(item_id, verdict, gold, why, dict(LOW),
                             expected_version=snap.adjudication.version if snap.adjudication else None,
                             item_version=snap.item_version,
                             annotation_versions={a.annotator: a.version for a in snap.others})


def test_team_unanimous_fix_then_pass_and_fix_then_pass_restore_the_reviewed_gold(team, items):
    _, ids = items  # q0..q3 assigned to alice and bob
    alice, bob, carol = (Review(team.store(p)) for p in ("alice", "bob", "carol"))
    owner = Store(team.admin_url)
    # q0: a unanimous Fix, settled by the trigger, then settled by carol as Pass
    alice.annotate(ids[0], fixed({"answer": "Z"}), None, item_version=1)
    bob.annotate(ids[0], fixed({"answer": "Z"}), None, item_version=1)
    assert carol.stage(ids[0]) is Stage.UNANIMOUS and owner.item(ids[0]).gold == {"answer": "Z"}
    view = _settle(carol, ids[0], "pass", why="the original answer was right")
    assert owner.item(ids[0]).gold == view.final_gold == {"answer": "A0"}
    assert carol.stage(ids[0]) is Stage.ADJUDICATED
    # q1: disputed, settled as Fix, then as Pass, then Reject after a dispute edit
    alice.annotate(ids[1], fixed({"answer": "X"}), None, item_version=1)
    bob.annotate(ids[1], passed(), None, item_version=1)
    _settle(carol, ids[1], "fix", {"answer": "X"})
    assert owner.item(ids[1]).gold == {"answer": "X"}
    _settle(carol, ids[1], "pass")
    assert owner.item(ids[1]).gold == {"answer": "A1"}
    # q2: an edit in the dispute, then Reject
    alice.annotate(ids[2], passed(), None, item_version=1)
    bob.annotate(ids[2], Draft(verdict="reject", ambiguity="low", note="no"), None, item_version=1)
    carol.set_gold(ids[2], {"answer": "edited in the dispute"}, owner.item(ids[2]).version, "typo")
    _settle(carol, ids[2], "reject")
    assert owner.item(ids[2]).gold == {"answer": "A2"}
    # carol reads every audit row of these items (RLS lets deciders read all): nothing hidden
    with carol.store.engine.connect() as conn:
        seen = conn.execute(text("select count(*) from audit_log where entity in ('item', 'annotation')")).scalar()
    with owner.engine.connect() as conn:
        total = conn.execute(text("select count(*) from audit_log where entity in ('item', 'annotation')")).scalar()
    assert seen == total > 0
    owner.close()


def test_team_stale_resettle_by_a_second_decider_writes_nothing(team, items):
    _, ids = items  # q0..q3 assigned to alice and bob
    alice, bob, carol, admin = (Review(team.store(p)) for p in ("alice", "bob", "carol", "admin"))
    alice.annotate(ids[0], fixed({"answer": "X"}), None, item_version=1)
    bob.annotate(ids[0], passed(), None, item_version=1)
    _settle(carol, ids[0], "fix", {"answer": "X"})
    stale = admin.snapshot(ids[0])
    _settle(carol, ids[0], "pass")
    before = _owner_tables(team)
    for verdict in ("pass", "reject", "fix"):
        with pytest.raises(StaleWrite):
            admin.adjudicate(ids[0], verdict, {"answer": "Y"}, "late", dict(LOW),
                             expected_version=stale.adjudication.version, item_version=stale.item_version)
        assert _owner_tables(team) == before


def _waiting_on_a_lock(team, person, worker) -> bool:
    """Wait until ``person``'s session waits on a row lock (True) or ``worker`` has finished
    without waiting (False)."""
    url = team.admin_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(url, autocommit=True) as conn:
        while worker.is_alive():
            if conn.execute("select count(*) from pg_locks l join pg_stat_activity a using (pid) "
                            "where not l.granted and a.usename = %s", (team.logins[person],)).fetchone()[0]:
                return True
            worker.join(0.01)
    return False


def test_team_revision_racing_a_dispute_edit_waits_for_it(team, items, monkeypatch):
    """alice revises her Fix while carol edits the gold. alice's save holds the item from its read of
    the gold (her patch is made against it) to its commit, so carol's edit waits and is logged after
    the save; a Reject then writes back the gold alice and bob reviewed, not the dispute edit.

    Before reviewer_lock_item, an annotator's save took no lock until the submission trigger: carol's
    edit landed between alice's read and her save, the audit log said alice saw the edited gold, and
    the Reject kept the edit."""
    _, ids = items  # q0..q3 assigned to alice and bob
    alice, bob, carol = (Review(team.store(p)) for p in ("alice", "bob", "carol"))
    owner = Store(team.admin_url)
    first = alice.annotate(ids[0], fixed({"answer": "X"}), None, item_version=1)
    bob.annotate(ids[0], passed(), None, item_version=1)
    assert carol.stage(ids[0]) is Stage.DISPUTED
    real_lock = core._lock_item
    carol_waited = []

    def lock_then_carol_edits(conn, item_id, team_mode):
        row = real_lock(conn, item_id, team_mode)  # alice has read the gold: {"answer": "A0"}
        if team_mode:
            edit = threading.Thread(target=carol.set_gold, args=(
                item_id, {"answer": "edited in the dispute"}, owner.item(item_id).version, "typo"))
            edit.start()
            carol_waited.append((_waiting_on_a_lock(team, "carol", edit), edit))
        return row

    monkeypatch.setattr(core, "_lock_item", lock_then_carol_edits)
    revised = alice.annotate(ids[0], fixed({"answer": "X"}, note="revised note"), first.version, item_version=1)
    monkeypatch.setattr(core, "_lock_item", real_lock)
    [(waited, edit)] = carol_waited
    edit.join(30)
    assert waited and not edit.is_alive()
    assert revised.patch == [{"op": "replace", "path": "/answer", "value": "X"}]  # made against A0
    assert owner.item(ids[0]).gold == {"answer": "edited in the dispute"}
    _settle(carol, ids[0], "reject", why="unanswerable")
    assert owner.item(ids[0]).gold == {"answer": "A0"}, carol.reviewed_gold(ids[0])
    owner.close()


def test_team_two_annotators_submitting_one_item_at_once_both_land(team, items):
    """Both first submissions hold the item (reviewer_lock_item, then the submission trigger's own
    lock in the same transaction): the second waits for the first and neither deadlocks. Before,
    each insert's foreign-key check took a share lock on the item and each submission trigger then
    asked for FOR UPDATE: seen here as DeadlockDetected, one submission lost."""
    _, ids = items
    alice, bob = (Review(team.store(p)) for p in ("alice", "bob"))
    barrier = threading.Barrier(2)
    errors = []

    def submit(review, draft):
        try:
            barrier.wait(10)
            review.annotate(ids[1], draft, None, item_version=1)
        except Exception as e:  # noqa: BLE001 - reported by the assertion below
            errors.append(e)

    workers = [threading.Thread(target=submit, args=a) for a in ((alice, passed()), (bob, passed()))]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert errors == [] and alice.stage(ids[1]) is Stage.UNANIMOUS


def test_an_annotator_cannot_lock_items_not_assigned_to_them(team, items):
    """reviewer_lock_item runs as the definer: it locks only the caller's assigned items, so an
    annotator cannot hold other items (and stall the adjudicators' gold edits) or probe ids."""
    _, ids = items  # q0..q3 assigned to alice, q4 to bob only, q5 to nobody
    with psycopg.connect(team.url("alice").replace("postgresql+psycopg://", "postgresql://")) as conn:
        held = [conn.execute("select reviewer_lock_item(%s)", (i,)).fetchone()[0] for i in (ids[0], ids[4], ids[5])]
        assert held == [True, False, False]
        carol = Review(team.store("carol"))  # alice's transaction is still open: q4 and q5 are free
        for i in (ids[4], ids[5]):
            carol.set_gold(i, {"answer": "edited"}, 1, "typo")
        conn.rollback()
