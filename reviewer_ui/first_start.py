"""The first start's background import, wired to the main window (see reviewer_ui.app)."""

from __future__ import annotations

import sys
import threading

from PySide6.QtCore import QEvent, QObject, QTimer, Signal

# Samples land in bursts (six samples, each its dataset, runs and scores: 18 steps in a
# second or two). Each refresh of the window reloads the pickers, the table page, the
# runs panel and the shown item on the GUI thread, so the window refreshes at the
# first step at once and then at most this often, with a last refresh after the last step.
REFRESH_EVERY_MS = 300
# The job waits for the window's first paint before it starts importing (its imports and
# parsing would otherwise compete with that paint for the CPU and the GIL), but never
# longer than this: a window that is not painted (minimised, off screen) still gets its samples.
WAIT_FOR_PAINT_S = 3.0


class SampleFeed(QObject):
    """Carries ``Landed`` steps of the background first start from the worker thread
    to the GUI thread (a queued signal; the job never touches a widget)."""

    landed = Signal(object)


class _Refresher(QObject):
    """Refreshes the window for landed steps: the first at once, then at most every
    ``REFRESH_EVERY_MS``, the last always (leading and trailing edges)."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.scored: set[str] = set()  # samples whose scores landed since the last refresh
        self.dirty = False
        self.timer = QTimer(self, singleShot=True, interval=REFRESH_EVERY_MS)
        self.timer.timeout.connect(self._cooled)
        self.refreshes = 0

    def landed(self, step) -> None:
        if step.what == "scores":
            self.scored.add(step.sample)
        if self.timer.isActive():
            self.dirty = True
        else:
            self._refresh()

    def _cooled(self) -> None:
        if self.dirty:
            self._refresh()

    def _refresh(self) -> None:
        self.dirty = False
        self.refreshes += 1
        window = self.window
        window.store_changed()  # keeps the dataset and item being read
        current = window.current_dataset()
        if current is not None and current.name in self.scored:
            window.load_scores()
        self.scored.clear()
        self.timer.start()


class _FirstPaint(QObject):
    """Sets ``painted`` at the first paint of the watched widget (the item table's
    viewport: a filter on that one widget, not on the application), then goes away."""

    def __init__(self, widget):
        super().__init__(widget)
        self.painted = threading.Event()
        self.widget = widget
        widget.installEventFilter(self)

    def eventFilter(self, obj, event):  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.Paint and not self.painted.is_set():
            self.painted.set()
            QTimer.singleShot(0, self, lambda: self.widget.removeEventFilter(self))
        return False


def _after_first_paint(ctx, painted: threading.Event, fn, *args, **kwargs):
    """``fn(ctx, *args, **kwargs)`` once ``painted`` is set (or WAIT_FOR_PAINT_S passed)."""
    waited = 0.0
    while not painted.is_set() and waited < WAIT_FOR_PAINT_S and not ctx.cancelled:
        painted.wait(0.05)
        waited += 0.05
    ctx.check_cancelled()
    return fn(ctx, *args, **kwargs)


def start_first_start(window, store) -> tuple[object, SampleFeed]:
    """Import and score whatever the store lacks of the samples, on the window's runner.

    Returns the job (always started: only the job finds out, off the GUI thread,
    whether anything is missing; it begins once the window has painted) and the feed whose ``landed`` signal fires after each
    step; the window refreshes what it shows (coalesced, see ``REFRESH_EVERY_MS``),
    and its Score column when the shown dataset's scores land.
    """
    from reviewer.samples import first_start

    feed = SampleFeed(window)
    feed.refresher = _Refresher(window)
    feed.landed.connect(feed.refresher.landed)

    def on_error(exc: BaseException, _trace: str) -> None:
        # A broken sample must not keep the app from working: say so and go on.
        window.statusBar().showMessage(f"could not import the sample datasets: {exc}", 15000)
        print(f"reviewer: could not import the sample datasets: {exc}", file=sys.stderr)

    first_paint = _FirstPaint(window.table.viewport())
    job = window.runner.start("first-start samples", _after_first_paint, first_paint.painted, first_start, store,
                              score=True, on_landed=feed.landed.emit, on_error=on_error)
    return job, feed
