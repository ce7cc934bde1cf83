"""The diff view: aligned panes, change list navigation, differences-only mode,
character-level marks inside long strings."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from reviewer_ui.views.diff_view import DiffView

LEFT = {
    "name": "Amelia",
    "bio": "She led the marine robotics group for twelve years before moving to Galway.",
    "items": [{"id": i, "v": i} for i in range(60)],
    "gone": True,
}
RIGHT = {
    "name": "Amelie",
    "bio": "She led the marine robotics group for ten years before moving to Galway.",
    "items": [{"id": i, "v": i if i != 40 else -1} for i in range(60)],
    "new": 1,
}


@pytest.fixture
def diff_view(qtbot, runner):
    view = DiffView(runner)
    qtbot.addWidget(view)
    view.resize(900, 600)
    view.show()
    with qtbot.waitSignal(view.ready, timeout=5000):
        view.compare(LEFT, RIGHT)
    return view


def test_panes_are_aligned_and_changes_listed(diff_view):
    r = diff_view.result
    assert len(r.left) == len(r.right)  # one row per line on both sides
    listed = [diff_view.changes.item(i).text() for i in range(diff_view.changes.count())]
    assert listed[0].startswith("changed $.name")
    assert any(t.startswith("changed $.items[40].v") for t in listed)
    assert any("$.gone" in t for t in listed) and any("$.new" in t for t in listed)
    assert diff_view.summary.text() == "5 differences: 1 added, 1 removed, 3 changed"


def test_next_and_previous_change_move_both_panes(qtbot, diff_view):
    rows = []
    diff_view.current_changed.connect(rows.append)
    diff_view.next_change()
    diff_view.next_change()
    diff_view.next_change()
    assert diff_view.current_change == 2
    row = diff_view.result.change_rows[2]
    assert "v" in diff_view.result.left.lines[row] and "-1" in diff_view.result.right.lines[row]
    assert diff_view.left._current == row == diff_view.right._current
    first, visible = diff_view.left.first_visible_line(), diff_view.left.visible_line_count()
    assert first <= row < first + visible  # scrolled into view
    assert diff_view.right.first_visible_line() == first  # panes scroll together
    diff_view.previous_change()
    assert diff_view.current_change == 1 and rows == [0, 1, 2, 1]
    diff_view.changes.setCurrentRow(3)  # clicking the list navigates too
    assert diff_view.current_change == 3


def test_keyboard_f8_goes_to_the_next_change(qtbot, diff_view):
    diff_view.left.setFocus()
    qtbot.keyClick(diff_view.left, Qt.Key.Key_F8)
    qtbot.keyClick(diff_view.left, Qt.Key.Key_F8)
    assert diff_view.current_change == 1
    qtbot.keyClick(diff_view.left, Qt.Key.Key_F8, Qt.KeyboardModifier.ShiftModifier)
    assert diff_view.current_change == 0


def test_differences_only_folds_equal_lines(qtbot, diff_view):
    full = len(diff_view.left.document())
    diff_view.next_change()
    diff_view.next_change()
    diff_view.next_change()  # $.items[40].v
    diff_view.only_diffs.setChecked(True)
    folded = diff_view.left.document()
    assert len(folded) < full / 2
    assert any(line.startswith("… ") and "equal lines" in line for line in folded.lines)
    row = diff_view.left._current
    assert '"v": 40' in folded.lines[row]  # the current change is still the one shown
    diff_view.only_diffs.setChecked(False)
    assert len(diff_view.left.document()) == full


def test_long_strings_get_character_marks(diff_view):
    r = diff_view.result
    bio = next(c for c in r.changes if c.path == ("bio",))
    row = r.change_rows[r.changes.index(bio)]
    # Only characters inside the edited word are marked, on both sides.
    for doc, word in ((r.left, "twelve"), (r.right, "ten")):
        line = doc.lines[row]
        lo = line.index(word)
        assert doc.spans[row] and all(lo <= s < e <= lo + len(word) for s, e, _ in doc.spans[row])


def test_a_new_compare_replaces_the_old(qtbot, diff_view):
    with qtbot.waitSignal(diff_view.ready, timeout=5000):
        diff_view.compare([1, 2], [1, 2])
    assert diff_view.result.changes == [] and diff_view.summary.text() == "identical"
    assert diff_view.changes.count() == 0


def test_clicking_a_line_shows_its_json_path(qtbot, diff_view):
    from PySide6.QtCore import QPoint

    row = diff_view.result.change_rows[2]  # $.items[40].v
    diff_view.left.scroll_to_line(row, center=False)
    y = (row - diff_view.left.first_visible_line()) * diff_view.left._lh + 2
    qtbot.mouseClick(diff_view.left.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(40, y))
    assert diff_view.path.text() == "gold: $.items[40].v"
    assert diff_view.path_at(row, "right") == "$.items[40].v"
