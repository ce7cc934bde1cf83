"""Docks that open at a usable size and stay on screen.

``keep_usable(window, dock)`` makes a dock, whenever it is shown, at least as
wide (right/left areas) or tall (top/bottom) as its content needs, and moves a
floated dock fully onto the screen its window is on, sized to fit there.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QMainWindow, QScrollArea, QWidget

MIN_DOCK = 360  # px: a side dock narrower than this reads badly whatever it holds
FLOAT_SHARE = 0.7  # a floated dock takes at most this share of the screen in each direction


def needed_width(dock: QDockWidget) -> int:
    """The width the dock's content needs, with the dock's frame (for content in a
    scroll area: its inner widget's, plus a vertical scroll bar)."""
    content = dock.widget()
    if isinstance(content, QScrollArea) and content.widget() is not None:
        hint = content.widget().minimumSizeHint().width() + content.verticalScrollBar().sizeHint().width()
    else:
        hint = content.minimumSizeHint().width() if content is not None else 0
    base = max(hint, dock.minimumSizeHint().width()) + 8
    # A form in a scroll area deeper inside (the annotation panel) must not need sideways scrolling.
    # (How far it scrolls sideways is exactly the width it lacks.)
    deficits = [a.horizontalScrollBar().maximum() + 2 for a in dock.findChildren(QScrollArea)
                if a.isVisible() and a.widget() is not None and a.horizontalScrollBar().maximum() > 0]
    return max(base, dock.width() + max(deficits, default=0))


def fit_docked(window: QMainWindow, dock: QDockWidget) -> None:
    """Give a docked dock the room its content needs (MIN_DOCK px at least), no more: the
    rest of the window belongs to the material under review."""
    if dock.isFloating() or not dock.isVisible():
        return
    area = window.dockWidgetArea(dock)
    if area in (Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea):
        want = max(needed_width(dock), MIN_DOCK)
        if dock.width() < want:
            window.resizeDocks([dock], [want], Qt.Orientation.Horizontal)
    else:
        want = max(dock.widget().minimumSizeHint().height() if dock.widget() else 0, window.height() * 2 // 5)
        if dock.height() < want:
            window.resizeDocks([dock], [want], Qt.Orientation.Vertical)


def on_screen(dock: QDockWidget, window: QMainWindow) -> None:
    """Move and size a floated dock so that all of it lies on its window's screen."""
    screen = window.screen() or dock.screen()
    if screen is None:
        return
    avail: QRect = screen.availableGeometry()
    w = min(max(dock.width(), needed_width(dock), int(avail.width() * 0.4)), int(avail.width() * FLOAT_SHARE))
    h = min(max(dock.height(), int(avail.height() * 0.5)), int(avail.height() * FLOAT_SHARE))
    dock.resize(w, h)
    frame = dock.frameGeometry()
    x = min(max(frame.x(), avail.left()), avail.right() - frame.width() + 1)
    y = min(max(frame.y(), avail.top()), avail.bottom() - frame.height() + 1)
    if not avail.contains(QRect(frame.x(), frame.y(), frame.width(), frame.height())):
        centre = window.frameGeometry().center()
        x = min(max(centre.x() - frame.width() // 2, avail.left()), avail.right() - frame.width() + 1)
        y = min(max(centre.y() - frame.height() // 2, avail.top()), avail.bottom() - frame.height() + 1)
    dock.move(x, y)


def keep_usable(window: QMainWindow, dock: QDockWidget) -> None:
    def settle(floating: bool) -> None:
        # After Qt has finished re-parenting the dock.
        QTimer.singleShot(0, dock, lambda: on_screen(dock, window) if floating else fit_docked(window, dock))

    dock.topLevelChanged.connect(settle)
    dock.visibilityChanged.connect(lambda visible: visible and settle(dock.isFloating()))
    # Content that grows once its data arrives (a table, a longer list) widens the dock, not the window.
    content = dock.widget()
    inner = content.widget() if isinstance(content, QScrollArea) else content
    watched = [inner] + [a.widget() for a in dock.findChildren(QScrollArea) if a.widget() is not None]
    for w in {id(w): w for w in watched if w is not None}.values():
        watch_growth(window, dock, w)
    # A nested form can also start to scroll sideways without asking for a new layout: a
    # vertical scroll bar appearing (a taller rubric) narrows its viewport. Refit when it does.
    for area in dock.findChildren(QScrollArea):
        regrow = _Regrow(window, dock, area)
        area.horizontalScrollBar().rangeChanged.connect(
            lambda _lo, hi, regrow=regrow: hi > 0 and regrow.schedule())


def watch_growth(window: QMainWindow, dock: QDockWidget, widget: QWidget) -> None:
    """Refit the docked ``dock`` when ``widget`` (its content, maybe built later) asks for a new layout."""
    widget.installEventFilter(_Regrow(window, dock, widget))


class _Regrow(QObject):
    def __init__(self, window: QMainWindow, dock: QDockWidget, parent: QObject):
        super().__init__(parent)
        self.window, self.dock = window, dock
        self.pending = False

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            self.schedule()
        return False

    def schedule(self) -> None:
        if not self.pending and self.dock.isVisible():
            self.pending = True
            QTimer.singleShot(0, self, self._fit)

    def _fit(self) -> None:
        self.pending = False
        from shiboken6 import isValid

        if not (isValid(self.dock) and isValid(self.window)):  # the window closed before the timer fired
            return
        if not self.dock.isFloating():
            fit_docked(self.window, self.dock)
