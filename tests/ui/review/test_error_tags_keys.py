"""Error tags from the keyboard (walkthrough finding: no key reached them): T puts the keyboard
in the Annotate tab's error tags, scrolled into view at 1366x768 as at 1920x1080; arrows move,
Space ticks, and the verdict key then saves the Reject with its tag. Screenshots of each step
go to $REVIEWER_SHOTS when set (tests/ui/journeys.shot)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, Qt

from tests.ui.journeys import shot, show_row, wait_idle, window_signed_in


def _row_in_view(tags, item, area) -> bool:
    """Whether the tag's row is drawn inside the scroll area's viewport (not scrolled away)."""
    row = tags.visualItemRect(item)
    box = QRect(tags.viewport().mapTo(area.viewport(), row.topLeft()), row.size())
    return not row.isEmpty() and area.viewport().rect().contains(box)


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_t_reaches_the_error_tags_and_space_ticks_one_saved_with_the_reject(qtbot, demo_store, tmp_path, size):
    from PySide6.QtWidgets import QApplication

    window = window_signed_in(qtbot, demo_store, tmp_path, size, "alice", "demo-tool_qa")
    panel, area = window.review.annotation, window.review.annotation_scroller
    stored: list = []
    panel.saved.connect(stored.append)
    try:
        item_id = show_row(qtbot, window, 0)
        wait_idle(qtbot, window)
        window.activateWindow()
        window.table.setFocus()
        qtbot.waitUntil(window.table.hasFocus, timeout=3000)
        shot(window, "1-item")

        qtbot.keyClick(window.table, Qt.Key.Key_T)  # from the item table, as the other panel keys
        qtbot.waitUntil(panel.tags.hasFocus, timeout=3000)
        first = panel.tags.currentItem()
        assert first is not None and first.parent() is not None, "the keyboard lands on a tag, not a heading"
        qtbot.waitUntil(lambda: _row_in_view(panel.tags, first, area), timeout=3000)
        shot(window, "2-tags")

        qtbot.keyClick(panel.tags, Qt.Key.Key_Down)
        second = panel.tags.currentItem()
        tag = second.data(0, Qt.ItemDataRole.UserRole)
        assert second is not first and tag
        qtbot.keyClick(panel.tags, Qt.Key.Key_Space)
        assert second.checkState(0) == Qt.CheckState.Checked and panel.draft.error_tags == [tag]
        assert first.checkState(0) == Qt.CheckState.Unchecked
        shot(window, "3-ticked")

        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_R)  # the verdict key works from the tags
        qtbot.waitUntil(lambda: any(s.item_id == item_id and s.draft.verdict == "reject"
                                    and s.draft.error_tags == [tag] for s in stored), timeout=10000)
        review = next(c for c in range(window.model.columnCount())
                      if window.model.headerData(c, Qt.Orientation.Horizontal) == "Review")
        row = next(r for r in range(window.model.rowCount()) if window.model.item_id(r) == item_id)
        qtbot.waitUntil(lambda: "you: reject" in str(window.model.index(row, review).data()), timeout=10000)
        wait_idle(qtbot, window)
        # the next item's tags have the keyboard again: not the "Next item I have not annotated"
        # button, which Qt gave it while the form was disabled (a Space there jumped to another item)
        qtbot.waitUntil(lambda: panel.tags.isEnabled(), timeout=5000)
        assert QApplication.focusWidget() is panel.tags, QApplication.focusWidget()
        shot(window, "4-saved")
    finally:
        panel.saved.disconnect(stored.append)
        wait_idle(qtbot, window)
        window.runner.shutdown(5000)
        window.close()
