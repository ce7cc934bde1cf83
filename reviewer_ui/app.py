"""Entry point of the desktop app: ``main(db, argv)``.

Creates the QApplication, opens the Store, shows the main window at once, and on a
first start imports and scores the bundled samples in the background
(``reviewer.samples.first_start`` on the window's job runner): the status bar shows
its progress and the table fills as each sample lands.

Start-up order matters for how soon the window is usable: nothing heavy happens
before ``window.show()`` that the first screen does not need; the helper process for
big responses is started after the first paint.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, QTimer, Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from reviewer_ui import gcpolicy, theme


def window_title(url: str) -> str:
    """'reviewer — <the open database>': the file name and folder for SQLite, the
    URL without its password for a server."""
    if url.startswith("sqlite:///"):
        path = Path(url[len("sqlite:///"):])
        home = Path.home()
        folder = f"~/{path.parent.relative_to(home)}" if path.parent.is_relative_to(home) else str(path.parent)
        return f"reviewer — {path.name} ({folder})"
    from reviewer.store.db import describe

    return f"reviewer — {describe(url).replace('postgresql+psycopg://', 'postgresql://')}"


class SampleFeed(QObject):
    """Carries ``Landed`` steps of the background first start from the worker thread
    to the GUI thread (a queued signal; the job never touches a widget)."""

    landed = Signal(object)


def start_first_start(window, store) -> tuple[object, SampleFeed]:
    """Import and score whatever the store lacks of the samples, on the window's runner.

    Returns the job (always started: only the job finds out, off the GUI thread,
    whether anything is missing) and the feed whose ``landed`` signal fires after each
    step; the window refreshes its datasets on each, and its Score column when the
    shown dataset's scores land.
    """
    from reviewer.samples import first_start

    feed = SampleFeed(window)

    def on_landed(step) -> None:
        window.datasets_changed()
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


def main(db: str | None = None, argv: list[str] | None = None,
         on_shown: Callable[[object, object], None] | None = None) -> int:
    """Run the app until its window closes; return the exit code.

    ``on_shown(window, first_start_job)`` is called once the window is shown (the
    start-up bench and the installed-wheel test use it to observe the first start).
    """
    argv = list(sys.argv if argv is None else argv)
    app = QApplication.instance() or QApplication(argv)
    app.setApplicationName("reviewer")
    app.setOrganizationName("reviewer")
    app.setDesktopFileName("reviewer")  # matches the entry --install-desktop-entry writes
    from reviewer_ui.desktop import icon_file

    app.setWindowIcon(QIcon(str(icon_file("svg"))))
    settings = QSettings("reviewer", "reviewer")
    theme.apply(app, str(settings.value("theme", "light")))

    from reviewer.store import Store
    from reviewer_ui import parsepool
    from reviewer_ui.main_window import MainWindow

    store = Store(db)
    window = MainWindow(store, settings)
    window.setWindowTitle(window_title(store.url))
    window.show()
    job, feed = start_first_start(window, store)  # noqa: F841 - the feed lives as long as the window
    # The helper process that parses big responses off the GIL: after the first paint.
    QTimer.singleShot(0, parsepool.warm_up)
    # Objects alive after start-up stay alive: keep full garbage collections
    # (which hold the GIL) from walking them again and again; collect fully
    # only while the user is idle (reviewer_ui.gcpolicy).
    gc.freeze()
    idle_collector = gcpolicy.IdleCollector(app, window.runner)  # noqa: F841 - kept alive while the app runs
    if on_shown is not None:
        on_shown(window, job)
    try:
        return app.exec()
    finally:
        parsepool.shutdown()
        store.close()


if __name__ == "__main__":
    raise SystemExit(main())
