"""The annotation panel against a real SQLite store: every change saved, keys,
protocol rules, undo, stale writes, blindness and the personal queue."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from reviewer.review import annotate
from reviewer.review.annotate import save_annotation, snapshot
from reviewer.review.rubric import Draft
from reviewer_ui.review.annotation_panel import AnnotationPanel


def shown_panel(qtbot, session, runner=None) -> AnnotationPanel:
    """An annotation panel on screen with the keyboard focus (keys reach its shortcuts)."""
    panel = AnnotationPanel(session, runner)
    qtbot.addWidget(panel)
    panel.resize(640, 820)
    panel.show()
    qtbot.waitExposed(panel)
    panel.activateWindow()
    panel.setFocus()
    qtbot.waitUntil(panel.hasFocus)
    return panel


@pytest.fixture
def panel_for(qtbot, sqlite_store, dataset):
    def make(session, record_id="q0"):
        panel = shown_panel(qtbot, session)
        panel.show_item(sqlite_store.item(dataset[1][record_id]))
        return panel
    return make


def stored(store, item_id, who):
    mine = snapshot(store, item_id, who).mine
    return mine.draft if mine else None


def press(qtbot, panel, key, modifier=Qt.KeyboardModifier.NoModifier):
    qtbot.keyClick(panel, key, modifier)


def test_each_change_is_saved_at_once_as_a_new_version(qtbot, sqlite_store, dataset, alice, panel_for):
    panel = panel_for(alice)
    item_id = dataset[1]["q0"]
    assert stored(sqlite_store, item_id, "alice") is None
    panel.verdict.buttons["reject"].click()
    assert stored(sqlite_store, item_id, "alice").verdict == "reject"
    first_check = next(iter(panel.check_rows))
    panel.check_rows[first_check].buttons[False].click()
    assert stored(sqlite_store, item_id, "alice").checks[first_check] is False
    panel.ambiguity.buttons["medium"].click()
    tag = panel.tags.topLevelItem(0).child(1)
    tag.setCheckState(0, Qt.CheckState.Checked)
    draft = stored(sqlite_store, item_id, "alice")
    assert draft.ambiguity == "medium" and draft.error_tags == ["semantic_ambiguity"]
    assert snapshot(sqlite_store, item_id, "alice").mine.version == 4
    panel.note.setPlainText("the answer is in the second filing")
    qtbot.waitUntil(lambda: stored(sqlite_store, item_id, "alice").note == "the answer is in the second filing")


def test_keyboard_sets_verdict_checks_ambiguity_and_difficulty(qtbot, sqlite_store, dataset, alice, panel_for):
    panel = panel_for(alice, "x0")  # extraction, depth 5: suggested Hard
    item_id = dataset[1]["x0"]
    assert "Suggested: Hard" in panel.suggested.text()
    press(qtbot, panel, Qt.Key.Key_R)
    assert stored(sqlite_store, item_id, "alice").verdict == "reject"
    press(qtbot, panel, Qt.Key.Key_2)
    assert stored(sqlite_store, item_id, "alice").checks == {"content_faithfulness": True}
    press(qtbot, panel, Qt.Key.Key_2)
    assert stored(sqlite_store, item_id, "alice").checks == {"content_faithfulness": False}
    press(qtbot, panel, Qt.Key.Key_4)  # extraction's fourth check: length compliance
    assert stored(sqlite_store, item_id, "alice").checks["length_compliance"] is True
    press(qtbot, panel, Qt.Key.Key_A)
    press(qtbot, panel, Qt.Key.Key_A)
    assert stored(sqlite_store, item_id, "alice").ambiguity == "medium"
    press(qtbot, panel, Qt.Key.Key_D)  # confirms the suggestion
    assert stored(sqlite_store, item_id, "alice").difficulty == "hard"
    press(qtbot, panel, Qt.Key.Key_D)  # corrects it
    assert stored(sqlite_store, item_id, "alice").difficulty == "medium"
    assert panel.verdict.buttons["reject"].isChecked()


def test_high_ambiguity_disables_pass_with_the_reason(qtbot, sqlite_store, dataset, alice, panel_for):
    panel = panel_for(alice)
    item_id = dataset[1]["q0"]
    for _ in range(3):
        press(qtbot, panel, Qt.Key.Key_A)
    assert stored(sqlite_store, item_id, "alice").ambiguity == "high"
    assert not panel.verdict.buttons["pass"].isEnabled()
    assert "High ambiguity must be Fix or Reject" in panel.pass_note.text()
    press(qtbot, panel, Qt.Key.Key_P)
    assert stored(sqlite_store, item_id, "alice").verdict is None
    assert not panel.verdict.buttons["pass"].isChecked()
    press(qtbot, panel, Qt.Key.Key_A)  # back to Low: Pass is allowed again
    assert panel.verdict.buttons["pass"].isEnabled()
    press(qtbot, panel, Qt.Key.Key_P)
    assert stored(sqlite_store, item_id, "alice").verdict == "pass"


def test_forbidden_draft_stays_local_and_says_why(qtbot, sqlite_store, dataset, alice, panel_for):
    panel = panel_for(alice)
    item_id = dataset[1]["q0"]
    press(qtbot, panel, Qt.Key.Key_P)
    press(qtbot, panel, Qt.Key.Key_1)
    press(qtbot, panel, Qt.Key.Key_1)  # schema conformance: No, while the verdict is Pass
    assert "must be Fix or Reject" in panel.problems_label.text()
    assert "Not saved" in panel.status.text()
    assert stored(sqlite_store, item_id, "alice").checks.get("schema_conformance") is True


def test_undo_saves_the_previous_draft_again_as_a_new_version(qtbot, sqlite_store, dataset, alice, panel_for):
    panel = panel_for(alice)
    item_id = dataset[1]["q0"]
    press(qtbot, panel, Qt.Key.Key_R)
    press(qtbot, panel, Qt.Key.Key_A)
    assert stored(sqlite_store, item_id, "alice").ambiguity == "low"
    press(qtbot, panel, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    mine = snapshot(sqlite_store, item_id, "alice").mine
    assert (mine.draft.verdict, mine.draft.ambiguity, mine.version) == ("reject", None, 3)
    assert not any(b.isChecked() for b in panel.ambiguity.buttons.values())
    press(qtbot, panel, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert stored(sqlite_store, item_id, "alice").verdict is None
    versions = [h.after["verdict"] for h in sqlite_store.history("annotation", mine.id)]
    assert versions == ["reject", "reject", "reject", None]


def test_a_change_made_elsewhere_is_reported_and_never_overwritten(qtbot, sqlite_store, dataset, alice, panel_for):
    panel = panel_for(alice)
    item_id = dataset[1]["q0"]
    press(qtbot, panel, Qt.Key.Key_R)
    # the same annotator in another window
    other = save_annotation(sqlite_store, item_id, "alice", Draft(verdict="reject", note="other window"), 1)
    press(qtbot, panel, Qt.Key.Key_A)
    assert panel.banner.isVisible()
    assert "changed in another window or by someone else" in panel.banner.label.text()
    assert stored(sqlite_store, item_id, "alice").note == "other window"
    press(qtbot, panel, Qt.Key.Key_A)  # further edits are not written either
    assert snapshot(sqlite_store, item_id, "alice").mine.version == other.version
    panel.banner.action.click()  # Reload
    assert not panel.banner.isVisible() and panel.note.toPlainText() == "other window"
    press(qtbot, panel, Qt.Key.Key_A)
    draft = stored(sqlite_store, item_id, "alice")
    assert (draft.ambiguity, draft.note) == ("low", "other window")


def test_the_panel_never_shows_another_annotation_before_or_after_both_submitted(qtbot, sqlite_store, dataset,
                                                                                  alice, bob, panel_for):
    item_id = dataset[1]["q1"]
    save_annotation(sqlite_store, item_id, "bob", Draft(verdict="reject", note="bob's secret reason"), None)
    panel = panel_for(alice, "q1")
    seen = panel.stage_label.text() + panel.others_label.text()
    assert "not reviewed by you yet" in seen
    assert "secret" not in seen and "bob" not in seen
    press(qtbot, panel, Qt.Key.Key_P)  # now the item has two verdicts that disagree
    panel.reload()
    text = panel.stage_label.text() + panel.others_label.text()
    assert "with the adjudicator" in text
    assert "bob" not in text and "secret" not in text and "reject" not in text  # still blind


def test_n_goes_to_the_next_item_i_have_not_annotated(qtbot, sqlite_store, dataset, alice, panel_for):
    _, ids = dataset
    save_annotation(sqlite_store, ids["q1"], "alice", Draft(verdict="reject"), None)
    panel = panel_for(alice, "q0")
    press(qtbot, panel, Qt.Key.Key_R)
    with qtbot.waitSignal(panel.navigate) as sig:
        press(qtbot, panel, Qt.Key.Key_N)
    assert sig.args == [ids["q2"]]  # q1 is done already
    panel.show_item(sqlite_store.item(ids["q2"]))
    assert panel.title.text().endswith("q2")


def test_n_saves_a_pending_note_before_leaving(qtbot, sqlite_store, dataset, alice, panel_for):
    panel = panel_for(alice, "q3")
    panel.note.setPlainText("typed just before N")
    with qtbot.waitSignal(panel.navigate):
        press(qtbot, panel, Qt.Key.Key_N)
    assert stored(sqlite_store, dataset[1]["q3"], "alice").note == "typed just before N"


def test_queue_done_when_nothing_needs_me(qtbot, sqlite_store, dataset, alice, panel_for):
    _, ids = dataset
    for rid, item_id in ids.items():
        save_annotation(sqlite_store, item_id, "alice", Draft(verdict="reject"), None)
    panel = panel_for(alice, "q0")
    with qtbot.waitSignal(panel.queue_done):
        press(qtbot, panel, Qt.Key.Key_N)
    assert "queue is empty" in panel.status.text()


def test_fix_through_the_editor_is_stored_as_the_fix(qtbot, sqlite_store, dataset, alice, panel_for):
    panel = panel_for(alice, "q2")
    item_id = dataset[1]["q2"]
    press(qtbot, panel, Qt.Key.Key_F)
    editor = panel.fix_editor
    assert panel.fix_dialog.isVisible() and "a Fix needs the corrected gold" in panel.problems_label.text()
    assert stored(sqlite_store, item_id, "alice") is None  # a Fix without a fix is not saved
    editor.text.setPlainText('{"answer": "A2 corrected", "n": 2}')
    editor.save_button.click()
    draft = stored(sqlite_store, item_id, "alice")
    assert draft.verdict == "fix" and draft.fixed_gold == {"answer": "A2 corrected", "n": 2}
    assert not panel.fix_dialog.isVisible()
    press(qtbot, panel, Qt.Key.Key_R)  # away from Fix and back: the fix comes back
    assert stored(sqlite_store, item_id, "alice").fixed_gold is None
    press(qtbot, panel, Qt.Key.Key_F)
    assert stored(sqlite_store, item_id, "alice").fixed_gold == {"answer": "A2 corrected", "n": 2}


def test_identity_switch_shows_the_other_annotators_view(qtbot, sqlite_store, dataset, alice, panel_for):
    panel = panel_for(alice, "q0")
    press(qtbot, panel, Qt.Key.Key_R)
    annotate.set_role(sqlite_store, "dave", "annotator")
    alice.set_identity("dave")
    assert panel.who.text() == "as dave"
    assert not any(b.isChecked() for b in panel.verdict.buttons.values())
    seen = panel.stage_label.text() + panel.others_label.text()
    assert "not reviewed by you yet" in seen and "reject" not in seen


def test_a_pending_note_is_saved_under_the_old_name_when_identity_changes(qtbot, sqlite_store, dataset, alice,
                                                                           panel_for):
    panel = panel_for(alice, "q3")
    panel.note.setPlainText("alice's thought")
    alice.set_identity("dave")
    assert stored(sqlite_store, dataset[1]["q3"], "alice").note == "alice's thought"
    assert stored(sqlite_store, dataset[1]["q3"], "dave") is None and panel.note.toPlainText() == ""


def test_checks_and_tags_follow_the_item_kind(qtbot, sqlite_store, dataset, alice, panel_for):
    panel = panel_for(alice, "x0")
    assert list(panel.check_rows)[-1] == "length_compliance"
    assert panel.tags.topLevelItem(0).text(0) == "extraction (paper 001)"
    panel.show_item(sqlite_store.item(dataset[1]["q0"]))
    assert list(panel.check_rows) == ["schema_conformance", "content_faithfulness", "cross_field_consistency"]
    assert panel.tags.topLevelItem(0).text(0) == "tool output (paper 000)"
    assert panel.suggested.text().startswith("Suggested: Medium (depth 1)")


def test_identity_dialog_says_local_profiles_are_not_access_control(qtbot, sqlite_store, alice):
    from reviewer_ui.review.identity_dialog import IdentityDialog

    dialog = IdentityDialog(alice)
    qtbot.addWidget(dialog)
    assert "Local profiles are not access control" in dialog.note.text()
    assert not dialog.name.isReadOnly()  # a local profile can be switched (it is not a security boundary)


def test_p_submits_and_advances_to_the_next_item_and_the_verdict_row_does_not_move(qtbot, sqlite_store, dataset,
                                                                                    alice, panel_for):
    _, ids = dataset
    panel = panel_for(alice, "q0")
    # A text change only posts the relayout (LayoutRequest): run it before each measurement, or
    # both positions are read from the same stale geometry and "nothing moved" holds regardless.
    panel.layout().activate()
    top = panel.verdict.buttons["pass"].mapTo(panel, panel.verdict.buttons["pass"].rect().topLeft())
    below = panel.checks_box.mapTo(panel, panel.checks_box.rect().topLeft())
    press(qtbot, panel, Qt.Key.Key_2)  # content faithfulness: Yes
    press(qtbot, panel, Qt.Key.Key_2)  # ... No: Pass becomes unavailable, a reason is shown
    assert not panel.verdict.buttons["pass"].isEnabled() and "Pass is unavailable" in panel.pass_note.text()
    panel.layout().activate()
    assert panel.checks_box.mapTo(panel, panel.checks_box.rect().topLeft()) == below  # nothing moved
    assert panel.verdict.buttons["pass"].mapTo(panel, panel.verdict.buttons["pass"].rect().topLeft()) == top
    press(qtbot, panel, Qt.Key.Key_2)  # Yes again
    with qtbot.waitSignal(panel.navigate) as sig:
        press(qtbot, panel, Qt.Key.Key_P)
    assert sig.args == [ids["q1"]]
    alice.set_advance_after_verdict(False)
    panel.show_item(sqlite_store.item(ids["q1"]))
    with qtbot.assertNotEmitted(panel.navigate):
        press(qtbot, panel, Qt.Key.Key_R)
    assert stored(sqlite_store, ids["q1"], "alice").verdict == "reject"


# -- saves run on the job runner, off the GUI thread ------------------------------------------------------


@pytest.fixture
def async_panel(qtbot, sqlite_store, dataset, runner):
    """A panel with a job runner, hosted the way the workspace hosts it: ``navigate`` shows the
    asked-for item a moment later (the item view loads it in a job)."""
    from PySide6.QtCore import QTimer

    def make(session, record_id="q0"):
        panel = shown_panel(qtbot, session, runner)
        # (The panel as the timer's context: a show still pending when the test ends is dropped
        # with the panel, rather than run on its deleted widgets during the next test.)
        panel.navigate.connect(lambda item_id: QTimer.singleShot(30, panel, lambda: panel.show_item(
            sqlite_store.item(item_id))))
        panel.show_item(sqlite_store.item(dataset[1][record_id]))
        qtbot.waitUntil(lambda: not panel.loading, timeout=10000)  # its review is read in a job too
        return panel
    return make


class SqlThreads:
    """Which threads run SQL on the store's engine while it is switched on."""

    def __init__(self, engine):
        import threading

        from sqlalchemy import event

        self.on = False
        self.gui, self.worker = [], []

        def seen(conn, cursor, statement, *_):
            if self.on:
                (self.gui if threading.current_thread() is threading.main_thread() else self.worker).append(statement)

        event.listen(engine, "before_cursor_execute", seen)


def test_saves_run_off_the_gui_thread_and_land_in_the_panel(qtbot, sqlite_store, dataset, alice, async_panel):
    alice.set_advance_after_verdict(False)
    panel = async_panel(alice, "q0")
    item_id = dataset[1]["q0"]
    sql = SqlThreads(sqlite_store.engine)
    sql.on = True
    landed = []
    panel.landed.connect(landed.append)
    press(qtbot, panel, Qt.Key.Key_R)
    assert panel.saving and panel.status.text() == "Saving…"  # the key returned before the store was written
    press(qtbot, panel, Qt.Key.Key_A)  # typed while the first save is in flight: it follows that one
    qtbot.waitUntil(lambda: not panel.saving, timeout=10000)
    sql.on = False
    assert sql.gui == [] and any("annotation" in s for s in sql.worker)  # no SQL on the GUI thread
    draft = stored(sqlite_store, item_id, "alice")
    assert (draft.verdict, draft.ambiguity) == ("reject", "low")
    assert panel.version == 2 and panel.saved_draft == panel.draft and "Saved version 2" in panel.status.text()
    assert landed[-1].progress.mine == 1  # the count came with the save
    assert "waiting for a second review" in panel.stage_label.text()


def test_rapid_p_p_f_loses_nothing(qtbot, sqlite_store, dataset, alice, async_panel):
    _, ids = dataset
    panel = async_panel(alice, "q0")
    for key in (Qt.Key.Key_P, Qt.Key.Key_P, Qt.Key.Key_F):  # as fast as a person types: no waiting between
        press(qtbot, panel, key)
    qtbot.waitUntil(lambda: panel.fix_dialog is not None and panel.fix_dialog.isVisible(), timeout=10000)
    assert panel.detail.id == ids["q2"]  # P on q0, P on q1 (each moved on), F on q2 opened the fix editor
    assert stored(sqlite_store, ids["q0"], "alice").verdict == "pass"
    assert stored(sqlite_store, ids["q1"], "alice").verdict == "pass"
    assert stored(sqlite_store, ids["q2"], "alice") is None  # a Fix is saved with its fix, not before
    assert "Fix the gold of q2" in panel.fix_editor.title.text()
    qtbot.waitUntil(panel.fix_editor.text.hasFocus, timeout=3000)  # F, then type: the keys go to the gold
    panel.fix_editor.text.setPlainText('{"answer": "A2 corrected", "n": 2}')
    panel.fix_editor.save_button.click()
    qtbot.waitUntil(lambda: panel.detail.id == ids["q3"], timeout=10000)  # stored, closed, moved on
    assert not panel.fix_dialog.isVisible()
    assert stored(sqlite_store, ids["q2"], "alice").fixed_gold == {"answer": "A2 corrected", "n": 2}


def test_a_stale_write_on_the_worker_still_shows_the_reload_banner(qtbot, sqlite_store, dataset, alice,
                                                                   async_panel):
    alice.set_advance_after_verdict(False)
    panel = async_panel(alice, "q0")
    item_id = dataset[1]["q0"]
    press(qtbot, panel, Qt.Key.Key_R)
    qtbot.waitUntil(lambda: not panel.saving, timeout=10000)
    save_annotation(sqlite_store, item_id, "alice", Draft(verdict="reject", note="other window"), 1)
    press(qtbot, panel, Qt.Key.Key_A)
    qtbot.waitUntil(lambda: panel.banner.isVisible(), timeout=10000)
    assert "changed in another window or by someone else" in panel.banner.label.text()
    assert stored(sqlite_store, item_id, "alice").note == "other window"
    panel.banner.action.click()
    qtbot.waitUntil(lambda: not panel.loading, timeout=10000)  # the stored annotation is read in a job
    assert not panel.stale and panel.draft.note == "other window"


def test_undo_on_the_worker_saves_the_previous_draft_as_a_new_version(qtbot, sqlite_store, dataset, alice,
                                                                      async_panel):
    alice.set_advance_after_verdict(False)
    panel = async_panel(alice, "q0")
    item_id = dataset[1]["q0"]
    press(qtbot, panel, Qt.Key.Key_R)
    press(qtbot, panel, Qt.Key.Key_A)
    qtbot.waitUntil(lambda: not panel.saving, timeout=10000)
    press(qtbot, panel, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: not panel.saving and panel.version == 3, timeout=10000)
    assert stored(sqlite_store, item_id, "alice").ambiguity is None


def test_an_item_chosen_while_a_verdict_saves_wins_over_moving_on(qtbot, sqlite_store, dataset, alice,
                                                                  async_panel):
    _, ids = dataset
    panel = async_panel(alice, "q0")
    asked = []
    panel.navigate.connect(asked.append)
    press(qtbot, panel, Qt.Key.Key_P)  # saves, and would move on to q1...
    panel.show_item(sqlite_store.item(ids["q3"]))  # ...but she clicked q3 in the table meanwhile
    qtbot.waitUntil(lambda: not panel.saving and panel.detail.id == ids["q3"], timeout=10000)
    assert stored(sqlite_store, ids["q0"], "alice").verdict == "pass" and asked == []
    press(qtbot, panel, Qt.Key.Key_R)  # keys apply to q3 now
    qtbot.waitUntil(lambda: (stored(sqlite_store, ids["q3"], "alice") or Draft()).verdict == "reject",
                    timeout=10000)


def test_a_reject_without_a_reason_is_saved_and_asks_why(qtbot, sqlite_store, dataset, alice, panel_for):
    """The walkthrough: R alone saved a Reject with no tag and no note, and the adjudicator had
    nothing to weigh. It is still saved at one key, and the panel asks for a reason until one is given."""
    panel = panel_for(alice)
    item_id = dataset[1]["q0"]
    press(qtbot, panel, Qt.Key.Key_R)
    qtbot.waitUntil(lambda: stored(sqlite_store, item_id, "alice").verdict == "reject", timeout=5000)
    assert "say why" in panel.problems_label.text() and panel.problems_label.isVisible()
    first_tag = panel.tags.topLevelItem(0).child(0)
    first_tag.setCheckState(0, Qt.CheckState.Checked)  # a tag is reason enough
    qtbot.waitUntil(lambda: bool(stored(sqlite_store, item_id, "alice").error_tags), timeout=5000)
    assert "say why" not in panel.problems_label.text()
