"""What a user would call "cut off" in a window, found by walking its widgets.

``fit_problems(window)`` lists, for every visible widget, those that stick out
of their parent (a button pushed past the window's edge, a pane squeezed below
its minimum) and every label whose text does not fit its box. A scroll area's
content is exempt from the first check (it can be scrolled to), not what it holds;
labels marked ``elide="id"`` elide by design (the whole id is in their tooltip).
Tables name columns that must be in view: ``wholeColumns`` (every shown cell's text
reads whole, e.g. the review state), ``elidedColumns`` (in view, at least a few
characters wide; the text may elide, e.g. ids) and ``wrappedColumns`` (in view, and
every shown row tall enough for its cells' wrapped text: calls, tool descriptions).
Used by tests/ui/test_fit.py and tools/journey_screenshots.py.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import (
    QAbstractScrollArea, QDockWidget, QLabel, QLayout, QScrollArea, QTableView, QTabWidget, QWidget,
)

TOLERANCE = 1  # px: rounding in layouts


def _describe(w: QWidget) -> str:
    chain = []
    while w is not None and len(chain) < 4:
        name = type(w).__name__ + (f"#{w.objectName()}" if w.objectName() else "")
        if isinstance(w, QLabel) and w.text():
            name += f"({w.text()[:30]!r})"
        chain.append(name)
        w = w.parentWidget()
    return " < ".join(chain)


def _scrolled(w: QWidget, top: QWidget) -> bool:
    """Whether ``w`` is what a scroll area scrolls (its content, or a cell widget of a
    view): it may extend past the viewport. What lies inside it must still fit it."""
    p = w.parentWidget()
    gp = p.parentWidget() if p is not None else None
    return isinstance(gp, QAbstractScrollArea) and gp.viewport() is p


def _folded(w: QWidget, top: QWidget) -> bool:
    """Whether an ancestor of ``w`` is folded to nothing (a splitter pane collapsed on
    purpose, e.g. the material while the diff spans the item): nothing in it is seen."""
    p = w.parentWidget()
    while p is not None and p is not top:
        if p.width() <= 0 or p.height() <= 0:
            return True
        p = p.parentWidget()
    return False


def _internal(w: QWidget) -> bool:
    """Qt's own helper widgets (tab scrollers, splitter handles, header sections)."""
    name = w.objectName()
    return name.startswith("qt_") or type(w).__name__ in ("QSplitterHandle", "QToolBarExtension",
                                                          "QTabBar", "QDockWidgetTitleButton")


def label_cut(label: QLabel) -> bool:
    """Whether the label's text needs more room than the label has."""
    if not label.text():
        return False
    if label.wordWrap():
        return label.heightForWidth(label.width()) > label.height() + TOLERANCE
    hint = label.sizeHint()
    return hint.width() > label.width() + TOLERANCE or hint.height() > label.height() + 2 * TOLERANCE


def fit_problems(window: QWidget) -> list[str]:
    problems = []
    if window.minimumSizeHint().width() > window.width() or window.minimumSizeHint().height() > window.height():
        problems.append(f"window {window.size().toTuple()} below its minimum {window.minimumSizeHint().toTuple()}")
    parked = [d for d in window.findChildren(QDockWidget) if not d.isFloating()
              and not QRect(d.mapTo(window, QPoint(0, 0)), d.size()).intersects(window.rect())]
    for w in window.findChildren(QWidget):
        if w.isWindow() or not w.isVisibleTo(window) or not w.isVisible():
            continue
        if any(d is w or d.isAncestorOf(w) for d in parked):
            continue  # a tabified dock behind another: Qt parks it out of sight
        parent = w.parentWidget()
        if parent is None or parent.isWindow() and parent is not window:
            continue
        if _internal(w) or w.width() <= 0 or w.height() <= 0 or _folded(w, window):
            continue
        box = QRect(w.mapTo(parent, QPoint(0, 0)), w.size())
        if isinstance(w, QScrollArea) and w.horizontalScrollBar().maximum() > 0:
            # A form scrolled sideways hides its right-hand controls (code and tables may scroll).
            problems.append(f"needs sideways scrolling: {_describe(w)} content {w.widget().minimumSizeHint().width()}"
                            f" px in {w.viewport().width()} px")
        if not _scrolled(w, window):
            if not parent.rect().adjusted(-TOLERANCE, -TOLERANCE, TOLERANCE, TOLERANCE).contains(box):
                problems.append(f"sticks out of its parent: {_describe(w)} at {box.getRect()} "
                                f"in {parent.rect().getRect()}")
                continue
        if w.layout() is not None:
            problems.extend(overlap_problems(w))
        if isinstance(w, QTableView):
            problems.extend(table_problems(w))
        if isinstance(w, QTabWidget) and tabs_cut(w):
            bar = w.tabBar()
            problems.append(f"tabs scroll or elide: {_describe(w)} tabs "
                            f"{[bar.tabText(i) for i in range(bar.count())]} need {tabs_width(w)} px, "
                            f"have {bar.width()} px")
        if isinstance(w, QLabel) and w.property("elide") != "id" and label_cut(w):
            problems.append(f"text cut: {_describe(w)} needs {w.sizeHint().toTuple()} has {w.size().toTuple()}")
    return problems


def _laid_out(layout: QLayout) -> list[QWidget]:
    out = []
    for i in range(layout.count()):
        item = layout.itemAt(i)
        if item.widget() is not None:
            out.append(item.widget())
        elif item.layout() is not None:
            out.extend(_laid_out(item.layout()))
    return out


def overlap_problems(w: QWidget) -> list[str]:
    """Widgets of one layout drawn over each other: the layout got less room than its
    content needs (a wrapped label's height is not in a plain QLabel's minimum)."""
    shown = [k for k in _laid_out(w.layout()) if k.isVisible() and k.width() > 0 and k.height() > 0]
    problems = []
    for i, a in enumerate(shown):
        for b in shown[i + 1:]:
            both = a.geometry().intersected(b.geometry())
            if both.width() > 2 * TOLERANCE and both.height() > 2 * TOLERANCE:
                problems.append(f"drawn over each other: {_describe(a)} at {a.geometry().getRect()} and "
                                f"{_describe(b)} at {b.geometry().getRect()}")
    return problems


def tabs_width(tabs: QTabWidget) -> int:
    bar = tabs.tabBar()
    return sum(bar.tabSizeHint(i).width() for i in range(bar.count()) if bar.isTabVisible(i))


def tabs_cut(tabs: QTabWidget) -> bool:
    """Whether a tab widget's tabs need more room than their bar has (Qt then shows
    scroll arrows or elides the titles: "Model text", "Prediction", "D…")."""
    if tabs.tabPosition() not in (QTabWidget.TabPosition.North, QTabWidget.TabPosition.South):
        return False
    return tabs_width(tabs) > tabs.tabBar().width() + TOLERANCE


CELL_PADDING = 8  # px a cell's text needs beyond its advance (margins and the focus frame)


def table_problems(table: QTableView) -> list[str]:
    """Columns a table says must be in view (``wholeColumns`` / ``elidedColumns``) that are
    scrolled or squeezed out of it, and cut cells in ``wholeColumns`` among the shown rows."""
    model = table.model()
    whole, elided = table.property("wholeColumns") or [], table.property("elidedColumns") or []
    wrapped = table.property("wrappedColumns") or []
    if model is None or not (whole or elided or wrapped):
        return []
    problems = []
    header = table.horizontalHeader()
    viewport = table.viewport().width()
    metrics = table.fontMetrics()
    name = lambda c: model.headerData(c, Qt.Orientation.Horizontal)  # noqa: E731
    for column in [*whole, *elided, *wrapped]:
        if table.isColumnHidden(column):
            continue
        left = header.sectionViewportPosition(column)
        width = header.sectionSize(column)
        if left < 0 or left + width > viewport + TOLERANCE:
            problems.append(f"column {name(column)!r} of {_describe(table)} is not in view: "
                            f"{left}..{left + width} px of {viewport} px")
        elif column in elided and width < metrics.horizontalAdvance("M") * 5:
            problems.append(f"column {name(column)!r} of {_describe(table)} is {width} px: too narrow to read")
    first = table.rowAt(0)
    last = table.rowAt(table.viewport().height() - 1)
    if first < 0:
        return problems
    last = model.rowCount() - 1 if last < 0 else last
    delegate = table.itemDelegate()
    for column in wrapped:
        if table.isColumnHidden(column):
            continue
        if not hasattr(delegate, "text_fits"):  # Qt's own wrap breaks at spaces only and elides the rest
            problems.append(f"column {name(column)!r} of {_describe(table)} does not wrap long words: "
                            "its text is cut at line ends")
            continue
        for row in range(first, last + 1):
            if not delegate.text_fits(model.index(row, column)):
                problems.append(f"wrapped cell cut: {name(column)!r} row {row} of {_describe(table)} "
                                f"({table.rowHeight(row)} px tall)")
                break
    for column in whole:
        if table.isColumnHidden(column):
            continue
        for row in range(first, last + 1):
            text = model.data(model.index(row, column))
            if text and metrics.horizontalAdvance(str(text)) + CELL_PADDING > header.sectionSize(column):
                problems.append(f"cell text cut: {name(column)!r} row {row} {str(text)!r} needs "
                                f"{metrics.horizontalAdvance(str(text)) + CELL_PADDING} px, has "
                                f"{header.sectionSize(column)} px")
                break
    return problems
