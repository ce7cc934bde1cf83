"""The Adjudicate tab fits the Review dock at 1366x768 and 1920x1080: on a real disputed item
(alice passed, bob rejected) nothing in it is cut (tools/fitcheck finds no problem), it needs no
sideways scrolling, every "Final gold:" button and "Larger window" lie whole inside the page's
viewport, and "Larger window" and Settle (with what blocks it) stay in view while the view
scrolls; the original gold is no taller than its text. Screenshots of each size are saved to
/tmp/adj_shots/ (or $ADJ_SHOTS)."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import QPoint, QRect

from reviewer.review import annotate
from reviewer.review.rubric import Draft
from tests.ui.journeys import become, show_row, wait_idle, window_signed_in
from tools.fitcheck import fit_problems

MAX_DOCK = 420  # px: the Review dock at 1366x768 (tests/ui/review/test_review_dock_width.py)
SHOTS = os.environ.get("ADJ_SHOTS", "/tmp/adj_shots")


def _in_viewport(widget, area) -> bool:
    """Whether ``widget`` is drawn whole inside the scroll area's viewport (not scrolled away)."""
    viewport = area.viewport()
    box = QRect(widget.mapTo(viewport, QPoint(0, 0)), widget.size())
    return widget.isVisible() and viewport.rect().contains(box)


def _scroller_of(widget, top):
    """The nearest scroll area between ``widget`` and ``top`` (or the workspace page above it)."""
    from PySide6.QtWidgets import QScrollArea

    w = widget.parentWidget()
    while w is not None and not isinstance(w, QScrollArea):
        w = w.parentWidget()
    return w


def _not_scrolled_away(widget, top) -> bool:
    """Whether no scroll area between ``widget`` and ``top`` hides any of it."""
    from PySide6.QtWidgets import QAbstractScrollArea

    w = widget.parentWidget()
    while w is not None and w is not top:
        if isinstance(w, QAbstractScrollArea) and not _in_viewport(widget, w):
            return False
        w = w.parentWidget()
    return True


def _content_height(text) -> int:
    """What a read-only gold text box needs to show its lines, at least PANE_LINES of them."""
    from reviewer_ui.review.adjudication_view import PANE_LINES

    lines = max(PANE_LINES, text.blockCount())
    return (lines * text.fontMetrics().lineSpacing() + 2 * text.frameWidth() + 8
            + text.horizontalScrollBar().sizeHint().height())


def _nestools_fix(gold):
    """alice's fix of the demo NesTools chain: the booking goes to another passenger."""
    fixed = [dict(call, parameters=dict(call["parameters"])) for call in gold]
    fixed[1]["parameters"]["passenger"] = "Ines M. Sousa"
    return fixed


def _disputed_window(qtbot, store, tmp_path, size, who=("alice", "bob"), dataset="demo-tool_qa",
                     record="bikes-1", verdicts=("pass", "reject")):
    annotate.set_role(store, "carol", "adjudicator")
    item = store.find_item(dataset, record)
    for name, verdict in zip(who, verdicts):  # the two annotators disagree
        annotate.set_role(store, name, "annotator")
        fixed = _nestools_fix(item.gold) if verdict == "fix" else None
        annotate.save_annotation(store, item.id, name, Draft(verdict=verdict, ambiguity="low", difficulty="medium",
                                                             checks={}, fixed_gold=fixed), None)
    # signed in as the first annotator: the dock opens sized for annotating, as in the journey
    window = window_signed_in(qtbot, store, tmp_path, size, who[0], dataset)
    return window, item


def open_from_queue(qtbot, window, item_id: int) -> None:
    """As the signed-in adjudicator: Review > Adjudication queue (Ctrl+Shift+A), then Enter on the
    item in the queue: the Adjudicate tab opens it."""
    from PySide6.QtCore import Qt

    ws = window.review
    queue = ws.queues.queue_list
    qtbot.waitUntil(lambda: any(queue.item(i).data(Qt.ItemDataRole.UserRole) == item_id
                                for i in range(queue.count())), timeout=10000)
    window.activateWindow()
    window.table.setFocus()
    qtbot.waitUntil(window.table.hasFocus, timeout=3000)
    qtbot.keyClick(window.table, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(queue.hasFocus, timeout=3000)
    while queue.currentItem() is None or queue.currentItem().data(Qt.ItemDataRole.UserRole) != item_id:
        before = queue.currentRow()
        qtbot.keyClick(queue, Qt.Key.Key_Down)
        assert queue.currentRow() != before, "the item is not in the adjudication queue"
    qtbot.keyClick(queue, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: ws.current_panel() is ws.adjudication, timeout=3000)



def wait_shown(qtbot, view, item_id: int) -> None:
    """Until the Adjudicate tab shows ``item_id`` with its two annotations (the read has landed)."""
    qtbot.waitUntil(lambda: view.detail is not None and view.detail.id == item_id and view.a is not None
                    and view.body.isVisible(), timeout=10000)


def close_window(qtbot, window) -> None:
    """End a test's window once its jobs are done."""
    wait_idle(qtbot, window)
    window.runner.shutdown(5000)
    window.close()

@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_adjudicate_tab_fits_the_dock_on_a_disputed_item(qtbot, demo_store, tmp_path, size):
    window, item = _disputed_window(qtbot, demo_store, tmp_path, size)
    ws = window.review
    view = ws.adjudication
    try:
        wait_idle(qtbot, window)
        become(qtbot, window, "carol", "adjudicator")  # alice hands over to carol, the adjudicator
        ws.setCurrentWidget(view)
        row = next(r for r in range(window.model.rowCount()) if window.model.item_id(r) == item.id)
        show_row(qtbot, window, row)
        wait_shown(qtbot, view, item.id)
        wait_idle(qtbot, window)
        page = ws._pages[view]
        picks = [view.pick_a, view.pick_b, view.pick_merge, view.pick_original]

        def fits() -> bool:
            return (fit_problems(ws) == [] and page.horizontalScrollBar().maximum() == 0
                    and _in_viewport(view.enlarge_button, page))

        try:  # the dock and the page settle in posted layout events
            qtbot.waitUntil(fits, timeout=3000)
        except qtbot.TimeoutError:
            pass  # the asserts below say what does not fit
        os.makedirs(SHOTS, exist_ok=True)
        window.grab().save(os.path.join(SHOTS, f"adjudicate-{size[0]}x{size[1]}.png"))
        window.review_dock.grab().save(os.path.join(SHOTS, f"adjudicate-{size[0]}x{size[1]}-dock.png"))
        assert fit_problems(ws) == []
        if size == (1366, 768):  # it fits the dock sized for annotating, not by taking the item's room
            assert window.review_dock.width() <= MAX_DOCK, f"the Review dock grew to {window.review_dock.width()} px"
        assert page.horizontalScrollBar().maximum() == 0, "the Adjudicate tab scrolls sideways"
        assert _in_viewport(view.enlarge_button, page), "'Larger window' is not in view as the item opens"
        # Settle, and why it cannot run yet, are in view as the item opens, before any scrolling
        assert _in_viewport(view.settle_button, page) and _not_scrolled_away(view.settle_button, view), \
            "Settle is not in view as the item opens"
        assert view.problems.isVisible() and "verdict" in view.problems.text().lower(), view.problems.text()
        assert _not_scrolled_away(view.problems, view)
        # The original gold ("7", one line) is as tall as its content (at least PANE_LINES lines),
        # no taller: the spare height goes to the panes that need it (the final gold's editor).
        original = view.panes["original"].text
        assert original.height() <= _content_height(original) + 2, \
            f"the original gold ({original.blockCount()} line) takes {original.height()} px"
        # The view may scroll down to the decision (never sideways): scrolled to, each button is
        # whole, and "Larger window" stays in view above what scrolls.
        area = _scroller_of(view.picks, view)
        area.ensureWidgetVisible(view.picks)
        qtbot.waitUntil(lambda: _in_viewport(view.picks, area), timeout=3000)
        cut = [b.text() for b in picks if not _in_viewport(b, area)]
        assert cut == [], f"final-gold buttons not wholly in view: {cut}"
        window.review_dock.grab().save(os.path.join(SHOTS, f"adjudicate-{size[0]}x{size[1]}-dock-decide.png"))
        assert area.horizontalScrollBar().value() == 0
        area.verticalScrollBar().setValue(area.verticalScrollBar().maximum())  # scrolled to the bottom
        assert _in_viewport(view.enlarge_button, page) and _not_scrolled_away(view.enlarge_button, view), \
            "'Larger window' scrolled out of view with the decision"
        assert _not_scrolled_away(view.settle_button, view), "Settle scrolled out of view"
        assert {view.a.annotator, view.b.annotator} == {"alice", "bob"}
    finally:
        close_window(qtbot, window)


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_nestools_comparison_shows_a_and_b_beside_its_long_check_labels(qtbot, demo_store, tmp_path, size):
    """A NesTools (call chain) item has long check names ("Query mentions every non-nested parameter
    and fits the chain"): as row labels they took the whole table (a 432 px label column, 0 px of
    values at 1366x768). The A and B values are what the adjudicator reads: both columns are in
    view and readable beside the labels, which wrap (the whole rubric line is their tooltip)."""
    from PySide6.QtCore import Qt

    window, item = _disputed_window(qtbot, demo_store, tmp_path, size, dataset="demo-call_chain",
                                    record="trip-1", verdicts=("fix", "pass"))
    ws = window.review
    view = ws.adjudication
    try:
        wait_idle(qtbot, window)
        become(qtbot, window, "carol", "adjudicator")
        window.activateWindow()
        window.table.setFocus()
        open_from_queue(qtbot, window, item.id)
        wait_shown(qtbot, view, item.id)
        wait_idle(qtbot, window)
        table = view.table
        labels = [table.verticalHeaderItem(r).text() for r in range(table.rowCount())]
        long_row = labels.index("Query mentions every non-nested parameter and fits the chain")
        min_value = table.fontMetrics().horizontalAdvance("yes") * 4

        def values_in_view() -> bool:
            vp = table.viewport().width()
            return all(table.columnViewportPosition(c) >= 0
                       and table.columnViewportPosition(c) + table.columnWidth(c) <= vp + 1
                       and table.columnWidth(c) >= min_value for c in (0, 1)) and fit_problems(ws) == []

        try:
            qtbot.waitUntil(values_in_view, timeout=3000)
        except qtbot.TimeoutError:
            pass  # the asserts below say what does not fit
        os.makedirs(SHOTS, exist_ok=True)
        window.grab().save(os.path.join(SHOTS, f"adjudicate-nestools-{size[0]}x{size[1]}.png"))
        vp = table.viewport().width()
        where = (f"values {vp} px wide beside a {table.verticalHeader().width()} px label column; "
                 f"columns {table.columnWidth(0)} and {table.columnWidth(1)} px")
        for c in (0, 1):
            assert table.columnViewportPosition(c) + table.columnWidth(c) <= vp + 1, f"column {c} off view: {where}"
            assert table.columnWidth(c) >= min_value, f"column {c} too narrow to read: {where}"
        assert fit_problems(ws) == []
        assert table.verticalScrollBar().maximum() == 0, "the comparison scrolls: a row is hidden"
        if size == (1366, 768):
            assert window.review_dock.width() <= MAX_DOCK, f"the Review dock grew to {window.review_dock.width()} px"
        # The long label wraps: its row is tall enough for its lines, and it names the whole check on hover.
        header = table.verticalHeader()
        width = header.width() - 8
        lines = header.fontMetrics().boundingRect(0, 0, width, 10000, Qt.TextFlag.TextWordWrap, labels[long_row])
        assert table.rowHeight(long_row) >= lines.height(), \
            f"the label's {lines.height()} px of wrapped text in a {table.rowHeight(long_row)} px row"
        assert "non-nested parameter" in (table.verticalHeaderItem(long_row).toolTip() or "")
        # Values read: alice's Fix, bob's Pass, side by side.
        assert (table.item(0, 0).text(), table.item(0, 1).text()) == ("fix", "pass")
        # The Fix A pane shows its text, not one line of it.
        pane = view.panes["a"].text
        assert pane.isVisible() and pane.height() >= pane.fontMetrics().lineSpacing() * 4, \
            f"the Fix A pane is {pane.height()} px tall"
    finally:
        close_window(qtbot, window)


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_an_adjudicator_settles_from_the_keyboard_without_scrolling_by_hand(qtbot, demo_store, tmp_path, size):
    """alice passed, bob rejected. carol (adjudicator) opens the item from her queue with Enter and
    the keyboard is in the panel: R chooses the verdict and scrolls the form into view; the pinned
    bar says what is still missing, and its link takes the keyboard to the rationale; she types it
    and Ctrl+Enter settles. Each step is saved (tests/ui/journeys.shot) when $REVIEWER_SHOTS is set."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from tests.ui.journeys import shot

    window, item = _disputed_window(qtbot, demo_store, tmp_path, size)
    ws = window.review
    view = ws.adjudication
    tag = f"adjudicate-keys-{size[0]}x{size[1]}"
    try:
        wait_idle(qtbot, window)
        become(qtbot, window, "carol", "adjudicator")
        open_from_queue(qtbot, window, item.id)
        wait_shown(qtbot, view, item.id)
        wait_idle(qtbot, window)
        shot(window, f"{tag}-1-opened")
        assert view.blockers() == ["choose the final verdict", "write a rationale"]
        assert _not_scrolled_away(view.settle_button, view) and not view.settle_button.isEnabled()

        # Enter in the queue left the keyboard in the panel: R works at once
        qtbot.waitUntil(lambda: view.isAncestorOf(QApplication.focusWidget()), timeout=3000)
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_R)
        assert view.verdict.value == "reject"
        area = view.body_area
        qtbot.waitUntil(lambda: _in_viewport(view.verdict, area), timeout=3000)
        assert view.blockers() == ["write a rationale"]
        assert "<a href='rationale'" in view.problems.text()
        shot(window, f"{tag}-2-verdict")

        # the blocker's link, from the keyboard: focus the bar's text, Tab to the link, Enter
        view.problems.setFocus(Qt.FocusReason.TabFocusReason)
        qtbot.keyClick(view.problems, Qt.Key.Key_Tab)
        qtbot.keyClick(view.problems, Qt.Key.Key_Return)
        qtbot.waitUntil(view.rationale.hasFocus, timeout=3000)
        assert _in_viewport(view.rationale, area)
        qtbot.keyClicks(view.rationale, "the question has no answer in the response")
        assert view.blockers() == [] and view.settle_button.isEnabled()
        shot(window, f"{tag}-3-ready")
        # typing a verdict letter in the rationale types it: the verdict stays
        qtbot.keyClicks(view.rationale, " (P)")
        assert view.verdict.value == "reject" and view.rationale.toPlainText().endswith("(P)")

        qtbot.keyClick(view.rationale, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda: not view.settling and "Settled by carol as reject" in view.status.text(),
                        timeout=10000)
        wait_idle(qtbot, window)
        row = next(r for r in range(window.model.rowCount()) if window.model.item_id(r) == item.id)
        review_column = next(c for c in range(window.model.columnCount())
                             if window.model.headerData(c, Qt.Orientation.Horizontal) == "Review")
        qtbot.waitUntil(lambda: "disputed" not in str(window.model.index(row, review_column).data()), timeout=10000)
        shot(window, f"{tag}-4-settled")
        from reviewer.review import Review, Stage

        assert Review(demo_store, "carol").stage(item.id) is Stage.ADJUDICATED
    finally:
        close_window(qtbot, window)


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_final_gold_is_picked_by_key_and_tab_leaves_its_editor(qtbot, demo_store, tmp_path, size):
    """alice fixed the chain, bob passed it. In the Adjudicate tab Alt+A takes alice's fix as the
    final gold and Alt+O keeps the original; Tab from the final gold's editor moves on (to the
    decision below), never typing a tab into the gold; "Larger window" opens whole on the screen."""
    from PySide6.QtCore import Qt

    window, item = _disputed_window(qtbot, demo_store, tmp_path, size, dataset="demo-call_chain",
                                    record="trip-1", verdicts=("fix", "pass"))
    ws = window.review
    view = ws.adjudication
    try:
        wait_idle(qtbot, window)
        become(qtbot, window, "carol", "adjudicator")
        open_from_queue(qtbot, window, item.id)
        wait_shown(qtbot, view, item.id)
        qtbot.waitUntil(view.table.hasFocus, timeout=10000)
        fixed = _nestools_fix(item.gold)
        qtbot.keyClick(view.table, Qt.Key.Key_A, Qt.KeyboardModifier.AltModifier)
        assert view.editor.value == fixed and view.verdict.value == "fix"
        qtbot.keyClick(view.table, Qt.Key.Key_O, Qt.KeyboardModifier.AltModifier)
        assert view.editor.value == item.gold and view.verdict.value is None

        editor = view.editor.text
        editor.setFocus(Qt.FocusReason.TabFocusReason)
        qtbot.waitUntil(editor.hasFocus, timeout=3000)
        before = editor.toPlainText()
        qtbot.keyClick(editor, Qt.Key.Key_Tab)
        assert not editor.hasFocus() and editor.toPlainText() == before

        view.enlarge_button.click()
        dock = window.review_dock
        qtbot.waitUntil(dock.isFloating, timeout=3000)
        screen = window.screen().availableGeometry()
        assert screen.contains(dock.frameGeometry()), (dock.frameGeometry(), screen)
    finally:
        window.review_dock.setFloating(False)
        close_window(qtbot, window)
