"""Issue #12: the gold-vs-output diff is readable at 1366x768. Each pane shows at
least READABLE_COLUMNS characters per line for every item kind with a diff (Auto
stacks the panes and lends the diff room from the material pane); at 1920x1080 the
material pane stays in view beside the diff, and with the item list hidden (F9) the
panes are side by side; leaving the tab gives the room back; the user's choice of
arrangement wins."""

from __future__ import annotations

import pytest

from reviewer_ui.views.diff_view import READABLE_COLUMNS, visible_columns
from tests.ui.conftest import shown_main_window
from tests.ui.journeys import shot
from tools.fitcheck import fit_problems

SIZES = [(1366, 768), (1920, 1080)]


def _open_diff(qtbot, w, kind):
    w.select_dataset(f"demo-{kind}")
    qtbot.waitUntil(lambda: w.item_view.bundle is not None and w.item_view.bundle.detail.kind == kind,
                    timeout=10000)
    layout = w.item_view.current_layout()
    layout.tabs.setCurrentWidget(layout.diff)
    qtbot.waitUntil(lambda: layout.diff.result is not None, timeout=10000)
    return layout


def _share(sizes) -> float:
    return sizes[0] / max(1, sum(sizes))


def _readable(layout) -> bool:
    d = layout.diff
    return min(visible_columns(d.left), visible_columns(d.right)) >= READABLE_COLUMNS


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_each_diff_pane_shows_enough_characters_for_every_kind(qtbot, demo_store, settings, size):
    w = shown_main_window(qtbot, demo_store, settings, size=size)
    try:
        kinds = [d.kind for d in demo_store.datasets()]
        checked = []
        for kind in kinds:
            w.select_dataset(f"demo-{kind}")
            qtbot.waitUntil(lambda: w.item_view.bundle is not None and w.item_view.bundle.detail.kind == kind,
                            timeout=10000)
            layout = w.item_view.current_layout()
            if not layout.has_gold_diff:
                continue
            _open_diff(qtbot, w, kind)
            try:
                qtbot.waitUntil(lambda: _readable(layout) and not fit_problems(w), timeout=5000)
            except Exception:  # noqa: BLE001 - report the widths instead of a timeout
                d = layout.diff
                assert fit_problems(w) == [], kind
                assert (visible_columns(d.left), visible_columns(d.right)) >= (READABLE_COLUMNS,) * 2, kind
            assert w.browser.isVisible(), "the item list stays open"
            shot(w, f"diff-{kind}")
            if size == (1920, 1080):
                material = layout.splitter.widget(1 - layout.splitter.indexOf(layout.tabs))
                assert material.width() >= 240, f"{kind}: the material stays in view at 1920"
                w.toggle_browser(False)
                qtbot.waitUntil(lambda: not layout.diff.stacked() and _readable(layout), timeout=5000)
                assert material.width() >= 240, kind
                shot(w, f"diff-{kind}-no-item-list")
                w.toggle_browser(True)
            checked.append(kind)
        assert len(checked) >= 5, checked
    finally:
        w.runner.shutdown(5000)


def test_leaving_the_diff_gives_the_room_back_and_the_users_choice_wins(qtbot, demo_store, settings):
    w = shown_main_window(qtbot, demo_store, settings, size=(1366, 768))
    try:
        w.select_dataset("demo-tool_qa")
        qtbot.waitUntil(lambda: w.item_view.bundle is not None and w.item_view.bundle.detail.kind == "tool_qa",
                        timeout=10000)
        layout = w.item_view.current_layout()
        layout.tabs.setCurrentWidget(layout.diff)
        qtbot.waitUntil(lambda: layout.diff.result is not None and _readable(layout), timeout=10000)
        assert layout.diff.stacked(), "side by side, 1366 px gives each pane too few characters"
        assert layout.diff_room_taken(), "the diff was lent room"
        before = list(layout._user_sizes)  # what the user had when the diff borrowed
        assert layout.splitter.sizes() != before
        layout.tabs.setCurrentWidget(layout.outputs)
        qtbot.waitUntil(lambda: not layout.diff_room_taken(), timeout=5000)
        # (the Review dock may have refitted meanwhile: the material's share is what comes back)
        assert abs(_share(layout.splitter.sizes()) - _share(before)) < 0.03, (layout.splitter.sizes(), before)
        # The user asks for side by side: no room is lent, the panes are side by side.
        layout.tabs.setCurrentWidget(layout.diff)
        qtbot.waitUntil(lambda: layout.diff_room_taken(), timeout=5000)
        layout.diff.arrangement.setCurrentText("Side by side")
        qtbot.waitUntil(lambda: not layout.diff_room_taken(), timeout=5000)
        # (side by side, the diff's own minimum may be a few px wider than before: the material keeps its width)
        assert not layout.diff.stacked() and abs(_share(layout.splitter.sizes()) - _share(before)) < 0.08
        layout.diff.arrangement.setCurrentText("Stacked")
        assert layout.diff.stacked()
        layout.diff.arrangement.setCurrentText("Auto")
        qtbot.waitUntil(lambda: layout.diff_room_taken(), timeout=5000)
        # Saved settings keep the user's sizes, not the loan.
        w.save_settings()
        layout.splitter.restoreState(settings.value(f"splitters/{layout.splitter.objectName()}"))
        assert abs(_share(layout.splitter.sizes()) - _share(before)) < 0.03
    finally:
        w.runner.shutdown(5000)
