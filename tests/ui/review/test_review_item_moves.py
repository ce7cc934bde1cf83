"""Moving between items never runs SQL on the GUI thread: the item view loads the item in a
job, and the annotation panel reads its review (``Review.snapshot``) in a job too, showing a
neutral "loading" state until it lands. A newer item wins over an older read."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt

from reviewer.review.annotate import save_annotation, snapshot
from reviewer.review.rubric import Draft
from tests.ui.conftest import shown_main_window
from tests.ui.review.test_review_annotation_panel import SqlThreads, shown_panel


def shown(ws, window) -> bool:
    """The panel shows, loaded, the item the item view shows."""
    bundle = window.item_view.bundle
    return (bundle is not None and ws.annotation.detail is not None and not ws.annotation.loading
            and ws.annotation.detail.id == bundle.detail.id and ws.annotation.snapshot is not None)


def test_moving_between_items_runs_no_sql_on_the_gui_thread(qtbot, demo_store, settings):
    store = demo_store
    window = shown_main_window(qtbot, store, settings, (1366, 768))
    try:
        ws = window.review
        ws.session.set_identity("alice")
        window.select_dataset("demo-tool_qa")
        qtbot.waitUntil(lambda: shown(ws, window) and window.model.rowCount() >= 3, timeout=10000)
        first = ws.annotation.detail.id
        ids = [window.model.item_id(r) for r in range(window.model.rowCount())]
        save_annotation(store, ids[1], "alice", Draft(verdict="reject", ambiguity="medium"), None)  # her earlier work
        window.activateWindow()
        window.table.setFocus()
        qtbot.waitUntil(window.table.hasFocus, timeout=3000)

        sql = SqlThreads(store.engine)
        sql.on = True
        seen = []
        for key in (Qt.Key.Key_J, Qt.Key.Key_J, Qt.Key.Key_K):
            before = ws.annotation.detail.id
            qtbot.keyClick(window.table, key)
            qtbot.waitUntil(lambda: shown(ws, window) and ws.annotation.detail.id != before, timeout=10000)
            seen.append((ws.annotation.detail.id, ws.annotation.draft.verdict, ws.annotation.stage_label.text()))
        sql.on = False
        assert sql.gui == [], f"SQL on the GUI thread while moving between items: {sql.gui[:3]}"
        assert any("annotation" in s for s in sql.worker)  # the review was read, on a worker
        assert [s[0] for s in seen] == [ids[1], ids[2], ids[1]] and first == ids[0]
        assert seen[0][1] == "reject" and seen[1][1] is None and seen[2][1] == "reject"  # each item its own
        assert "waiting for a second review" in seen[0][2]
    finally:
        window.runner.shutdown(5000)


def test_the_panel_is_neutral_while_it_loads_and_a_newer_item_wins(qtbot, sqlite_store, dataset, alice, runner):
    _, ids = dataset
    save_annotation(sqlite_store, ids["q0"], "alice", Draft(verdict="reject", ambiguity="medium"), None)
    panel = shown_panel(qtbot, alice, runner)
    panel.show_item(sqlite_store.item(ids["q0"]))
    qtbot.waitUntil(lambda: not panel.loading, timeout=10000)
    assert panel.draft.verdict == "reject" and panel.verdict.buttons["reject"].isChecked()

    panel.show_item(sqlite_store.item(ids["q1"]))  # q1: not annotated
    # until its review lands: nothing of q0 shown, nothing editable, "loading" said
    assert panel.loading and panel.draft == Draft() and not panel.verdict.buttons["reject"].isChecked()
    assert not panel.verdict.isEnabled() and "loading" in panel.stage_label.text()
    if os.environ.get("REVIEWER_SHOTS"):  # the transient state itself (journeys.shot would let the read land)
        panel.grab().save(os.path.join(os.environ["REVIEWER_SHOTS"], "panel-loading.png"))
    panel.show_item(sqlite_store.item(ids["q0"]))  # and back, before q1's read landed
    panel.show_item(sqlite_store.item(ids["q2"]))
    qtbot.waitUntil(lambda: not panel.loading, timeout=10000)
    assert panel.detail.id == ids["q2"] and panel.draft.verdict is None and panel.verdict.isEnabled()
    assert "Not annotated by you yet" in panel.status.text()

    # a key typed while an item loads applies to that item once it has landed
    panel.show_item(sqlite_store.item(ids["q3"]))
    assert panel.loading
    qtbot.keyClick(panel, Qt.Key.Key_R)
    qtbot.waitUntil(lambda: not panel.loading and not panel.saving, timeout=10000)
    mine = snapshot(sqlite_store, ids["q3"], "alice").mine
    assert mine is not None and mine.draft.verdict == "reject"
    assert snapshot(sqlite_store, ids["q2"], "alice").mine is None


def test_an_adjudicator_moving_between_items_on_the_adjudicate_tab_runs_no_sql_on_the_gui_thread(
        qtbot, demo_store, settings):
    from reviewer.review.annotate import set_role

    store = demo_store
    set_role(store, "carol", "adjudicator")
    window = shown_main_window(qtbot, store, settings, (1366, 768))
    try:
        ws = window.review
        ws.session.set_identity("carol")
        window.select_dataset("demo-tool_qa")
        qtbot.waitUntil(lambda: window.item_view.bundle is not None and window.model.rowCount() >= 3, timeout=10000)
        ids = [window.model.item_id(r) for r in range(window.model.rowCount())]
        for who, verdict in (("alice", "pass"), ("bob", "reject")):  # ids[1] is disputed
            save_annotation(store, ids[1], who, Draft(verdict=verdict, ambiguity="low", difficulty="medium",
                                                     checks={}), None)
        ws.setCurrentWidget(ws.adjudication)
        view = ws.adjudication
        qtbot.waitUntil(lambda: view.detail is not None and view._loading is None, timeout=10000)
        window.activateWindow()
        window.table.setFocus()
        qtbot.waitUntil(window.table.hasFocus, timeout=3000)
        sql = SqlThreads(store.engine)
        sql.on = True
        qtbot.keyClick(window.table, Qt.Key.Key_J)  # to the disputed item: both annotations compared
        qtbot.waitUntil(lambda: view.detail.id == ids[1] and view.a is not None, timeout=10000)
        assert {view.a.annotator, view.b.annotator} == {"alice", "bob"} and view.body.isVisible()
        qtbot.keyClick(window.table, Qt.Key.Key_J)  # to an item nobody annotated
        qtbot.waitUntil(lambda: view.detail.id == ids[2] and view._loading is None, timeout=10000)
        sql.on = False
        assert view.a is None and "needs two" in view.access.text()
        assert sql.gui == [], f"SQL on the GUI thread while moving between items: {sql.gui[:3]}"
    finally:
        window.runner.shutdown(5000)


def test_the_same_item_shown_again_keeps_what_was_typed_but_not_stored(qtbot, sqlite_store, dataset, alice, runner):
    """The host shows the item again while a save is in flight (a run was imported, another
    process wrote, the window refreshed): edits not yet stored survive and are stored, instead of
    being dropped by a fresh read (seen in the first-day journey: a Pass typed just after a run
    import was lost)."""
    _, ids = dataset
    panel = shown_panel(qtbot, alice, runner)
    panel.show_item(sqlite_store.item(ids["q0"]))
    qtbot.waitUntil(lambda: not panel.loading, timeout=10000)
    checks = list(panel.check_rows)
    qtbot.keyClick(panel, Qt.Key.Key_A)  # ambiguity: its save goes off
    assert panel.saving
    qtbot.keyClick(panel, Qt.Key.Key_1)  # the first check: waits for that save
    panel.show_item(sqlite_store.item(ids["q0"]))  # the host refreshes the same item meanwhile
    qtbot.waitUntil(lambda: not panel.saving and not panel.loading, timeout=10000)
    mine = snapshot(sqlite_store, ids["q0"], "alice").mine
    assert mine is not None and mine.draft.ambiguity is not None
    assert mine.draft.checks.get(checks[0]) is True, "the check typed during the refresh was lost"
    assert panel.draft == mine.draft  # and the panel shows what is stored

    panel.show_item(sqlite_store.item(ids["q0"]))  # nothing pending: read again as before
    assert panel.loading
    qtbot.waitUntil(lambda: not panel.loading, timeout=10000)
    assert panel.draft == mine.draft
