"""The review protocol on both backends: blindness, rules, auto-resolution, adjudication, release."""

from __future__ import annotations

import json

import pytest

from reviewer.errors import StaleWrite
from reviewer.jobs import silent
from reviewer.review import annotate, release, resolution
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


def test_annotators_are_blind_until_the_item_reaches_adjudication(store, items):
    _, ids = items
    annotate.set_role(store, "carol", "adjudicator")
    save_annotation(store, ids[0], "alice", passed(), None)
    seen_by_bob = snapshot(store, ids[0], "bob")
    assert seen_by_bob.others == [] and seen_by_bob.hidden_others == 1 and seen_by_bob.stage == "open"
    assert len(snapshot(store, ids[0], "carol").others) == 1  # the adjudicator sees everything
    save_annotation(store, ids[0], "bob", Draft(verdict="reject", checks=dict(OK_CHECKS), ambiguity="high"), None)
    seen_by_bob = snapshot(store, ids[0], "bob")
    assert seen_by_bob.stage == "disagreement"
    assert [a.annotator for a in seen_by_bob.others] == ["alice"] and seen_by_bob.others[0].draft.verdict == "pass"


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


def test_agreeing_fixes_resolve_automatically_and_update_the_gold(store, items):
    dataset_id, ids = items
    new_gold = {"answer": "corrected", "n": 2}
    save_annotation(store, ids[2], "alice", fixed(new_gold), None)
    assert store.item(ids[2]).gold == {"answer": "A2", "n": 2}  # one annotation settles nothing
    bob = save_annotation(store, ids[2], "bob", fixed(new_gold), None)
    snap = snapshot(store, ids[2], "alice")
    assert snap.stage == "settled" and snap.adjudication.resolution == "auto"
    assert store.item(ids[2]).gold == new_gold
    # bob changes his mind: the automatic resolution and its gold edit are withdrawn
    save_annotation(store, ids[2], "bob", passed(), bob.version)
    assert snapshot(store, ids[2], "alice").stage == "disagreement"
    assert store.item(ids[2]).gold == {"answer": "A2", "n": 2}
    assert [e.item_id for e in resolution.queue(store, dataset_id)] == [ids[2]]


def test_queue_sorts_by_disagreement_and_respects_auto_resolution_switch(store, items):
    dataset_id, ids = items
    # small disagreement: only the difficulty tag
    save_annotation(store, ids[3], "alice", passed(), None)
    save_annotation(store, ids[3], "bob", Draft(verdict="pass", checks=dict(OK_CHECKS), ambiguity="low",
                                                difficulty="hard"), None)
    # large disagreement: verdicts differ
    save_annotation(store, ids[4], "alice", passed(), None)
    save_annotation(store, ids[4], "bob", Draft(verdict="reject", checks=dict(OK_CHECKS), ambiguity="high"), None)
    # full agreement, but automatic resolution switched off
    save_annotation(store, ids[5], "alice", passed(), None, auto_resolve=False)
    save_annotation(store, ids[5], "bob", passed(), None, auto_resolve=False)
    q = resolution.queue(store, dataset_id)
    assert [e.item_id for e in q] == [ids[4], ids[3], ids[5]]
    assert "verdict pass vs reject" in q[0].reasons and q[1].reasons == ["difficulty medium vs hard"]
    assert q[2].reasons == ["auto-resolution is off"]


def test_adjudication_settles_with_merged_gold_and_detects_stale_decisions(store, items):
    dataset_id, ids = items
    save_annotation(store, ids[0], "alice", fixed({"answer": "X", "n": 0}), None)
    save_annotation(store, ids[0], "bob", fixed({"answer": "A0", "n": 10}), None)
    snap = snapshot(store, ids[0], "carol")
    from reviewer.review.patch import merge

    m = merge(store.item(ids[0]).gold, snap.others[0].patch, snap.others[1].patch)
    assert m.conflicts == [] and m.merged == {"answer": "X", "n": 10}
    adj = resolution.adjudicate(store, ids[0], "carol", "fix", m.merged, "both fixes are right",
                                rubric={"ambiguity": "low"})
    assert store.item(ids[0]).gold == {"answer": "X", "n": 10} and adj.resolution == "manual"
    with pytest.raises(StaleWrite):
        resolution.adjudicate(store, ids[0], "dave", "reject", None, "late", expected_version=None)
    assert resolution.queue(store, dataset_id) == []
    # a later annotation edit never overrides a manual decision
    mine = snapshot(store, ids[0], "alice").mine
    save_annotation(store, ids[0], "alice", passed(), mine.version)
    assert snapshot(store, ids[0], "alice").adjudication.verdict == "fix"


def test_personal_queue_and_progress(store, items):
    dataset_id, ids = items
    assert annotate.next_for(store, dataset_id, "alice") == ids[0]
    save_annotation(store, ids[0], "alice", passed(), None)
    assert annotate.next_for(store, dataset_id, "alice") == ids[1]
    assert annotate.next_for(store, dataset_id, "alice", after_position=3) == ids[4]
    save_annotation(store, ids[1], "bob", passed(), None)
    save_annotation(store, ids[1], "carol", passed(), None)  # item 1 has its two annotations
    assert annotate.next_for(store, dataset_id, "alice", after_position=0) == ids[2]
    p = annotate.progress(store, dataset_id, "alice")
    assert (p.items, p.mine, p.annotated_twice, p.settled, p.auto_resolved, p.disagreements) == (6, 1, 1, 1, 1, 0)


def test_release_follows_the_papers_rule_and_exports_provenance(store, items, tmp_path):
    dataset_id, ids = items
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
    save_annotation(store, ids[0], "alice", passed(), None)
    assert review_states(store, [ids[0]], "bob")[ids[0]].label() == "1 annotation (1 hidden)"
    assert review_states(store, [ids[0]], "alice")[ids[0]].label() == "1 annotation (pass)"  # her own
    assert review_states(store, [ids[0]], "carol", sees_all=True)[ids[0]].label() == "1 annotation (pass)"
    save_annotation(store, ids[0], "bob", Draft(verdict="reject", ambiguity="high"), None)
    # two finished annotations that disagree: the item reached adjudication, nothing is hidden
    assert review_states(store, [ids[0]], "bob")[ids[0]].label() == "2 annotations (disagree)"
