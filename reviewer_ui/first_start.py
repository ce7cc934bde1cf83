"""The first start's background import, wired to the main window (see reviewer_ui.app)."""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Signal


class SampleFeed(QObject):
    """Carries ``Landed`` steps of the background first start from the worker thread
    to the GUI thread (a queued signal; the job never touches a widget)."""

    landed = Signal(object)


def start_first_start(window, store) -> tuple[object, SampleFeed]:
    """Import and score whatever the store lacks of the samples, on the window's runner.

    Returns the job (always started: only the job finds out, off the GUI thread,
    whether anything is missing) and the feed whose ``landed`` signal fires after each
    step; the window refreshes what it shows on each, and its Score column when the
    shown dataset's scores land.
    """
    from reviewer.samples import first_start

    feed = SampleFeed(window)

    def on_landed(step) -> None:
        window.store_changed()  # keeps the dataset and item being read
        current = window.current_dataset()
        if step.what == "scores" and current is not None and current.name == step.sample:
            window.load_scores()

    def on_error(exc: BaseException, _trace: str) -> None:
        # A broken sample must not keep the app from working: say so and go on.
        window.statusBar().showMessage(f"could not import the sample datasets: {exc}", 15000)
        print(f"reviewer: could not import the sample datasets: {exc}", file=sys.stderr)

    feed.landed.connect(on_landed)
    job = window.runner.start("first-start samples", first_start, store, score=True,
                              on_landed=feed.landed.emit, on_error=on_error)
    return job, feed
