"""Home and End in the item list go to its first and last item, the IDs staying in view (Qt's
table sent them to the first and last column of the row: the list scrolled sideways to the
Question column and the IDs went out of sight)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from reviewer.store import Store
from tests.store import records as R
from tests.ui.conftest import shown_main_window


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_home_and_end_go_to_the_first_and_last_item(qtbot, tmp_path, settings, size):
    store = Store(str(tmp_path / "s.sqlite3"))
    store.import_dataset(R.nestools_like(tmp_path / "set", 300), format="nestools", name="set")
    w = shown_main_window(qtbot, store, settings, size)
    try:
        qtbot.waitUntil(lambda: w.count_label.text() == "300 items" and w.model.rowCount() == 300, timeout=5000)
        w.select_row(5)
        w.table.setFocus()
        qtbot.keyClick(w.table, Qt.Key.Key_End)
        qtbot.waitUntil(lambda: w.table.currentIndex().row() == 299, timeout=5000)
        assert w.table.horizontalScrollBar().value() == 0  # the IDs still in view
        qtbot.waitUntil(lambda: w.item_view.bundle is not None and w.item_view.bundle.detail.record_id == "300",
                        timeout=5000)
        qtbot.keyClick(w.table, Qt.Key.Key_Home)
        qtbot.waitUntil(lambda: w.table.currentIndex().row() == 0, timeout=5000)
        assert w.table.horizontalScrollBar().value() == 0
    finally:
        w.runner.shutdown(5000)
        store.close()
