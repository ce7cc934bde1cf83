"""Review of 78a2983 through the adjudication panel: opening auto-settled, Pass-settled and
dispute-edited items, what the form prefills and blocks, and that Settle writes what it shows."""

from __future__ import annotations

import pytest

from reviewer.jobs import silent
from reviewer.review import Review
from reviewer.review.annotate import save_annotation, snapshot
from reviewer.review.rubric import Draft
from reviewer.store.importing import import_dataset
from reviewer_ui.review.adjudication_view import AdjudicationPanel
from tests.store import records as R

OK = {"schema_conformance": True, "content_faithfulness": True, "cross_field_consistency": True}


def fix(gold, **kw):
    return Draft(**(dict(verdict="fix", checks=dict(OK, content_faithfulness=False), ambiguity="low",
                         difficulty="medium", fixed_gold=gold) | kw))


def passed():
    return Draft(verdict="pass", checks=dict(OK), ambiguity="low", difficulty="medium")


def rejected():
    return Draft(verdict="reject", ambiguity="low", note="unanswerable")


@pytest.fixture
def open_view(qtbot, sqlite_store, dataset):
    def make(session, item_id):
        view = AdjudicationPanel(session)
        qtbot.addWidget(view)
        view.resize(1100, 900)
        view.show()
        view.show_item(sqlite_store.item(item_id))
        return view
    return make


def test_auto_settled_unanimous_fix_opens_as_that_fix_and_pass_restores(qtbot, sqlite_store, dataset, carol,
                                                                        open_view):
    item_id = dataset[1]["q1"]
    save_annotation(sqlite_store, item_id, "alice", fix({"answer": "Z", "n": 1}), None)
    save_annotation(sqlite_store, item_id, "bob", fix({"answer": "Z", "n": 1}), None)
    view = open_view(carol, item_id)
    assert "Settled automatically as fix" in view.status.text()
    assert view.verdict.value == "fix" and view.editor.value == {"answer": "Z", "n": 1}
    assert view.editor.ops_label.text() == "1 patch operation(s)."
    assert view.blockers() == ["write a rationale"]
    view.rationale.setPlainText("the original answer was right")
    view.verdict.buttons["pass"].click()
    assert any("edited but the verdict is pass" in b for b in view.blockers())
    view.pick_original.click()
    assert view.verdict.value == "pass"  # Keep the original clears only a Fix
    assert view.blockers() == []
    with qtbot.waitSignal(view.settled):
        view.settle_button.click()
    assert sqlite_store.item(item_id).gold == {"answer": "A1", "n": 1}


def test_pass_settled_item_reopens_as_pass_and_settles_again_unchanged(qtbot, sqlite_store, dataset, carol,
                                                                       open_view):
    item_id = dataset[1]["q2"]
    save_annotation(sqlite_store, item_id, "alice", fix({"answer": "X", "n": 2}), None)
    save_annotation(sqlite_store, item_id, "bob", passed(), None)
    snap = snapshot(sqlite_store, item_id, "carol")
    Review(sqlite_store, "carol").adjudicate(item_id, "pass", None, "bob is right",
                                             {"ambiguity": "low", "difficulty": "medium"},
                                             item_version=snap.item_version)
    view = open_view(carol, item_id)
    assert view.verdict.value == "pass" and view.editor.value == {"answer": "A2", "n": 2}
    assert view.editor.op_count == 0 and view.blockers() == []
    assert view.gold_note() == ""  # the gold is the one they reviewed: nothing is replaced
    with qtbot.waitSignal(view.settled):
        view.settle_button.click()
    assert sqlite_store.item(item_id).gold == {"answer": "A2", "n": 2}


def test_gold_edited_in_the_dispute_shows_as_an_edit_and_reject_restores(qtbot, sqlite_store, dataset, carol,
                                                                         open_view):
    item_id = dataset[1]["q3"]
    save_annotation(sqlite_store, item_id, "alice", passed(), None)
    save_annotation(sqlite_store, item_id, "bob", rejected(), None)
    Review(sqlite_store, "carol").set_gold(item_id, {"answer": "edited", "n": 3}, sqlite_store.item(item_id).version,
                                           "typo")
    view = open_view(carol, item_id)
    assert view.verdict.value is None
    assert view.editor.value == {"answer": "edited", "n": 3} and view.editor.op_count == 1
    assert "current gold differs" in view.panes["original"].notes.text()
    view.rationale.setPlainText("unanswerable")
    view.verdict.buttons["reject"].click()
    assert any("edited but the verdict is reject" in b for b in view.blockers())
    view.pick_original.click()
    view.verdict.buttons["reject"].click()
    assert view.blockers() == []
    with qtbot.waitSignal(view.settled):
        view.settle_button.click()
    assert sqlite_store.item(item_id).gold == {"answer": "A3", "n": 3}


def test_string_gold_is_edited_as_a_line_after_a_settled_fix(qtbot, sqlite_store, dataset, carol, open_view):
    summary = import_dataset(sqlite_store.engine, R.dataset([R.item(0, gold="Paris")], name="strings"), silent())
    assert summary.dataset_id
    item_id = sqlite_store.find_item("strings", "q0").id
    save_annotation(sqlite_store, item_id, "alice", fix("Paris, France"), None)
    save_annotation(sqlite_store, item_id, "bob", passed(), None)
    view = open_view(carol, item_id)
    view.pick_a.click()
    view.rationale.setPlainText("alice adds the country")
    with qtbot.waitSignal(view.settled):
        view.settle_button.click()
    view = open_view(carol, item_id)
    assert view.editor.as_line and view.editor.line.text() == "Paris, France"
    assert view.editor.ops_label.text() == "1 patch operation(s)." and view.blockers() == []
    view.pick_original.click()
    assert view.editor.line.text() == "Paris" and view.verdict.value is None
    view.verdict.buttons["pass"].click()
    with qtbot.waitSignal(view.settled):
        view.settle_button.click()
    assert sqlite_store.item(item_id).gold == "Paris"


def test_settling_twice_in_the_same_view_without_reopening(qtbot, sqlite_store, dataset, carol, open_view):
    """After Settle the view stays on the item; a second Settle (changed mind: Keep the original +
    Pass) was refused as stale, and the banner said someone else settled it meanwhile. The view now
    reads the new versions after a settlement."""
    item_id = dataset[1]["q0"]
    save_annotation(sqlite_store, item_id, "alice", fix({"answer": "X", "n": 0}), None)
    save_annotation(sqlite_store, item_id, "bob", passed(), None)
    view = open_view(carol, item_id)
    view.pick_a.click()
    view.rationale.setPlainText("alice is right")
    with qtbot.waitSignal(view.settled):
        view.settle_button.click()
    view.pick_original.click()
    view.verdict.buttons["pass"].click()
    assert view.settle_button.isEnabled()
    result = view.settle()
    assert not view.banner.isVisible()
    assert result is not None and result.verdict == "pass", view.banner.label.text()
    assert sqlite_store.item(item_id).gold == {"answer": "A0", "n": 0}  # the reviewed gold stands again


def test_take_a_pass_when_the_annotators_saw_different_golds(qtbot, sqlite_store, dataset, carol, open_view):
    """alice passed the gold before an edit, bob fixed the edited one. "Take A" put the gold alice
    saw in the editor and set Pass; the base is the edited gold bob saw, so Pass was blocked as
    'edited' (and a Settle as Pass would not write what alice passed anyway). Taking a Pass or a
    Reject now puts the reviewed gold in the editor: what settling as either keeps."""
    item_id = dataset[1]["q2"]
    save_annotation(sqlite_store, item_id, "alice", passed(), None)
    Review(sqlite_store, "carol").set_gold(item_id, {"answer": "A2 edited", "n": 2},
                                           sqlite_store.item(item_id).version, "typo")
    save_annotation(sqlite_store, item_id, "bob", fix({"answer": "B", "n": 2}), None)
    view = open_view(carol, item_id)
    view.pick_a.click()
    view.rationale.setPlainText("alice is right")
    assert view.blockers() == [], view.blockers()
    assert view.verdict.value == "pass" and view.editor.value == {"answer": "A2 edited", "n": 2}
    with qtbot.waitSignal(view.settled):
        view.settle_button.click()
    assert sqlite_store.item(item_id).gold == {"answer": "A2 edited", "n": 2}


def test_a_gold_edited_after_a_fix_settlement_is_not_shown_and_settling_again_reverts_it(
        qtbot, sqlite_store, dataset, carol, open_view):
    """Settled as Fix X, then the gold corrected directly to X2. Reopened, the form prefills the
    settled fix (X) over the current gold: the editor and its change list (against the reviewed A0)
    never show X2, yet Settle (unchanged, e.g. to reword the rationale) writes X over it. Before
    78a2983 the change list was against the current gold and read '"X2" -> "X"'."""
    item_id = dataset[1]["q0"]
    save_annotation(sqlite_store, item_id, "alice", fix({"answer": "X", "n": 0}), None)
    save_annotation(sqlite_store, item_id, "bob", passed(), None)
    carol_review = Review(sqlite_store, "carol")
    snap = snapshot(sqlite_store, item_id, "carol")
    carol_review.adjudicate(item_id, "fix", {"answer": "X", "n": 0}, "alice", {"ambiguity": "low"},
                            item_version=snap.item_version)
    carol_review.set_gold(item_id, {"answer": "X2", "n": 0}, sqlite_store.item(item_id).version, "typo in the fix")
    view = open_view(carol, item_id)
    shown = view.editor.current_text() + "\n".join(view.editor.changes)
    assert "X2" in shown, "the current gold X2 is nowhere in the decision form"


def test_a_fix_settled_to_null_reopens_as_null(qtbot, sqlite_store, dataset, carol, open_view):
    """The editor's 'current' gold may be JSON null: reopened, the settled null is what the editor
    shows (it showed the reviewed gold, and the Fix read as no change)."""
    item_id = dataset[1]["q1"]
    save_annotation(sqlite_store, item_id, "alice", fix({"answer": "none", "n": 1}), None)
    save_annotation(sqlite_store, item_id, "bob", passed(), None)
    snap = snapshot(sqlite_store, item_id, "carol")
    Review(sqlite_store, "carol").adjudicate(item_id, "fix", None, "there is no answer", {"ambiguity": "low"},
                                             item_version=snap.item_version)
    assert sqlite_store.item(item_id).gold is None
    view = open_view(carol, item_id)
    assert view.editor.current_text().strip() == "null" and view.editor.op_count == 1
    assert view.verdict.value == "fix" and view.blockers() == []
