"""Keyboard only: Tab leaves the item table for the item view and the Review panel,
Shift+Tab goes back to the filters, and the arrow keys still move within the table."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from tests.ui.conftest import open_dataset, shown_main_window


def _inside(widget, container) -> bool:
    return widget is not None and (widget is container or container.isAncestorOf(widget))


def _tab_until(qtbot, reached, key=Qt.Key.Key_Tab, presses: int = 40) -> list:
    """Press ``key`` on whatever has the focus until ``reached(focus)``; the widgets passed."""
    seen = []
    for _ in range(presses):
        before = QApplication.focusWidget()
        qtbot.keyClick(before, key)
        qtbot.waitUntil(lambda: QApplication.focusWidget() is not None, timeout=1000)
        seen.append(QApplication.focusWidget())
        if reached(seen[-1]):
            return seen
    raise AssertionError(f"not reached in {presses} presses: {[type(w).__name__ for w in seen]}")


def test_tab_leaves_the_item_table_and_reaches_every_part(qtbot, demo_store, settings):
    w = shown_main_window(qtbot, demo_store, settings, size=(1366, 768))
    try:
        layout = open_dataset(qtbot, w, "tool_qa")  # several items
        w.activateWindow()
        qtbot.waitUntil(w.isActiveWindow, timeout=3000)
        w.table.setFocus()
        qtbot.waitUntil(lambda: QApplication.focusWidget() is w.table, timeout=1000)
        row = w.current_row()
        qtbot.keyClick(w.table, Qt.Key.Key_Down)  # the arrows still move within the table
        qtbot.waitUntil(lambda: w.current_row() == row + 1, timeout=1000)

        qtbot.keyClick(w.table, Qt.Key.Key_Tab)
        assert QApplication.focusWidget() is not w.table, "Tab moved from cell to cell inside the table"
        # On from the table: the item view (its material), then the Review panel.
        seen = _tab_until(qtbot, lambda f: _inside(f, w.review_dock))
        assert any(_inside(f, layout) for f in seen), "the item's material was never reached"
        assert all(not _inside(f, w.browser) for f in seen[:-1]), "the browser came before the Review panel"

        # Back: Shift+Tab from the table reaches the filters' search box.
        w.table.setFocus()
        qtbot.waitUntil(lambda: QApplication.focusWidget() is w.table, timeout=1000)
        _tab_until(qtbot, lambda f: f is w.filters.search, key=Qt.Key.Key_Backtab)
    finally:
        w.runner.shutdown(5000)

