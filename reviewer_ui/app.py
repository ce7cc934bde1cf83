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
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path

# Core modules the main window uses, imported before PySide6 on purpose: once PySide6
# is loaded, its import hook reads the source of every module imported after it (to
# find modules that use its __feature__ switches), which costs more than importing
# SQLAlchemy, SQLModel and numpy themselves. tests/ui/test_app.py checks that none of
# those heavy packages is imported after PySide6 on the way to the first window.
WINDOW_CORE = (
    "reviewer.store.store", "reviewer.store.browse", "reviewer.store.navigation", "reviewer.store.queries",
    "reviewer.review", "reviewer.rerun.job",
    "reviewer.scoring.job", "reviewer.jsondiff", "reviewer.samples",
)


def preload_core() -> None:
    """Import WINDOW_CORE (before PySide6; see above). A module another version lacks is skipped."""
    from importlib import import_module

    for name in WINDOW_CORE:
        try:
            import_module(name)
        except ImportError:
            pass


def skip_feature_source_scan() -> None:
    """Stop PySide6 from reading the source of every module imported after it.

    PySide6's import hook (``shibokensupport.feature.feature_imported``) runs
    ``inspect.getsource`` on each newly imported module to learn whether it mentions
    PySide6, only to choose between two entries of its ``__feature__`` table (0: the
    default feature set, -1: a module that never touches Qt). No module here uses
    ``from __feature__ import ...``, so both entries mean the default set and the scan
    is pure cost: importing the store's stack after PySide6 took 0.54-0.61 s of CPU
    with it and 0.46-0.53 s without (0.48-0.50 s before PySide6). With it gone,
    modules imported after the window (the first start's import and scoring code,
    item layouts, the agreement dock) no longer pay it. Every module gets 0 (the
    default set, what the scan gives any module that mentions PySide6). A PySide6
    without this internal keeps its scan.
    """
    feature = sys.modules.get("shibokensupport.feature")
    if feature is not None and callable(getattr(feature, "_mod_uses_pyside", None)):
        feature._mod_uses_pyside = _uses_default_features


def _uses_default_features(module) -> bool:
    return True


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


def _warm_up_parse_helper() -> None:
    from reviewer_ui.runtime import parsepool

    try:
        parsepool.warm_up()
    except RuntimeError:  # the app closed before the helper started ("cannot schedule new futures")
        pass


def main(db: str | None = None, argv: list[str] | None = None,
         on_shown: Callable[[object, object], None] | None = None) -> int:
    """Run the app until its window closes; return the exit code.

    ``on_shown(window, first_start_job)`` is called once the window is shown (the
    start-up bench and the installed-wheel test use it to observe the first start).
    """
    # Start-up allocates hundreds of thousands of objects (classes, functions, SQLAlchemy
    # and pydantic tables) that live as long as the app: collecting them while they are
    # being made only walks them again and again (about 50 ms of CPU before the window).
    # Collection resumes once the window is shown (or start-up failed), with them frozen.
    collecting = gc.isenabled()
    gc.disable()
    try:
        preload_core()
        # Let shiboken create each Qt class when it is first used, not all of QtCore, QtGui
        # and QtWidgets at import: about 0.1 s less CPU before the window (bench/startup_bench.py).
        # Read when shiboken loads: no effect once PySide6 is in (tests that import it first).
        os.environ.setdefault("PYSIDE6_OPTION_LAZY", "1")
        from PySide6.QtCore import QSettings, QTimer
        from PySide6.QtGui import QIcon
        from PySide6.QtWidgets import QApplication

        skip_feature_source_scan()
        from reviewer_ui import theme
        from reviewer_ui.runtime import gcpolicy
        from reviewer_ui.first_start import start_first_start

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
        from reviewer_ui.runtime import parsepool
        from reviewer_ui.main_window import MainWindow

        store = Store(db)
        window = MainWindow(store, settings)
        window.setWindowTitle(window_title(store.url))
        window.show()
    finally:
        # Objects alive after start-up stay alive: keep full garbage collections
        # (which hold the GIL) from walking them again and again; collect fully
        # only while the user is idle (reviewer_ui.runtime.gcpolicy).
        gc.freeze()
        if collecting:
            gc.enable()
    job, feed = start_first_start(window, store)  # noqa: F841 - the feed lives as long as the window
    # The helper process that parses big responses off the GIL: after the first paint,
    # and started from a thread: spawning it (the resource tracker, then the helper)
    # held the GUI thread 40-140 ms right after the window appeared.
    QTimer.singleShot(0, lambda: threading.Thread(target=_warm_up_parse_helper, name="parse-warm-up",
                                                  daemon=True).start())
    idle_collector = gcpolicy.IdleCollector(app, window.runner)  # kept alive while the app runs
    if on_shown is not None:
        on_shown(window, job)
    try:
        return app.exec()
    finally:
        idle_collector.close()  # main() may run inside a longer-lived process (the tests)
        parsepool.shutdown()
        store.close()


if __name__ == "__main__":
    raise SystemExit(main())
