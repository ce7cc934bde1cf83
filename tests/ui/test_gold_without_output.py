"""Gold vs output of an item no run answers: the gold is shown in its pane and the
other pane says there is no output (both panes were blank)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from reviewer.samples import DATA_DIR
from tests.ui.conftest import shown_main_window


def test_gold_vs_output_without_runs_shows_the_gold(qtbot, settings, tmp_path):
    from reviewer.store import Store

    store = Store(str(tmp_path / "noruns.sqlite3"))
    store.import_dataset(DATA_DIR / "nestools", name="no-runs")  # a dataset, no run yet
    w = shown_main_window(qtbot, store, settings, size=(1366, 768))
    try:
        qtbot.waitUntil(lambda: w.item_view.bundle is not None, timeout=5000)
        layout = w.item_view.current_layout()
        gold = w.item_view.bundle.detail.gold
        assert gold is not None and not w.item_view.bundle.outputs
        tabs = layout.tabs
        tabs.tabBar().setFocus()
        while tabs.currentWidget() is not layout.diff:  # by keyboard along the tab bar
            qtbot.keyClick(tabs.tabBar(), Qt.Key.Key_Right)
        diff = layout.diff
        qtbot.waitUntil(lambda: len(diff.left.document()) > 1, timeout=5000)
        shown = "\n".join(str(diff.left.document().lines[i]) for i in range(len(diff.left.document())))
        assert f'"{gold[0]["api_name"]}"' in shown, shown[:300]  # the gold's calls
        assert len(diff.right.document()) <= 1
        assert "no output" in diff.title_right.text().lower()
        assert diff.title_left.text().startswith("Gold")
    finally:
        w.runner.shutdown(5000)
        store.close()
