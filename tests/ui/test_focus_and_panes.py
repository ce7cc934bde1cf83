"""Focus mode shows only the material, gold vs output and the verdict (and gives
back what it hid); pane sizes are remembered per item kind across restarts."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.ui.conftest import open_dataset, shown_main_window


def test_focus_mode_by_keyboard_and_back(qtbot, window):
    layout = open_dataset(qtbot, window, "extraction")
    window.runs_dock.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    window.table.setFocus()
    qtbot.keyClick(window.table, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert window.focus_action.isChecked()
    assert not window.browser.isVisible() and not window.item_view.facts.isVisible()
    assert not window.runs_dock.isVisible() and window.review_dock.isVisible()
    assert layout.tabs.currentWidget() is layout.diff and layout.source.isVisible()
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert not window.focus_action.isChecked()
    assert window.browser.isVisible() and window.item_view.facts.isVisible() and window.runs_dock.isVisible()


def _share(sizes) -> float:
    return sizes[0] / sum(sizes)


def test_pane_sizes_are_kept_per_item_kind(qtbot, demo_store, settings):
    """The split a user drags to comes back per kind. Compared as the left pane's share: the
    item view's width may differ by a few dozen px between sessions (the Review dock fits the
    widest rubric seen), and the defaults (3:2, a share of 0.6) are far from both splits here."""
    w = shown_main_window(qtbot, demo_store, settings, size=(1366, 768))
    try:
        qa = open_dataset(qtbot, w, "tool_qa")
        qa.splitter.setSizes([150, 450])
        qa_share = _share(qa.splitter.sizes())
        ex = open_dataset(qtbot, w, "extraction")
        ex.splitter.setSizes([200, 400])
        ex_share = _share(ex.splitter.sizes())
        assert qa_share < 0.5 and ex_share < 0.5  # far from the default 0.6 (more than twice the tolerance)
        assert qa.splitter.objectName() != ex.splitter.objectName()
        w.close()
    finally:
        w.runner.shutdown(5000)
    again = shown_main_window(qtbot, demo_store, settings, size=(1366, 768))
    try:
        ex = open_dataset(qtbot, again, "extraction")
        qtbot.waitUntil(lambda: abs(_share(ex.splitter.sizes()) - ex_share) <= 0.05, timeout=3000)
        qa = open_dataset(qtbot, again, "tool_qa")
        qtbot.waitUntil(lambda: abs(_share(qa.splitter.sizes()) - qa_share) <= 0.05, timeout=3000)
    finally:
        again.runner.shutdown(5000)
