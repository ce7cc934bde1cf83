"""BFCL possible answers are compared "any of": [84.5] against the output 84.5 is a match (issue 12, item 9)."""

from __future__ import annotations

from pathlib import Path

from tests.ui.conftest import open_dataset


def _tab(layout, title):
    for i in range(layout.tabs.count()):
        if layout.tabs.tabText(i) == title:
            layout.tabs.setCurrentIndex(i)
            return layout.tabs.widget(i)
    raise AssertionError(f"no tab {title!r}")


def test_parameters_tab_and_diff_treat_allowed_values_as_any_of(qtbot, window, tmp_path):
    # demo-function_call: gold bill [84.5], percent [15], round_up ["", False]; caller-a answered 84.5 and 15.
    layout = open_dataset(qtbot, window, "function_call")
    params = _tab(layout, "Parameters")
    text = params.toPlainText()
    window.grab().save(str(Path(tmp_path) / "bfcl_parameters.png"))
    assert "bill" in text and "✗" not in text, text
    assert text.count("✓ match") == 2 and "✓ absent (optional)" in text
    _tab(layout, "Gold vs output")
    qtbot.waitUntil(lambda: layout.diff.result is not None, timeout=5000)
    assert layout.diff.result.changes == []  # was "type changed" ([84.5] vs 84.5)
    assert "any of" in layout.diff.title_left.text()
    window.grab().save(str(Path(tmp_path) / "bfcl_diff.png"))
