"""The Depth filter from the keyboard: Alt+Down opens its list, Down and Space tick two depths,
Esc closes it, and the table shows the items of both depths (the box said "2 of 5" while the
table kept the first depth only: Space ticked the entry without a word to the filter)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from reviewer.store import Store
from tests.store import records as R
from tests.ui.conftest import shown_main_window


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_two_depths_ticked_with_space_filter_the_table(qtbot, tmp_path, settings, size):
    data = R.nestools_like(tmp_path / "set", 60)
    store = Store(str(tmp_path / "s.sqlite3"))
    store.import_dataset(data, format="nestools", name="set")
    w = shown_main_window(qtbot, store, settings, size)
    try:
        qtbot.waitUntil(lambda: w.count_label.text() == "60 items", timeout=5000)
        depth = w.filters.depth
        depths = depth.values()
        assert len(depths) >= 3
        per_depth = {d: sum(1 for i in range(1, 61) if store.find_item("set", str(i)).depth == d) for d in depths}
        w.activateWindow()
        qtbot.waitUntil(w.isActiveWindow, timeout=3000)
        depth.setFocus()
        qtbot.keyClick(depth, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)  # open the list
        qtbot.waitUntil(lambda: depth.view().isVisible(), timeout=3000)
        view = depth.view()
        view.setFocus()  # where the opened list takes the keys (offscreen Qt gives no popup focus)
        for key in (Qt.Key.Key_Down, Qt.Key.Key_Space, Qt.Key.Key_Down, Qt.Key.Key_Space):
            qtbot.keyClick(view, key)
        qtbot.keyClick(view, Qt.Key.Key_Escape)
        qtbot.waitUntil(lambda: not view.isVisible(), timeout=3000)
        assert depth.checked() == depths[:2] and depth.summary() == f"2 of {len(depths)}"
        want = per_depth[depths[0]] + per_depth[depths[1]]
        qtbot.waitUntil(lambda: w.count_label.text() == f"{want:,} of 60 items", timeout=5000)
    finally:
        w.runner.shutdown(5000)
        store.close()
