"""The item list narrows while the gold-vs-output diff is read in a window too small
for it (issue #12), and comes back as it was afterwards.

Narrow means: the filter bar is hidden and the list keeps its first columns (ID and
Review, ``narrow_width``), so J/K still move through the items and their
review states stay in view. It happens only while the current layout reads its diff
in the Auto arrangement and the item view, with the list at its full width, could not
hold the diff side by side (READABLE_COLUMNS characters per pane) beside a readable
material pane. The decision uses the full-width estimate in both states, so narrowing
can never undo itself. View ▸ "Narrow item list for the diff" (Shift+F9) turns it off (saved).
Ctrl+F (search) brings the filters back until the next change of tab or item.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer

NARROW_WIDTH = 150  # px, at least
ID_WIDTH = 60  # px: the narrowest the main window makes the ID column (it elides in the middle)


class NarrowList(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.enabled = window.settings.value("narrowListForDiff", "true") not in ("false", False)
        self.narrowed = False
        self._full_width = 0  # the list's width before it narrowed
        self._held = False  # the user asked for the filters (Ctrl+F): stay wide until the next change
        self._timer = QTimer(self, singleShot=True, interval=0)
        self._timer.timeout.connect(self.update)

    def schedule(self, *_args) -> None:
        self._timer.start()

    def changed(self, *_args) -> None:
        """A tab, item or arrangement changed: the user's hold ends, the decision is retaken."""
        self._held = False
        self.schedule()

    def hold_wide(self) -> None:
        self._held = True
        self.widen()

    def set_enabled(self, on: bool) -> None:
        self.enabled = bool(on)
        self.window.settings.setValue("narrowListForDiff", self.enabled)
        self.update()

    def wanted(self) -> bool:
        w = self.window
        layout = w.item_view.current_layout()
        if not (self.enabled and not self._held and layout is not None and layout.reading_diff()
                and w.browser.isVisible()):
            return False
        # The item view's width with the list at its full width (it is wider by what the list gave).
        lent = (self._full_width - w.browser.width()) if self.narrowed else 0
        full = w.item_view.width() - max(0, lent)
        return full < layout.width_for_side_by_side() + (w.item_view.width() - layout.width())

    def update(self) -> None:
        if self.wanted():
            self.narrow()
        else:
            self.widen()

    def narrow(self) -> None:
        w = self.window
        if self.narrowed:
            return
        sizes = w.splitter.sizes()
        self._full_width = sizes[0]
        self.narrowed = True
        w.filters.setVisible(False)
        total = sum(sizes)
        narrow = self.narrow_width()
        w.splitter.setSizes([narrow, total - narrow])
        w._fit_columns_timer.start()  # the ID column narrows so that Review stays in view

    def widen(self) -> None:
        w = self.window
        if not self.narrowed:
            return
        self.narrowed = False
        w.filters.setVisible(True)
        if not w.browser.isVisible():  # hidden (F9, focus mode): it comes back at its own minimum
            return
        total = sum(w.splitter.sizes())
        w.splitter.setSizes([self._full_width, max(0, total - self._full_width)])
        w._fit_columns_timer.start()

    def narrow_width(self) -> int:
        """The ID column at its narrow width (60 px: the main window elides ids in the middle)
        and the Review column whole, the scroll bar and the margins: no third column peeking in."""
        w = self.window
        t = w.table
        review = t.columnWidth(w.review_column())
        margins = w.browser.layout().contentsMargins()
        chrome = t.verticalScrollBar().sizeHint().width() + 2 * t.frameWidth() + margins.left() + margins.right()
        return max(NARROW_WIDTH, ID_WIDTH + review + chrome + 2)

    def full_width(self) -> int:
        """The list's width to remember: its own, not the narrow one it has while the diff is read."""
        return self._full_width if self.narrowed else self.window.splitter.sizes()[0]
