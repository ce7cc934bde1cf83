"""Entry point of the desktop app: ``main(db, argv)``.

Creates the QApplication, opens the Store, imports the bundled samples on
first run, applies the saved theme and shows the main window.
"""

from __future__ import annotations

import gc
import sys

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from reviewer.store import Store
from reviewer_ui import theme
from reviewer_ui.runtime import gcpolicy


def ensure_samples(store) -> None:
    """On a first start, import the bundled sample datasets and score their runs."""
    from reviewer.samples import ensure_samples as _ensure

    _ensure(store, score=True)


def main(db: str | None = None, argv: list[str] | None = None) -> int:
    argv = list(sys.argv if argv is None else argv)
    app = QApplication.instance() or QApplication(argv)
    app.setApplicationName("reviewer")
    app.setOrganizationName("reviewer")
    settings = QSettings("reviewer", "reviewer")
    theme.apply(app, str(settings.value("theme", "light")))
    store = Store(db)
    try:
        ensure_samples(store)
    except Exception as exc:  # noqa: BLE001 - a broken sample must not keep the app from starting
        print(f"reviewer: could not import the sample datasets: {exc}", file=sys.stderr)

    from reviewer_ui.runtime import parsepool
    from reviewer_ui.main_window import MainWindow

    parsepool.warm_up()  # the helper process that parses big responses off the GIL
    window = MainWindow(store, settings)
    window.show()
    # Objects alive after start-up stay alive: keep full garbage collections
    # (which hold the GIL) from walking them again and again; collect fully
    # only while the user is idle (reviewer_ui.runtime.gcpolicy).
    gc.freeze()
    idle_collector = gcpolicy.IdleCollector(app, window.runner)  # noqa: F841 - kept alive while the app runs
    try:
        return app.exec()
    finally:
        parsepool.shutdown()
        store.close()


if __name__ == "__main__":
    raise SystemExit(main())
