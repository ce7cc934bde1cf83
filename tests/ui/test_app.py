"""reviewer_ui.app.main: opens the store, imports the samples on a first start, shows the
main window and returns the event loop's exit code."""

from __future__ import annotations

import time

from PySide6.QtCore import QStandardPaths, QTimer
from PySide6.QtWidgets import QApplication

from reviewer.store import Store
from reviewer_ui.app import main
from reviewer_ui.main_window import MainWindow


def test_main_shows_the_window_with_the_store_datasets(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    QStandardPaths.setTestModeEnabled(True)  # keep QSettings away from the real user config
    db = str(tmp_path / "app.sqlite3")
    seen = {}
    deadline = time.monotonic() + 120  # a window that never shows fails the test, never hangs it

    def look():
        windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
        if windows and windows[0].datasets is not None and windows[0].dataset_box.count():
            seen["datasets"] = [d.name for d in windows[0].datasets]
            windows[0].close()
            QApplication.instance().exit(7)
        elif time.monotonic() > deadline:
            for w in windows:
                w.close()
            QApplication.instance().exit(99)
        else:
            QTimer.singleShot(20, look)

    app = QApplication.instance()
    # Closing the last window would otherwise post a Quit event that ends every
    # event loop the following tests start.
    app.setQuitOnLastWindowClosed(False)
    QTimer.singleShot(0, look)
    try:
        code = main(db, [])
        assert code != 99, "no main window with the datasets appeared within 120 s"
        assert code == 7
    finally:
        app.setQuitOnLastWindowClosed(True)
    store = Store(db)
    try:
        assert seen["datasets"] == [d.name for d in store.datasets()]
        assert seen["datasets"], "the first start imports the bundled samples"
    finally:
        store.close()
