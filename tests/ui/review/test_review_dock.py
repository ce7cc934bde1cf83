"""The review dock inside the real main window: the shown item reaches the
annotation panel, the verdict keys work from the item table, and N moves the
table's selection to the next item I have not annotated."""

from __future__ import annotations

from PySide6.QtCore import Qt

from reviewer.review.annotate import snapshot
from tests.ui.conftest import open_dataset


def test_dock_follows_the_item_view_and_keys_annotate_from_the_table(qtbot, window, demo_store):
    open_dataset(qtbot, window, "tool_qa")
    ws = window.review
    qtbot.waitUntil(lambda: ws.annotation.detail is not None and ws.annotation.detail.kind == "tool_qa",
                    timeout=5000)
    first = ws.annotation.detail
    window.resize(1366, 768)
    bar = ws.annotation_scroller.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=3000)  # the form is taller than the dock
    bar.setValue(bar.maximum())  # scrolled down to the error tags and the note
    window.activateWindow()
    window.table.setFocus()
    qtbot.waitUntil(window.table.hasFocus, timeout=3000)
    qtbot.keyClick(window.table, Qt.Key.Key_R)  # a verdict key pressed while browsing the table
    qtbot.waitUntil(lambda: (snapshot(demo_store, first.id, ws.session.name).mine or None) is not None,
                    timeout=5000)  # saved off the GUI thread
    assert snapshot(demo_store, first.id, ws.session.name).mine.draft.verdict == "reject"
    qtbot.waitUntil(lambda: ws.annotation.detail.id != first.id, timeout=5000)  # R moved on (the setting)
    assert bar.value() == 0  # the next item's form starts at its top: its stage line and verdict in view
    # the Reject said nothing: the panel has moved on, so the status bar names the item and the warning
    message = window.statusBar().currentMessage()
    assert message.startswith(f"Saved {first.record_id} as Reject") and "no error tag and no note" in message
    second = ws.annotation.detail
    qtbot.keyClick(window.table, Qt.Key.Key_N)
    qtbot.waitUntil(lambda: ws.annotation.detail.id not in (first.id, second.id), timeout=5000)
    assert window.item_view.bundle.detail.id == ws.annotation.detail.id
    assert window.model.item_id(window.current_row()) == ws.annotation.detail.id
    assert snapshot(demo_store, ws.annotation.detail.id, ws.session.name).mine is None


def test_review_menu_offers_identity_next_and_export(qtbot, window):
    menus = {a.text(): a.menu() for a in window.menuBar().actions()}
    texts = [a.text() for a in menus["&Review"].actions() if a.text()]
    assert texts[:4] == ["Identity…", "Next item I have not annotated", "Adjudication queue", "Export Gold…"]
    assert "Review" in texts  # the dock's show/hide toggle


def test_adjudication_can_move_to_a_larger_window(qtbot, window):
    dock = window.review_dock
    assert not dock.isFloating()
    docked = dock.width()
    window.review.adjudication.enlarge_button.click()
    screen = window.screen().availableGeometry()
    # as large as asked (1100 px wide) where the screen has the room, and whole on the screen
    assert dock.isFloating() and dock.width() > docked
    assert dock.width() >= min(1100, screen.width() - (dock.frameGeometry().width() - dock.width()))
    assert screen.contains(dock.frameGeometry())
