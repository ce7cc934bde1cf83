"""Assignment (each item exactly k annotators, balanced, seeded) and agreement from first submissions."""

from __future__ import annotations

from collections import Counter

import pytest
from sklearn.metrics import cohen_kappa_score

from reviewer.errors import ReviewerError
from reviewer.jobs import silent
from reviewer.review import Draft, Review
from reviewer.review.annotate import set_role
from reviewer.review.assignment import assign, plan, progress, queue, reassign
from reviewer.review.ratings import ratings_for
from reviewer.store.importing import import_dataset
from tests.store import records as R

SIX = [f"ann{i}" for i in range(6)]


def test_thousand_items_six_annotators_two_each_balanced_and_reproducible():
    ids = list(range(1, 1001))
    chosen = plan(ids, SIX, k=2, seed=7)
    assert sorted(chosen) == ids
    assert all(len(set(names)) == 2 for names in chosen.values())  # exactly two different annotators
    loads = Counter(a for names in chosen.values() for a in names)
    assert sum(loads.values()) == 2000 and max(loads.values()) - min(loads.values()) <= 1
    assert plan(ids, SIX, k=2, seed=7) == chosen  # same seed, same assignment
    assert plan(ids, SIX, k=2, seed=8) != chosen
    # exclusions are respected and the rest stays balanced
    excluded = plan(ids, SIX, k=2, seed=7, exclusions={"ann0": ids[:300]})
    assert all("ann0" not in excluded[i] for i in ids[:300])
    with pytest.raises(ReviewerError, match="at least 3"):
        plan(ids, ["a", "b"], k=3)


def test_assign_reassign_queue_and_progress_in_the_store(store):
    ds = import_dataset(store.engine, R.dataset([R.item(i) for i in range(30)]), silent()).dataset_id
    set_role(store, "carol", "adjudicator")
    carol = Review(store, "carol")
    with pytest.raises(ReviewerError, match="only admins"):
        assign(Review(store, "ann0"), ds, SIX)
    chosen = assign(carol, ds, SIX, k=2, seed=3)
    ann0 = Review(store, "ann0")
    mine = queue(ann0, ds)
    assert mine == sorted(mine, key=lambda i: store.item(i).position) and len(mine) == 10
    assert ann0.next_item(ds) == mine[0]  # the annotator follows their queue
    ann0.annotate(mine[0], Draft(verdict="reject"), None)
    moved = reassign(carol, ds, "ann0", ["ann1", "ann2"], seed=1)
    assert moved == 9  # the submitted item stays with ann0
    assert queue(ann0, ds) == []
    rows = {p.annotator: p for p in progress(carol, ds)}
    assert (rows["ann0"].done, rows["ann0"].assigned) == (1, 1)
    assert sum(p.assigned for p in rows.values()) == 60
    assert sum(1 for names in chosen.values() if "ann0" in names) == 10


def test_agreement_uses_first_submissions_by_default(store):
    """Four items, alice and bob; bob revises item q1 after the dispute.

    First submissions (verdicts):   q0 pass/pass  q1 pass/reject  q2 reject/reject  q3 fix/reject
    Latest (bob revised q1 to pass): q1 pass/pass.
    Cohen's kappa by hand, first submissions:
      p_o = 2/4 (q0, q2 agree) = 0.5
      alice: pass 2, reject 1, fix 1; bob: pass 1, reject 3, fix 0
      p_e = (2*1 + 1*3 + 1*0) / 16 = 5/16
      kappa = (0.5 - 5/16) / (1 - 5/16) = (3/16) / (11/16) = 3/11
    Latest: p_o = 3/4; bob: pass 2, reject 2; p_e = (2*2 + 1*2 + 0) / 16 = 6/16;
      kappa = (12/16 - 6/16) / (10/16) = 6/10.
    """
    ds = import_dataset(store.engine, R.dataset([R.item(i, gold=f"A{i}") for i in range(4)]), silent()).dataset_id
    ids = [store.find_item("demo", f"q{i}").id for i in range(4)]
    alice, bob = Review(store, "alice"), Review(store, "bob")
    fix = Draft(verdict="fix", ambiguity="low", fixed_gold="corrected")
    for item_id, a, b in ((ids[0], "pass", "pass"), (ids[1], "pass", "reject"), (ids[2], "reject", "reject"),
                          (ids[3], "fix", "reject")):
        alice.annotate(item_id, fix if a == "fix" else Draft(verdict=a, ambiguity="low"), None)
        saved = bob.annotate(item_id, Draft(verdict=b, ambiguity="low"), None)
    bob_q1 = bob.snapshot(ids[1]).mine
    bob.annotate(ids[1], Draft(verdict="pass", ambiguity="low"), bob_q1.version)

    def kappa(which):
        """Cohen's kappa of the verdicts the agreement statistics read (scikit-learn's, the reference)."""
        ratings, _ = ratings_for(store, [ds], which)
        by = {(r.item_id, r.annotator): r.verdict for r in ratings}
        items = sorted({r.item_id for r in ratings})
        return cohen_kappa_score([by[(i, "alice")] for i in items], [by[(i, "bob")] for i in items])

    assert kappa("first") == pytest.approx(3 / 11)
    assert kappa("latest") == pytest.approx(6 / 10)
    assert saved.version == 1


def test_annotators_can_be_blind_to_model_identity(store):
    ds = import_dataset(store.engine, R.dataset([R.item(i) for i in range(6)]), silent()).dataset_id
    for name in ("gpt-x", "llama-y", "qwen-z"):
        from reviewer.store.importing import import_run

        import_run(store.engine, ds, R.run([R.output(i, text=name) for i in range(6)], name=name), silent())
    set_role(store, "carol", "adjudicator")
    carol, alice = Review(store, "carol"), Review(store, "alice")
    carol.set_rule(ds, carol.rule(ds), blind_models=True)
    ids = [store.find_item("demo", f"q{i}").id for i in range(6)]
    seen = alice.outputs(ids[0], ds)
    assert [o.run for o in seen] == ["Output 1", "Output 2", "Output 3"] and all(o.model is None for o in seen)
    assert alice.outputs(ids[0], ds) == seen  # stable across visits
    orders = {tuple(o.text for o in alice.outputs(i, ds)) for i in ids}
    assert len(orders) > 1  # shuffled per item
    assert {o.run for o in carol.outputs(ids[0], ds)} == {"gpt-x", "llama-y", "qwen-z"}  # adjudicators see names
