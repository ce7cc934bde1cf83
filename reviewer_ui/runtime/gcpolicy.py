"""Garbage collection around jobs that build big object graphs.

Python's cyclic collector runs whenever enough container objects were
allocated, in whichever thread allocates, holding the GIL for a time
proportional to *every* tracked object. Parsing or diffing a 5 MB document
allocates about a million dicts and lists, which set off full collections
of 100-300 ms; the GUI thread waits for the GIL all that time
(bench/viewer_bench.py: diff_max_stall 322 ms with the collector, 58 ms without).
Big responses are parsed in the helper process (reviewer_ui.textdoc,
reviewer_ui.treeindex) and big diffs are laid out there (reviewer_ui.diffdoc,
reviewer_ui.diffproc). The helper's tree parse still pauses its collector
(``paused``); the app's item loading no longer does: with the heavy values out
of the app it made no measurable difference (bench/viewer_bench.py, diff and
item stalls with and without it, load 0-6).

``paused()`` switches automatic collection off while such a job runs and, at
the end, freezes what exists (``gc.freeze``) so later collections skip it.
Nothing leaks through that: frozen objects are still freed by reference
counting when the app drops them; only reference cycles created before the
freeze are never collected, and the parsed JSON, diffs and documents built
here have none.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager

from reviewer.jobs import collector_paused


@contextmanager
def paused():
    """``reviewer.jobs.collector_paused`` (the same count: a core job's pause and this one's
    overlap safely), then freeze what exists, so later collections skip it."""
    with collector_paused():
        yield
    gc.freeze()


def full_collection() -> int:
    """Collect everything, frozen objects included, then freeze the survivors again.

    Freezing keeps big live documents out of later automatic collections, but
    also keeps any garbage cycle that existed at a freeze; this collection
    frees those. It pauses for a time proportional to all live objects, so the
    app runs it only while the user is idle (IdleCollector).
    """
    gc.unfreeze()
    found = gc.collect()
    gc.freeze()
    return found


class IdleCollector:
    """Runs ``full_collection`` after ``idle_s`` seconds without user input or
    running jobs, at most once per idle period. Qt-bound: create it in the GUI thread.

    Input is watched on the top-level windows (``QWindow``s: the main window's and
    each window that takes the focus later, dialogs included), where every key,
    mouse and wheel event arrives before Qt hands it to a widget. Not on the whole
    application: an application-wide Python event filter is called for objects
    still under construction (a QTableView's header sends ChildAdded while only its
    QAbstractScrollArea part exists) and makes a Python wrapper typed by the
    half-built class; a wrapper that outlives the call is what a later
    ``table.horizontalHeader()`` returns ("'QAbstractScrollArea' object has no
    attribute 'setSectionResizeMode'"). A QWindow is complete when it gets events.
    """

    INPUT_EVENTS = None  # filled on first use (Qt import kept out of module import)

    def __init__(self, app, runner, idle_s: float = 20.0):
        from PySide6.QtCore import QEvent, QObject, QTimer

        IdleCollector.INPUT_EVENTS = {
            QEvent.Type.KeyPress, QEvent.Type.MouseButtonPress, QEvent.Type.Wheel, QEvent.Type.MouseMove,
        }
        collector = self

        class _Filter(QObject):
            def eventFilter(self, obj, event):  # noqa: N802 - Qt's name
                if event.type() in IdleCollector.INPUT_EVENTS:
                    collector.poke()
                return False

        self.runner = runner
        self.collections = 0
        self._app = app
        self._closed = False
        self._filter = _Filter()
        self._timer = QTimer()
        self._timer.setSingleShot(True)
        self._timer.setInterval(int(idle_s * 1000))
        self._timer.timeout.connect(self._on_idle)
        for window in app.topLevelWindows():
            self.watch(window)
        app.focusWindowChanged.connect(self.watch)  # dialogs and floated docks opened later
        runner.active_changed.connect(lambda _n: self.poke())
        self._timer.start()

    def watch(self, window) -> None:
        """Count input to ``window`` (a QWindow; None is ignored) as activity."""
        if window is not None:
            window.installEventFilter(self._filter)  # Qt installs a filter once however often asked
            self.poke()

    def poke(self) -> None:
        """Something happened: restart the idle countdown."""
        if not self._closed:
            self._timer.start()

    def close(self) -> None:
        """Stop watching and collecting. The app's collector lives as long as the app; one made
        by a test (or by ``main`` run inside the test process) would otherwise go on collecting,
        and freezing the heap, in the tests that follow: the application's focusWindowChanged
        keeps it alive and pokes it whenever any later window takes the focus."""
        self._closed = True
        self._timer.stop()
        try:
            self._app.focusWindowChanged.disconnect(self.watch)
        except (RuntimeError, TypeError):  # already disconnected, or the application is gone
            pass
        self._filter.deleteLater()  # Qt drops a deleted filter from every window it was on

    def _on_idle(self) -> None:
        if self._closed:
            return
        if self.runner.active:
            self._timer.start()
            return
        full_collection()
        self.collections += 1
