"""The main window's Tab order: toolbar, filters, item table, item view, then the docks.

Qt links widgets into the Tab chain in the order they are created: the item view's
layouts (built when a kind is first shown) and the docks' contents ended up in no
useful order, and a table took Tab itself, moving from cell to cell (25 presses
never left the item list). ``order(chain(window), regions)`` relinks every widget Tab can
reach region by region, in each in reading order, and makes every table
pass Tab on (the arrow keys still move within it).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractSpinBox, QComboBox, QTableView, QWidget


def chain(window: QWidget) -> list[QWidget]:
    """``window``'s widgets in reading order: a parent before its children, and siblings top
    to bottom, then left to right (a splitter's left pane before its right one, whichever was
    built first)."""
    out: list[QWidget] = []

    def walk(parent: QWidget) -> None:
        children = [c for c in parent.children() if isinstance(c, QWidget) and not c.isWindow()]
        children.sort(key=lambda c: (c.y(), c.x()))  # stable: unplaced widgets keep their tree order
        for c in children:
            out.append(c)
            walk(c)

    walk(window)
    return out


def tab_stop(w: QWidget) -> bool:
    """Reached by Tab, and not the inside of a compound widget (a spin box's or an editable
    combo's line edit: Qt moves those with their owner). (Not asked through focusProxy():
    the wrapper PySide returns for it takes the proxy along when it is collected.)"""
    if not (w.focusPolicy() & Qt.FocusPolicy.TabFocus):
        return False
    return not isinstance(w.parentWidget(), (QAbstractSpinBox, QComboBox))


def order(widgets: list[QWidget], regions: list[QWidget]) -> None:
    """Relink the Tab chain of ``widgets`` (a window's ``chain``): the tab stops inside
    ``regions[0]``, then ``regions[1]``, ..., then the rest, each in its present order; and
    make every table among them pass Tab on."""
    for w in widgets:
        if isinstance(w, QTableView) and w.tabKeyNavigation():
            w.setTabKeyNavigation(False)
    buckets: list[list[QWidget]] = [[] for _ in range(len(regions) + 1)]
    for w in filter(tab_stop, widgets):
        index = next((i for i, r in enumerate(regions) if r is w or r.isAncestorOf(w)), len(regions))
        buckets[index].append(w)
    ordered = [w for bucket in buckets for w in bucket]
    for first, second in zip(ordered, ordered[1:]):
        QWidget.setTabOrder(first, second)
