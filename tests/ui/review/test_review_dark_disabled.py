"""A settled item's Pass / Fix / Reject are disabled, and look it, in the dark theme too.

alice and bob both pass bikes-0 from the keyboard (the item settles by itself); bob, in the dark
theme (Ctrl+Shift+T), sees it settled: its verdict buttons are disabled. In the dark theme they
were drawn in the light theme's "mid" grey (#b8b8b8), as bright as the enabled buttons of the next
item. Their text now stands out from the button clearly less than an enabled button's does.
Screenshots go to $ADJ2_SHOTS (default /tmp/adj2-shots)."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import Qt

from reviewer.review import annotate
from reviewer_ui import theme
from tests.ui.journeys import annotate_rows, become, show_row, wait_idle, window_signed_in

SHOTS = os.environ.get("ADJ2_SHOTS", "/tmp/adj2-shots")


def _contrast(button) -> float:
    """How far the button's text stands out from its background: the largest luminance distance
    from the most common luminance (the background), inside the border."""
    image = button.grab().toImage()
    lums = []
    for y in range(4, image.height() - 4):
        for x in range(4, image.width() - 4):
            c = image.pixelColor(x, y)
            lums.append(round(0.2126 * c.red() + 0.7152 * c.green() + 0.0722 * c.blue()))
    background = max(set(lums), key=lums.count)
    return max(abs(v - background) for v in lums)


@pytest.mark.parametrize("name", ["dark", "light"])
@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_settled_items_verdict_buttons_look_disabled(qtbot, demo_store, tmp_path, size, name):
    for who in ("alice", "bob"):
        annotate.set_role(demo_store, who, "annotator")
    window = window_signed_in(qtbot, demo_store, tmp_path, size, "alice", "demo-tool_qa")
    panel = window.review.annotation
    item = demo_store.find_item("demo-tool_qa", "bikes-0")
    try:
        wait_idle(qtbot, window)
        row = next(r for r in range(window.model.rowCount()) if window.model.item_id(r) == item.id)
        annotate_rows(qtbot, window, {row: "pass"})
        qtbot.waitUntil(lambda: not panel.typing_ahead and not panel.saving, timeout=10000)
        become(qtbot, window, "bob")
        wait_idle(qtbot, window)
        annotate_rows(qtbot, window, {row: "pass"})  # both passed: settled
        qtbot.waitUntil(lambda: not panel.typing_ahead and not panel.saving, timeout=10000)
        if name == "dark":
            window.activateWindow()
            window.table.setFocus()
            qtbot.keyClick(window.table, Qt.Key.Key_T,
                           Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
            qtbot.waitUntil(lambda: theme.current() == "dark", timeout=3000)
        show_row(qtbot, window, row)
        qtbot.waitUntil(lambda: not panel.loading and panel.snapshot is not None
                        and panel.snapshot.item_id == item.id and panel.snapshot.stage.settled, timeout=10000)
        wait_idle(qtbot, window)
        buttons = [panel.verdict.buttons[v] for v in ("pass", "fix", "reject")]
        assert not any(b.isEnabled() for b in buttons), "a settled item's verdict buttons are enabled"
        os.makedirs(SHOTS, exist_ok=True)
        window.grab().save(os.path.join(SHOTS, f"{name}-settled-{size[0]}x{size[1]}.png"))
        disabled = [_contrast(b) for b in buttons]

        window.activateWindow()
        window.table.setFocus()
        qtbot.keyClick(window.table, Qt.Key.Key_J)  # the next item: not annotated by bob, open
        qtbot.waitUntil(lambda: panel.detail is not None and panel.detail.id != item.id and not panel.loading
                        and all(b.isEnabled() for b in buttons), timeout=10000)
        wait_idle(qtbot, window)
        window.grab().save(os.path.join(SHOTS, f"{name}-open-{size[0]}x{size[1]}.png"))
        enabled = [_contrast(b) for b in buttons]
        for verdict, off, on in zip(("Pass", "Fix", "Reject"), disabled, enabled):
            assert off < 0.6 * on, f"{name}: disabled {verdict} stands out {off}, enabled {on}: it looks enabled"
    finally:
        wait_idle(qtbot, window)
        if theme.current() != "light":
            window.toggle_theme(False)  # the theme is app-wide: leave it light for other tests
        window.runner.shutdown(5000)
        window.close()
