"""What keeps the GUI thread free around a diff: the result is compact (one text per
pane, no object per line), so the replaced diff is simply dropped when the new one
shows; a big diff shows its first rows before the rest is laid out; taking a value
apart waits for the caller to drop its references to what it handed over; the prepared
panes carry their line numbers and longest line."""

from __future__ import annotations

import threading
import weakref

from tests.ui.test_diff_view import LEFT, RIGHT
from reviewer_ui.diffdoc import FIRST_ROWS, build_diff
from reviewer_ui.runtime.disposal import take_apart
from reviewer_ui.textdoc import TextLines
from reviewer_ui.views.diff_view import DROP_AFTER_MS, DiffView


class Holder:
    def __init__(self, payload):
        self.payload = payload


def test_a_job_waits_for_the_caller_to_let_go_before_taking_apart(qtbot):
    payload = Holder([[i, i + 1] for i in range(1000)])
    box, emptied = [payload], []
    worker = threading.Thread(target=lambda: emptied.append(take_apart(box)))
    worker.start()
    qtbot.waitUntil(lambda: box == [], timeout=3000)  # the job holds it; this test still does too
    del payload
    worker.join(5)
    assert emptied and emptied[0] > 1000, "taken apart piece by piece, not left whole for the caller to free"


def shown_diff_view(qtbot, runner) -> DiffView:
    view = DiffView(runner)
    qtbot.addWidget(view)
    view.resize(900, 600)
    view.show()
    return view


def test_the_replaced_diff_is_dropped_when_the_new_one_shows(qtbot, runner):
    view = shown_diff_view(qtbot, runner)
    with qtbot.waitSignal(view.ready, timeout=5000):
        view.compare(LEFT, RIGHT)
    first = weakref.ref(view.result)
    assert isinstance(view.result.left.lines, TextLines), "one text per pane, not a string per line"
    with qtbot.waitSignal(view.ready, timeout=5000):
        view.compare(RIGHT, LEFT)
    assert view.changes.count() == len(view.result.changes) and view.result.left.lines[1] == '  "name": "Amelie",'
    assert first() is not None, "kept while the new diff paints"
    qtbot.waitUntil(lambda: first() is None, timeout=DROP_AFTER_MS * 10)
    assert view.result is not None


def big_pair():
    left = {"records": [{"id": i, "name": f"record {i}", "tags": ["a", "b"]} for i in range(3000)]}
    right = {"records": [dict(r) for r in left["records"]]}
    right["records"][10]["name"] = "record ten"  # on the first screen
    right["records"][2900]["name"] = "record 2,900"  # far below the first rows
    del right["records"][1500]  # a removed element: laid out member by member, not as one block
    return left, right


def test_a_big_diff_shows_its_first_rows_then_the_whole_where_the_user_looks(qtbot, runner):
    left, right = big_pair()
    view = shown_diff_view(qtbot, runner)
    seen = []
    view.first_screen.connect(lambda: seen.append(("first", len(view.left.document()), view.result.complete)))
    view.ready.connect(lambda: seen.append(("whole", len(view.left.document()), view.result.complete)))
    with qtbot.waitSignal(view.ready, timeout=20000):
        view.compare(left, right)
    assert seen[0][0] == "first" and not seen[0][2] and FIRST_ROWS <= seen[0][1] < FIRST_ROWS + 50
    assert seen[-1][0] == "whole" and seen[-1][1] > 3000 * 6 and seen[-1][2]
    r = view.result
    assert [c.path for c in r.changes] == [("records", 10, "name"), ("records", 1500), ("records", 2900, "name")]
    # The change on the first screen was highlighted in the first rows, the far ones are there now.
    rows = r.change_rows
    assert rows[0] < FIRST_ROWS < rows[1] < rows[2]
    assert r.left.roles.get(rows[0]) == "changed" and '"record ten"' in r.right.lines[rows[0]]
    assert r.right.roles.get(rows[1]) == "filler" and r.left.roles.get(rows[1]) == "removed"
    assert '"record 2,900"' in r.right.lines[rows[2]]
    for _ in range(3):
        view.next_change()
    first = view.left.first_visible_line()
    assert view.left._current == rows[2] and first <= rows[2] < first + view.left.visible_line_count()


def test_the_whole_diff_keeps_the_place_the_user_scrolled_to_in_the_first_rows(qtbot, runner):
    left, right = big_pair()
    view = shown_diff_view(qtbot, runner)
    places = []

    def scroll_down():
        view.left.verticalScrollBar().setValue(1200)  # the user scrolls while the rest is laid out
        places.append(view.right.first_visible_line())

    view.first_screen.connect(scroll_down)
    with qtbot.waitSignal(view.ready, timeout=20000):
        view.compare(left, right)
    assert places == [1200]
    assert view.left.first_visible_line() == 1200 == view.right.first_visible_line()


def test_panes_number_their_lines_and_know_the_longest():
    r = build_diff(None, LEFT, RIGHT)
    for doc in (r.left, r.right):
        numbers = [doc.number(i) for i in range(len(doc))]
        fillers = [i for i, role in doc.roles.items() if role == "filler"]
        assert fillers, "one side lacks a key the other has"
        assert all(numbers[i] is None for i in fillers)
        assert [n for n in numbers if n is not None] == list(range(1, len(doc) - len(fillers) + 1))
        # Both panes know the longest line of the two (they scroll sideways together).
        assert doc.max_len == max(len(line) for pane in (r.left, r.right) for line in pane.lines)
    assert r.differences_only()[0].number(0) == 1
