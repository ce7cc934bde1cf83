"""Journey: importing a big NesTools set from the File menu, keyboard first, at 1366x768 and 1920x1080.

Ctrl+I, the path typed, Enter: the file (over 8 MB, so read by the import's second process)
imports while the dialog says how far it has got ("1,000 of about 3,200 items read") on a
determinate bar; Esc cancels it and nothing is imported; Enter imports it again to the end;
the window then lists the dataset with all its items. The import is held at its first
progress report (an Event, no clock) so that the step can be seen and cancelled."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import Qt

from reviewer.store import Store, importing
from tests.store import records as R
from tests.ui.conftest import shown_main_window
from tests.ui.journeys import shot

ITEMS = 3200  # ~8.6 MB: over import_feed.MIN_BYTES, so the reading process is used as for any big file


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_big_import_shows_its_progress_cancels_by_esc_and_then_imports(qtbot, tmp_path, settings, size,
                                                                         monkeypatch):
    data = R.nestools_like(tmp_path / "big-set", ITEMS)
    store = Store(str(tmp_path / "big.sqlite3"))
    w = shown_main_window(qtbot, store, settings, size) if store.datasets() else None
    if w is None:  # an empty database: the window has no dataset to wait for
        from reviewer_ui.main_window import MainWindow

        w = MainWindow(store, settings)
        qtbot.addWidget(w)
        w.resize(*size)
        w.show()
        qtbot.waitExposed(w)
    held, release = threading.Event(), threading.Event()
    real_report = importing._report

    def report_then_hold(ctx, n, total):  # the worker waits at its first report until the test lets go
        real_report(ctx, n, total)
        if not held.is_set():
            held.set()
            release.wait(30)

    monkeypatch.setattr(importing, "_report", report_then_hold)
    try:
        w.activateWindow()
        qtbot.waitUntil(w.isActiveWindow, timeout=3000)
        w.table.setFocus()
        qtbot.keyClick(w.table, Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda: getattr(w, "file_dialog", None) is not None and w.file_dialog.isVisible(),
                        timeout=3000)
        dialog = w.file_dialog
        dialog.activateWindow()  # what the window manager does with a new window (offscreen Qt has none)
        qtbot.waitUntil(dialog.isActiveWindow, timeout=3000)
        assert dialog.path.hasFocus()  # the first field takes the keyboard
        qtbot.keyClicks(dialog.path, str(data))
        qtbot.waitUntil(lambda: dialog.detected.text().startswith("Detected: NesTools"), timeout=5000)
        qtbot.keyClick(dialog.path, Qt.Key.Key_Return)  # Import is the default button

        # 1. the first thousand items are in: the bar has a total, the text says how many
        qtbot.waitUntil(held.is_set, timeout=10000)
        qtbot.waitUntil(lambda: "of about" in dialog.progress_text.text(), timeout=5000)
        text = dialog.progress_text.text()
        assert text.startswith("1,000 of about 3,2"), text
        assert dialog.progress.maximum() > 1000 and dialog.progress.value() == 1000
        assert dialog.progress_text.isVisible() and dialog.cancel_button.isEnabled()
        shot(w, "importing", dialog)

        # 2. Esc cancels: the dialog stays, says so, and nothing is imported
        qtbot.keyClick(dialog, Qt.Key.Key_Escape)
        assert dialog.isVisible() and "Cancelling" in dialog.message.toPlainText()
        release.set()
        qtbot.waitUntil(lambda: "Cancelled: nothing was imported" in dialog.message.toPlainText(), timeout=10000)
        assert store.datasets() == [] and not dialog.progress_text.isVisible()
        qtbot.waitUntil(dialog.start_button.isEnabled, timeout=3000)
        shot(w, "cancelled", dialog)

        # 3. Enter again: imported to the end, and the window shows the new dataset
        held.set()  # no hold this time
        qtbot.keyClick(dialog.path, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: dialog.result_value is not None, timeout=30000)
        assert dialog.message.toPlainText() == f"Imported dataset 'big-set': {ITEMS} items added, 0 already present."
        qtbot.waitUntil(lambda: w.count_label.text() == f"{ITEMS:,} items", timeout=10000)
        assert [(d.name, d.items) for d in store.datasets()] == [("big-set", ITEMS)]
        shot(w, "imported", dialog)

        # 4. Esc now closes the dialog (nothing runs)
        qtbot.keyClick(dialog, Qt.Key.Key_Escape)
        qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=3000)
    finally:
        release.set()
        w.runner.shutdown(10000)
        store.close()
