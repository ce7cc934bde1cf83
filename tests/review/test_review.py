"""The review protocol on both backends: blindness, rules, auto-resolution, adjudication, release."""

from __future__ import annotations

import json

import pytest

from reviewer.errors import StaleWrite
from reviewer.jobs import silent
from reviewer.review import AgreementRule, NotPermitted, Review, Stage, annotate, release, resolution
from reviewer.review.annotate import ProtocolViolation, save_annotation, snapshot
from reviewer.review.rubric import Draft, problems
from reviewer.store.importing import import_dataset
from tests.store import records as R

OK_CHECKS = {"schema_conformance": True, "content_faithfulness": True, "cross_field_consistency": True}


def passed(**kw) -> Draft:
    return Draft(verdict="pass", checks=dict(OK_CHECKS), ambiguity="low", difficulty="medium", **kw)


def fixed(gold, **kw) -> Draft:
    checks = dict(OK_CHECKS, content_faithfulness=False)
    return Draft(verdict="fix", checks=checks, ambiguity="low", difficulty="medium", fixed_gold=gold, **kw)


@pytest.fixture
def items(store):
    summary = import_dataset(store.engine, R.dataset([R.item(i, gold={"answer": f"A{i}", "n": i}) for i in range(6)]),
                             silent())
    ids = [store.find_item("demo", f"q{i}").id for i in range(6)]
    return summary.dataset_id, ids


def test_annotators_stay_blind_before_and_after_both_submitted(store, items):
    _, ids = items
    annotate.set_role(store, "carol", "adjudicator")
    save_annotation(store, ids[0], "alice", passed(note="alice's note", error_tags=["semantic_ambiguity"]), None)
    seen_by_bob = snapshot(store, ids[0], "bob")
    assert seen_by_bob.others == [] and seen_by_bob.mine is None and seen_by_bob.adjudication is None
    assert seen_by_bob.status == "not reviewed by you yet"
    assert snapshot(store, ids[0], "alice").status == "waiting for a second review"
    assert len(snapshot(store, ids[0], "carol").others) == 1  # the adjudicator sees everything
    save_annotation(store, ids[0], "bob", Draft(verdict="reject", checks=dict(OK_CHECKS), ambiguity="high"), None)
    for who, other in (("bob", "alice"), ("alice", "bob")):
        seen = snapshot(store, ids[0], who)
        assert seen.stage == Stage.DISPUTED and seen.status == "with the adjudicator"
        assert seen.others == [] and seen.adjudication is None and seen.first_submissions == {}
        assert other not in repr(seen)  # nothing of the other annotation, not even the name
    carol = snapshot(store, ids[0], "carol")
    assert [a.annotator for a in carol.others] == ["alice", "bob"] and carol.status == "disputed"


def test_protocol_rules_block_forbidden_verdicts(store, items):
    _, ids = items
    with pytest.raises(ProtocolViolation, match="High ambiguity must be Fix or Reject"):
        save_annotation(store, ids[0], "alice", Draft(verdict="pass", ambiguity="high"), None)
    with pytest.raises(ProtocolViolation, match="content_faithfulness"):
        save_annotation(store, ids[0], "alice", Draft(verdict="pass", checks={"content_faithfulness": False}), None)
    with pytest.raises(ProtocolViolation, match="does not change the gold"):
        save_annotation(store, ids[0], "alice", fixed({"answer": "A0", "n": 0}), None)
    assert snapshot(store, ids[0], "alice").mine is None  # nothing was written
    many = problems(fixed({}), "tool_qa", patch_ops=9)
    assert [(p.level, "may be a Reject" in p.message) for p in many] == [("warning", True)]
    # A Pass (or Fix) without an ambiguity rating is saved (P stays one key) but warned about.
    [warning] = problems(Draft(verdict="pass"), "tool_qa")
    assert (warning.level, warning.field) == ("warning", "ambiguity") and "not released as Gold" in warning.message
    assert problems(passed(), "tool_qa") == []
    # A Reject that gives no reason is saved (R stays one key) but asked for one; a tag or a note is enough.
    [why] = problems(Draft(verdict="reject"), "tool_qa")
    assert (why.level, why.field) == ("warning", "error_tags") and "say why" in why.message
    assert problems(Draft(verdict="reject", error_tags=["tool_hallucination"]), "call_chain") == []
    assert problems(Draft(verdict="reject", note="the question has two answers"), "tool_qa") == []
    assert problems(Draft(verdict="reject", note="   "), "tool_qa") == [why]


def test_saves_are_versioned_and_stale_writes_detected(store, items):
    _, ids = items
    first = save_annotation(store, ids[1], "alice", passed(), None)
    second = save_annotation(store, ids[1], "alice", passed(note="checked twice"), first.version)
    assert (first.version, second.version, second.draft.note) == (1, 2, "checked twice")
    with pytest.raises(StaleWrite):  # a second window still holding version 1
        save_annotation(store, ids[1], "alice", passed(note="from the other window"), first.version)
    with pytest.raises(StaleWrite):  # creating again what already exists
        save_annotation(store, ids[1], "alice", passed(), None)
    assert snapshot(store, ids[1], "alice").mine.draft.note == "checked twice"
    versions = [h.after["version"] for h in store.history("annotation", second.id)]
    assert versions == [1, 2]


def test_agreeing_fixes_settle_as_unanimous_and_update_the_gold(store, items):
    dataset_id, ids = items
    new_gold = {"answer": "corrected", "n": 2}
    save_annotation(store, ids[2], "alice", fixed(new_gold), None)
    assert store.item(ids[2]).gold == {"answer": "A2", "n": 2}  # one annotation settles nothing
    assert Review(store, "alice").stage(ids[2]) == Stage.ONE_REVIEW
    bob = save_annotation(store, ids[2], "bob", fixed(new_gold), None)
    snap = Review.for_reports(store).snapshot(ids[2])
    assert snap.stage == Stage.UNANIMOUS and snap.adjudication.resolution == "auto"
    assert snapshot(store, ids[2], "alice").status == "settled"
    assert store.item(ids[2]).gold == new_gold
    # a settled item takes no more revisions: the unanimous decision and its gold stand
    with pytest.raises(ProtocolViolation, match="settled"):
        save_annotation(store, ids[2], "bob", passed(), bob.version)
    assert store.item(ids[2]).gold == new_gold and resolution.queue(store, dataset_id) == []


def test_a_revision_after_a_dispute_does_not_settle_the_item(store, items):
    dataset_id, ids = items
    save_annotation(store, ids[2], "alice", passed(), None)
    bob = save_annotation(store, ids[2], "bob", Draft(verdict="reject", ambiguity="low"), None)
    assert Review(store, "bob").stage(ids[2]) == Stage.DISPUTED
    revised = save_annotation(store, ids[2], "bob", passed(), bob.version)  # bob now agrees with alice
    assert revised.version == 2 and revised.draft.verdict == "pass"
    assert Review(store, "bob").stage(ids[2]) == Stage.DISPUTED  # still the adjudicator's to settle
    [entry] = resolution.queue(store, dataset_id)
    assert entry.item_id == ids[2] and entry.reasons[0] == "verdict pass vs reject"  # first submissions


def test_queue_lists_verdict_disagreements_first_and_respects_the_dataset_rule(store, items):
    dataset_id, ids = items
    annotate.set_role(store, "carol", "adjudicator")
    carol = Review(store, "carol")
    assert "the verdict, every rubric field, the fixed gold" in carol.rule(dataset_id).describe()
    # small disagreement: only the difficulty tag
    save_annotation(store, ids[3], "alice", passed(), None)
    save_annotation(store, ids[3], "bob", Draft(verdict="pass", checks=dict(OK_CHECKS), ambiguity="low",
                                                difficulty="hard"), None)
    # a verdict disagreement, on an item before the other one
    save_annotation(store, ids[4], "alice", Draft(verdict="reject", ambiguity="low"), None)
    save_annotation(store, ids[4], "bob", passed(), None)
    # full agreement, but automatic settlement switched off for the dataset
    carol.set_rule(dataset_id, AgreementRule(auto_settle=False))
    save_annotation(store, ids[5], "alice", passed(), None)
    save_annotation(store, ids[5], "bob", passed(), None)
    q = carol.queue(dataset_id)
    assert [e.item_id for e in q] == [ids[4], ids[3], ids[5]]
    assert q[0].reasons[0] == "verdict reject vs pass" and q[1].reasons == ["difficulty medium vs hard"]
    assert q[2].reasons == ["automatic settlement is off for this dataset"]
    # a verdict-only rule: rubric differences no longer dispute
    carol.set_rule(dataset_id, AgreementRule(rubric=False, fix=False))
    save_annotation(store, ids[1], "alice", passed(), None)
    save_annotation(store, ids[1], "bob", Draft(verdict="pass", checks=dict(OK_CHECKS), ambiguity="medium"), None)
    assert carol.stage(ids[1]) == Stage.UNANIMOUS
    with pytest.raises(NotPermitted):
        Review(store, "alice").queue(dataset_id)  # annotators have no queue of disputes


def test_adjudication_settles_with_merged_gold_and_detects_stale_decisions(store, items):
    dataset_id, ids = items
    annotate.set_role(store, "carol", "adjudicator")
    annotate.set_role(store, "dave", "adjudicator")
    save_annotation(store, ids[0], "alice", fixed({"answer": "X", "n": 0}), None)
    save_annotation(store, ids[0], "bob", fixed({"answer": "A0", "n": 10}), None)
    snap = snapshot(store, ids[0], "carol")
    from reviewer.review.patch import merge

    m = merge(store.item(ids[0]).gold, snap.others[0].patch, snap.others[1].patch)
    assert m.conflicts == [] and m.merged == {"answer": "X", "n": 10}
    with pytest.raises(NotPermitted):  # an annotator cannot adjudicate
        resolution.adjudicate(store, ids[0], "alice", "fix", m.merged, "mine", rubric={"ambiguity": "low"})
    adj = resolution.adjudicate(store, ids[0], "carol", "fix", m.merged, "both fixes are right",
                                rubric={"ambiguity": "low"}, item_version=snap.item_version,
                                annotation_versions={a.annotator: a.version for a in snap.others})
    assert store.item(ids[0]).gold == {"answer": "X", "n": 10} and adj.resolution == "manual"
    with pytest.raises(StaleWrite):
        resolution.adjudicate(store, ids[0], "dave", "reject", None, "late", expected_version=None)
    assert resolution.queue(store, dataset_id) == []
    assert Review(store, "alice").stage(ids[0]) == Stage.ADJUDICATED
    # a settled item takes no annotation edits at all
    mine = snapshot(store, ids[0], "alice").mine
    with pytest.raises(ProtocolViolation):
        save_annotation(store, ids[0], "alice", passed(), mine.version)
    assert Review.for_reports(store).snapshot(ids[0]).adjudication.verdict == "fix"


def test_adjudication_checks_the_item_and_annotation_versions_it_read(store, items):
    _, ids = items
    annotate.set_role(store, "carol", "adjudicator")
    save_annotation(store, ids[1], "alice", passed(), None)
    bob = save_annotation(store, ids[1], "bob", Draft(verdict="reject", ambiguity="low"), None)
    snap = snapshot(store, ids[1], "carol")
    seen = {a.annotator: a.version for a in snap.others}
    save_annotation(store, ids[1], "bob", Draft(verdict="reject", ambiguity="medium"), bob.version)
    with pytest.raises(StaleWrite, match="bob's annotation"):
        resolution.adjudicate(store, ids[1], "carol", "reject", None, "x", item_version=snap.item_version,
                              annotation_versions=seen)
    Review(store, "carol").set_gold(ids[1], {"answer": "edited"}, snap.item_version, "typo")
    with pytest.raises(StaleWrite, match="item"):
        resolution.adjudicate(store, ids[1], "carol", "fix", {"answer": "other"}, "x",
                              item_version=snap.item_version)
    assert Review(store, "carol").stage(ids[1]) == Stage.DISPUTED  # neither attempt wrote anything
    assert store.item(ids[1]).gold == {"answer": "edited"}
    with pytest.raises(NotPermitted):
        Review(store, "alice").set_gold(ids[1], {"answer": "alice's"}, store.item(ids[1]).version)


def test_settled_again_as_pass_or_reject_the_reviewed_gold_stands_again(store, items):
    """A Pass or Reject judges the gold the annotators reviewed. Settled first as Fix (the gold
    rewritten) and then again as Pass, the item kept the Fix's gold under a Pass; edited in the
    dispute and settled as Reject, it kept the edit. Now the reviewed gold is written back."""
    _, ids = items
    annotate.set_role(store, "carol", "adjudicator")
    carol = Review(store, "carol")
    save_annotation(store, ids[0], "alice", fixed({"answer": "X", "n": 0}), None)
    save_annotation(store, ids[0], "bob", passed(), None)
    snap = carol.snapshot(ids[0])
    carol.adjudicate(ids[0], "fix", {"answer": "X", "n": 0}, "alice is right", {"ambiguity": "low"},
                     item_version=snap.item_version)
    assert store.item(ids[0]).gold == {"answer": "X", "n": 0}
    again = carol.snapshot(ids[0])
    view = carol.adjudicate(ids[0], "pass", None, "on second thought bob is", {"ambiguity": "low"},
                            expected_version=again.adjudication.version, item_version=again.item_version)
    assert store.item(ids[0]).gold == {"answer": "A0", "n": 0} == view.final_gold
    assert view.verdict == "pass"
    # settled as Fix a third time: the fix is made against the reviewed gold again
    third = carol.snapshot(ids[0])
    carol.adjudicate(ids[0], "fix", {"answer": "X", "n": 0}, "alice after all", {"ambiguity": "low"},
                     expected_version=third.adjudication.version, item_version=third.item_version)
    assert store.item(ids[0]).gold == {"answer": "X", "n": 0}
    assert carol.reviewed_gold(ids[0]).gold == {"answer": "A0", "n": 0}

    save_annotation(store, ids[1], "alice", passed(), None)
    save_annotation(store, ids[1], "bob", Draft(verdict="reject", ambiguity="high", note="unanswerable"), None)
    carol.set_gold(ids[1], {"answer": "edited in the dispute", "n": 1}, store.item(ids[1]).version, "typo")
    snap = carol.snapshot(ids[1])
    carol.adjudicate(ids[1], "reject", None, "unanswerable", {"ambiguity": "high"}, item_version=snap.item_version)
    assert store.item(ids[1]).gold == {"answer": "A1", "n": 1}


def test_the_gold_the_annotators_reviewed_outlives_settlements_and_later_gold_edits(store, items):
    """An adjudicator compares the fixes with the gold the annotators saw, not the current one:
    a settlement writes its gold, and the gold may be edited between or after their saves."""
    _, ids = items
    annotate.set_role(store, "carol", "adjudicator")
    carol = Review(store, "carol")
    imported = {"answer": "A0", "n": 0}
    save_annotation(store, ids[0], "alice", fixed({"answer": "X", "n": 0}), None)
    save_annotation(store, ids[0], "bob", fixed({"answer": "A0", "n": 10}), None)
    assert carol.reviewed_gold(ids[0]).gold == imported  # nothing written yet: the current gold
    snap = carol.snapshot(ids[0])
    carol.adjudicate(ids[0], "fix", {"answer": "X", "n": 10}, "both", {"ambiguity": "low"},
                     item_version=snap.item_version)
    assert store.item(ids[0]).gold == {"answer": "X", "n": 10}
    seen = carol.reviewed_gold(ids[0])  # settled once: still what the annotators saw
    assert seen.gold == imported and seen.seen == {"alice": imported, "bob": imported} and not seen.differs
    # settled again, by another decision: the base does not move with it
    again = carol.snapshot(ids[0])
    carol.adjudicate(ids[0], "fix", {"answer": "Y", "n": 10}, "Y it is", {"ambiguity": "low"},
                     expected_version=again.adjudication.version, item_version=again.item_version)
    assert carol.reviewed_gold(ids[0]).gold == imported

    # a unanimous fix settles in the second save's transaction: the gold they saw is the one before it
    save_annotation(store, ids[1], "alice", fixed({"answer": "Z", "n": 1}), None)
    save_annotation(store, ids[1], "bob", fixed({"answer": "Z", "n": 1}), None)
    assert store.item(ids[1]).gold == {"answer": "Z", "n": 1}
    assert carol.reviewed_gold(ids[1]).gold == {"answer": "A1", "n": 1}

    # the gold edited between the two saves: each annotator saw their own, the later one is the base
    save_annotation(store, ids[2], "alice", fixed({"answer": "early", "n": 2}), None)
    carol.set_gold(ids[2], {"answer": "A2 edited", "n": 2}, store.item(ids[2]).version, "typo")
    save_annotation(store, ids[2], "bob", Draft(verdict="reject", ambiguity="low", note="no"), None)
    carol.set_gold(ids[2], {"answer": "after both", "n": 2}, store.item(ids[2]).version, "later edit")
    seen = carol.reviewed_gold(ids[2])
    assert seen.seen == {"alice": {"answer": "A2", "n": 2}, "bob": {"answer": "A2 edited", "n": 2}}
    assert seen.gold == {"answer": "A2 edited", "n": 2} and seen.differs
    assert seen.of("alice") == {"answer": "A2", "n": 2}
    with pytest.raises(NotPermitted):  # an annotator sees no other annotation, so no base of theirs
        Review(store, "alice").reviewed_gold(ids[2])


def test_personal_queue_and_progress(store, items):
    dataset_id, ids = items
    assert annotate.next_for(store, dataset_id, "alice") == ids[0]
    save_annotation(store, ids[0], "alice", passed(), None)
    assert annotate.next_for(store, dataset_id, "alice") == ids[1]
    assert annotate.next_for(store, dataset_id, "alice", after_position=3) == ids[4]
    save_annotation(store, ids[1], "bob", passed(), None)
    save_annotation(store, ids[1], "carol", passed(), None)  # item 1 has its two annotations: unanimous
    assert annotate.next_for(store, dataset_id, "alice", after_position=0) == ids[2]
    p = annotate.progress(store, dataset_id, "alice")
    assert (p.items, p.mine, p.annotated_twice, p.settled, p.auto_resolved, p.disagreements) == (6, 1, 1, 1, 1, 0)


def test_release_follows_the_papers_rule_and_exports_provenance(store, items, tmp_path):
    dataset_id, ids = items
    annotate.set_role(store, "carol", "adjudicator")
    for who in ("alice", "bob"):
        save_annotation(store, ids[0], who, passed(), None)  # unanimous pass
        save_annotation(store, ids[1], who, fixed({"answer": "B", "n": 1}), None)  # unanimous fix
        save_annotation(store, ids[2], who, Draft(verdict="reject", ambiguity="low"), None)
    save_annotation(store, ids[3], "alice", passed(), None)
    save_annotation(store, ids[3], "bob", fixed({"answer": "C", "n": 3}), None)
    resolution.adjudicate(store, ids[3], "carol", "fix", {"answer": "C", "n": 3}, "bob is right",
                          rubric={"ambiguity": "high"})
    status = {s.record_id: s for s in release.gold_status(store, dataset_id)}
    assert [r for r, s in status.items() if s.released] == ["q0", "q1"]
    assert status["q2"].reasons == ["rejected"] and status["q3"].reasons == ["ambiguity High"]
    assert status["q4"].reasons == ["not settled by dual review yet"]
    out = tmp_path / "gold.jsonl"
    assert release.export_gold_jsonl(store, dataset_id, out) == 2
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[1]["gold"] == {"answer": "B", "n": 1}
    prov = rows[1]["provenance"]
    assert prov["decision"] == "unanimous" and prov["annotators"] == ["alice", "bob"]
    assert prov["patch"] == [{"op": "replace", "path": "/answer", "value": "B"}]


def test_a_pass_settled_without_an_ambiguity_rating_is_withheld_not_released(store, items, tmp_path):
    """The tester's repro: alice passes with the full rubric, erin presses P and nothing else;
    the item settles, but paper 001 releases only Low/Medium ambiguity, and "not rated" is neither."""
    dataset_id, ids = items
    for who in ("alice", "erin"):
        save_annotation(store, ids[0], who, passed(), None)  # rated: released
    save_annotation(store, ids[1], "alice", passed(), None)
    save_annotation(store, ids[1], "erin", Draft(verdict="pass"), None)  # P only: the rubrics differ, disputed
    save_annotation(store, ids[2], "alice", Draft(verdict="pass"), None)
    save_annotation(store, ids[2], "erin", Draft(verdict="pass"), None)  # neither rated it
    save_annotation(store, ids[3], "alice", Draft(verdict="reject"), None)
    save_annotation(store, ids[3], "erin", Draft(verdict="reject"), None)  # withheld as rejected, only that
    assert snapshot(store, ids[2], "erin").stage is Stage.UNANIMOUS
    status = {s.record_id: s for s in release.gold_status(store, dataset_id)}
    assert [r for r, s in status.items() if s.released] == ["q0"]
    assert status["q1"].reasons == ["not settled by dual review yet"]
    assert status["q2"].reasons == ["ambiguity not rated"]
    assert status["q3"].reasons == ["rejected"]
    counts = release.withheld_counts([s for s in status.values() if not s.released])
    assert counts == {"not settled by dual review yet": 3, "ambiguity not rated": 1, "rejected": 1}
    out = tmp_path / "gold.jsonl"
    assert release.export_gold_jsonl(store, dataset_id, out) == 1
    assert [json.loads(x)["record_id"] for x in out.read_text().splitlines()] == ["q0"]
    # An adjudicator who settles it with a rating releases it.
    annotate.set_role(store, "carol", "adjudicator")
    resolution.adjudicate(store, ids[2], "carol", "pass", None, "clear enough", rubric={"ambiguity": "medium"},
                          expected_version=1)
    assert {s.record_id: s for s in release.gold_status(store, dataset_id)}["q2"].released


def test_extraction_gold_that_fails_its_schema_is_not_released():
    schema = json.dumps({"type": "object", "properties": {"age": {"type": "integer"}}, "required": ["age"]})
    assert release.automatic_checks("extraction", {"age": 3}, schema) == []
    [failure] = release.automatic_checks("extraction", {"age": "three"}, schema)
    assert failure.startswith("schema: $.age:")
    chain = [{"api_name": "a", "parameters": {"x": "API_call_1"}, "responses": ["API_call_0"]}]
    assert "uses API_call_1" in release.automatic_checks("call_chain", chain, None)[0]


def test_item_table_review_column_is_blind_too(store, items):
    from reviewer.store.browse import review_states

    _, ids = items
    annotate.set_role(store, "carol", "adjudicator")
    save_annotation(store, ids[0], "alice", passed(), None)
    assert review_states(store, [ids[0]], "bob")[ids[0]].label() == "not reviewed by you yet"
    assert review_states(store, [ids[0]], "alice")[ids[0]].label() == "yours: pass · waiting for a second review"
    assert review_states(store, [ids[0]], "carol")[ids[0]].label() == "one review (pass)"
    save_annotation(store, ids[0], "bob", Draft(verdict="reject", ambiguity="high"), None)
    # both submitted and disputed: still nothing of alice's verdict for bob
    assert review_states(store, [ids[0]], "bob")[ids[0]].label() == "yours: reject · with the adjudicator"
    assert review_states(store, [ids[0]], "carol")[ids[0]].label() == "disputed (pass vs reject)"
    assert review_states(store, [ids[0]], "bob", sees_all=True)[ids[0]].verdicts == ()  # the role decides


def test_an_assumed_reviewer_reads_as_an_annotator_and_writes_nothing(store, items):
    """``Review.assume``: who a GUI shows while it reads the role off its GUI thread. Built without
    a query; the least privilege (an annotator, blind); every write refused until confirmed."""
    from sqlalchemy import event

    ds, ids = items
    annotate.set_role(store, "carol", "adjudicator")
    statements = []
    listener = lambda *args: statements.append(args[2])  # noqa: E731
    event.listen(store.engine, "before_cursor_execute", listener)
    try:
        carol = Review.assume(store, "carol")
    finally:
        event.remove(store.engine, "before_cursor_execute", listener)
    assert statements == []  # nothing read
    assert (carol.viewer, carol.role, carol.team, carol.assumed) == ("carol", "annotator", False, True)
    assert not carol.may_adjudicate and not carol.sees_everything
    assert carol.snapshot(ids[0]).mine is None  # an annotator's read
    with pytest.raises(NotPermitted, match="still signing in"):
        carol.annotate(ids[0], passed(), None)
    with pytest.raises(NotPermitted, match="still signing in"):
        carol.set_rule(ds, carol.rule(ds), blind_models=True)
    with pytest.raises(NotPermitted, match="still signing in"):
        carol.adjudicate(ids[0], "pass", {"answer": "A0", "n": 0}, "fine")
    assert snapshot(store, ids[0], "carol").mine is None  # nothing written
    confirmed = Review(store, "carol")
    assert not confirmed.assumed and confirmed.may_adjudicate
