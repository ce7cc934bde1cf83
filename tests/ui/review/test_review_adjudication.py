"""The adjudication view against a real store: who may use it, the side-by-side
and three-way views, picks and merges, settling (the item's gold in the store
changes) and stale decisions."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from reviewer.review import annotate, resolution
from reviewer.review.annotate import save_annotation, snapshot
from reviewer.review.rubric import Draft
from reviewer_ui.review.adjudication_view import AdjudicationPanel

OK = {"schema_conformance": True, "content_faithfulness": True, "cross_field_consistency": True}


def fix(gold, **kw):
    fields = dict(verdict="fix", checks=dict(OK, content_faithfulness=False), ambiguity="low",
                  difficulty="medium", fixed_gold=gold)
    return Draft(**(fields | kw))


@pytest.fixture
def view_for(qtbot, sqlite_store, dataset):
    def make(session, record_id="q0"):
        view = AdjudicationPanel(session)
        qtbot.addWidget(view)
        view.resize(1100, 900)
        view.show()
        view.show_item(sqlite_store.item(dataset[1][record_id]))
        return view
    return make


@pytest.fixture
def two_fixes(sqlite_store, dataset):
    """alice and bob fix different members of q0: they merge cleanly."""
    item_id = dataset[1]["q0"]
    save_annotation(sqlite_store, item_id, "alice", fix({"answer": "X", "n": 0}, note="answer is X"), None)
    save_annotation(sqlite_store, item_id, "bob", fix({"answer": "A0", "n": 10}, ambiguity="medium"), None)
    return item_id


def test_only_adjudicators_can_use_it(qtbot, sqlite_store, dataset, two_fixes, alice, view_for):
    view = view_for(alice)
    assert "Only adjudicators settle items" in view.access.text() and "alice (annotator)" in view.access.text()
    assert view.body.isHidden()
    assert view.table.rowCount() == 0 and view.panes["a"].text.toPlainText() == ""  # nothing was read


def test_side_by_side_highlights_the_differences(qtbot, sqlite_store, dataset, two_fixes, carol, view_for):
    view = view_for(carol)
    assert not view.body.isHidden()
    headers = [view.table.horizontalHeaderItem(i) for i in range(2)]
    assert [h.text() for h in headers] == ["A (v1)", "B (v1)"]  # short: long logins would be cut off
    assert [h.toolTip() for h in headers] == ["A: alice (latest, v1)", "B: bob (latest, v1)"]
    labels = [view.table.verticalHeaderItem(r).text() for r in view.differing_rows]
    assert labels == ["Ambiguity", "Note", "Fix"]
    fix_row = view.differing_rows[-1]
    assert [view.table.item(fix_row, c).text() for c in (0, 1)] == ["1 edit(s): /answer", "1 edit(s): /n"]
    assert "ambiguity low vs medium" in view.reasons.text() and "two fixes give different gold" in view.reasons.text()
    assert '"X"' in view.panes["a"].text.toPlainText() and "10" in view.panes["b"].text.toPlainText()
    assert '"X"' in view.panes["merge"].text.toPlainText() and "10" in view.panes["merge"].text.toPlainText()
    assert view.ambiguity.value == "medium"  # the worse of the two, as a starting point
    assert view.verdict.value == "fix"


def test_merge_then_settle_updates_the_gold(qtbot, sqlite_store, dataset, two_fixes, carol, view_for):
    view = view_for(carol)
    view.pick_merge.click()
    assert not view.settle_button.isEnabled() and "write a rationale" in view.problems.text()
    view.rationale.setPlainText("both fixes are right")
    assert view.settle_button.isEnabled()
    with qtbot.waitSignal(view.settled):
        view.settle_button.click()
    assert sqlite_store.item(two_fixes).gold == {"answer": "X", "n": 10}
    adj = snapshot(sqlite_store, two_fixes, "carol").adjudication
    assert (adj.verdict, adj.adjudicator, adj.rationale, adj.rubric["ambiguity"]) == (
        "fix", "carol", "both fixes are right", "medium")
    assert resolution.queue(sqlite_store, dataset[0]) == []


def test_conflicting_fixes_list_conflicts_and_picking_b_settles_b(qtbot, sqlite_store, dataset, alice, carol,
                                                                 view_for):
    item_id = dataset[1]["q1"]
    save_annotation(sqlite_store, item_id, "alice", fix({"answer": "first", "n": 1}), None)
    save_annotation(sqlite_store, item_id, "bob", fix({"answer": "second", "n": 1}), None)
    view = view_for(carol, "q1")
    assert not view.pick_merge.isEnabled()
    assert "/answer" in view.panes["merge"].notes.text()
    view.pick_b.click()
    assert view.editor.value == {"answer": "second", "n": 1}
    view.rationale.setPlainText("B read the source right")
    assert view.settle() is not None
    assert sqlite_store.item(item_id).gold == {"answer": "second", "n": 1}


def test_edited_gold_and_pass_with_high_ambiguity_are_blocked(qtbot, sqlite_store, dataset, two_fixes, carol,
                                                              view_for):
    view = view_for(carol)
    view.rationale.setPlainText("checked")
    view.ambiguity.buttons["high"].click()
    assert not view.verdict.buttons["pass"].isEnabled()
    view.pick_original.click()
    view.verdict.buttons["reject"].click()
    assert view.settle_button.isEnabled()
    view.editor.text.setPlainText('{"answer": "typed", "n": 0}')
    view.editor.validate_now()
    assert "the final gold was edited but the verdict is reject" in view.problems.text()
    view.verdict.buttons["fix"].click()
    assert view.settle_button.isEnabled()
    view.settle()
    assert sqlite_store.item(two_fixes).gold == {"answer": "typed", "n": 0}


def test_stale_decision_is_shown_not_overwritten(qtbot, sqlite_store, dataset, two_fixes, carol, view_for):
    view = view_for(carol)
    # another adjudicator settles it first
    annotate.set_role(sqlite_store, "dora", "adjudicator")
    resolution.adjudicate(sqlite_store, two_fixes, "dora", "reject", None, "source unusable",
                          {"ambiguity": "high"}, None)
    view.pick_a.click()
    view.rationale.setPlainText("A is right")
    assert view.settle() is None
    assert view.banner.isVisible() and "settled meanwhile" in view.banner.label.text()
    assert snapshot(sqlite_store, two_fixes, "carol").adjudication.adjudicator == "dora"
    view.banner.action.click()
    assert "Settled by dora as reject" in view.status.text()
    assert view.verdict.value == "reject"


def test_switching_identity_to_adjudicator_opens_it(qtbot, sqlite_store, dataset, two_fixes, alice, view_for):
    view = view_for(alice)
    assert view.body.isHidden()
    alice.set_identity("alice", "adjudicator")
    assert not view.body.isHidden() and view.table.rowCount() > 0


def test_after_a_settlement_the_original_gold_is_the_one_the_annotators_fixed(qtbot, sqlite_store, dataset,
                                                                              two_fixes, carol, view_for):
    """Settled once (the item's gold is now the merge), the item opened again to settle it anew:
    "Original gold" is still the gold alice and bob saw, each fix is shown against it, and keeping
    the original puts that gold, not the settled one, in the final gold."""
    view = view_for(carol)
    view.pick_merge.click()
    view.rationale.setPlainText("both fixes are right")
    with qtbot.waitSignal(view.settled):
        view.settle_button.click()
    assert sqlite_store.item(two_fixes).gold == {"answer": "X", "n": 10}
    view = view_for(carol)  # opened again
    assert "Settled by carol" in view.status.text()
    original = view.panes["original"]
    assert '"A0"' in original.text.toPlainText() and '"X"' not in original.text.toPlainText()
    assert "current gold differs" in original.notes.text()
    fix_a = view.panes["a"].text.toPlainText()
    assert '"X"' in fix_a and "10" not in fix_a  # A's fix alone, not A's patch on the settled gold
    assert view.panes["a"].notes.text() == "changed $.answer: &quot;A0&quot; -&gt; &quot;X&quot;"  # one change
    # The settled Fix is prefilled and reads as the fix it is, of the gold they reviewed: settling
    # it again needs no edit (it said "No change yet: a Fix must change the gold" and refused).
    assert view.verdict.value == "fix" and view.editor.value == {"answer": "X", "n": 10}
    assert view.editor.ops_label.text() == "2 patch operation(s)."
    assert view.settle_button.isEnabled(), view.problems.text()
    view.pick_original.setFocus()
    qtbot.keyClick(view.pick_original, Qt.Key.Key_Space)
    assert view.editor.value == {"answer": "A0", "n": 0}
    assert view.verdict.value is None  # the gold unchanged is not a Fix
    assert "The gold the annotators reviewed, unchanged" in view.editor.ops_label.text()
    view.verdict.buttons["pass"].click()
    assert view.settle_button.isEnabled(), view.problems.text()
    # what Pass will do to the settled gold is said where the decision is made
    assert "Settling as Pass writes back the original gold" in view.problems.text()
    with qtbot.waitSignal(view.settled):
        view.settle_button.click()
    # Pass: the gold the annotators reviewed stands again, not the earlier settlement's fix
    assert sqlite_store.item(two_fixes).gold == {"answer": "A0", "n": 0}
    assert snapshot(sqlite_store, two_fixes, "carol").adjudication.verdict == "pass"
