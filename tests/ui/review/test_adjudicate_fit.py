"""The Adjudicate tab fits the Review dock at 1366x768 and 1920x1080: on a real disputed item
(alice passed, bob rejected) nothing in it is cut (tools/fitcheck finds no problem), it needs no
sideways scrolling, every "Final gold:" button and "Larger window" lie whole inside the page's
viewport, and "Larger window" stays in view while the view scrolls; the original gold is no
taller than its text. Screenshots of each size are saved to /tmp/adj_shots/ (or $ADJ_SHOTS)."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import QPoint, QRect, QSettings

from reviewer.review import annotate
from reviewer.review.rubric import Draft
from tests.ui.journeys import become, show_row
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


def _disputed_window(qtbot, store, tmp_path, size, who=("alice", "bob")):
    from reviewer_ui.main_window import MainWindow

    annotate.set_role(store, "carol", "adjudicator")
    item = store.find_item("demo-tool_qa", "bikes-1")
    for name, verdict in zip(who, ("pass", "reject")):  # the two annotators disagree
        annotate.set_role(store, name, "annotator")
        annotate.save_annotation(store, item.id, name, Draft(verdict=verdict, ambiguity="low",
                                                             difficulty="medium", checks={}), None)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue("review/identity", who[0])  # the dock opens sized for annotating, as in the journey
    settings.setValue("dataset", "demo-tool_qa")
    window = MainWindow(store, settings)
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    return window, item


def _idle(qtbot, window) -> None:
    qtbot.waitUntil(lambda: window.runner.active == 0 and not window.review._queue_timer.isActive(), timeout=15000)


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_adjudicate_tab_fits_the_dock_on_a_disputed_item(qtbot, demo_store, tmp_path, size):
    window, item = _disputed_window(qtbot, demo_store, tmp_path, size)
    ws, session = window.review, window.review.session
    view = ws.adjudication
    try:
        qtbot.waitUntil(lambda: session.signed_in and session.name == "alice" and window.model.rowCount() > 0
                        and ws.annotation.detail is not None and not ws.annotation.loading, timeout=10000)
        _idle(qtbot, window)
        become(qtbot, window, "carol", "adjudicator")  # alice hands over to carol, the adjudicator
        ws.setCurrentWidget(view)
        row = next(r for r in range(window.model.rowCount()) if window.model.item_id(r) == item.id)
        show_row(qtbot, window, row)
        qtbot.waitUntil(lambda: view.detail is not None and view.detail.id == item.id and view.a is not None
                        and view.body.isVisible(), timeout=10000)
        _idle(qtbot, window)
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
        assert {view.a.annotator, view.b.annotator} == {"alice", "bob"}
    finally:
        _idle(qtbot, window)
        window.runner.shutdown(5000)
        window.close()
