"""BFCL possible answers are compared "any of": [84.5] against the output 84.5 is a match (issue 12, item 9).

A journey at 1366x768 and 1920x1080: open the function-call dataset, move through
the item's tabs with the keyboard, read each parameter's verdict, then the diff.
Screenshots of each step go to the test's tmp_path.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from tests.ui.conftest import open_dataset, shown_main_window


def _go_to_tab(qtbot, layout, title):
    """Walk the tab bar with the arrow keys, as a keyboard user does, until ``title`` is current."""
    bar = layout.tabs.tabBar()
    bar.setFocus()
    target = next(i for i in range(bar.count()) if bar.tabText(i) == title)
    for _ in range(bar.count()):
        if bar.currentIndex() == target:
            return layout.tabs.currentWidget()
        qtbot.keyClick(bar, Qt.Key.Key_Right if bar.currentIndex() < target else Qt.Key.Key_Left)
    raise AssertionError(f"could not reach tab {title!r} with the arrow keys")


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)])
def test_parameters_tab_and_diff_treat_allowed_values_as_any_of(qtbot, demo_store, settings, tmp_path, size):
    window = shown_main_window(qtbot, demo_store, settings, size)
    try:
        # demo-function_call: gold bill [84.5], percent [15], round_up ["", False]; caller-a answered 84.5 and 15.
        layout = open_dataset(qtbot, window, "function_call")
        _go_to_tab(qtbot, layout, "Output")
        params = _go_to_tab(qtbot, layout, "Parameters")
        text = params.toPlainText()
        window.grab().save(str(Path(tmp_path) / f"bfcl_parameters_{size[0]}.png"))
        assert "bill" in text and "✗" not in text, text
        assert text.count("✓ match") == 2 and "✓ optional" in text
        assert params.isVisible() and params.width() > 200
        _go_to_tab(qtbot, layout, "Gold vs output")
        qtbot.waitUntil(lambda: layout.diff.result is not None, timeout=5000)
        window.grab().save(str(Path(tmp_path) / f"bfcl_diff_{size[0]}.png"))
        assert layout.diff.result.changes == []  # was "type changed" ([84.5] vs 84.5)
        assert "any of" in layout.diff.title_left.text()
    finally:
        window.runner.shutdown(5000)
