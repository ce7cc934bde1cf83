"""The window fits common screens: every item kind and tab at 1366x768 and 1920x1080
keeps the window at its size, nothing sticks out of its parent, no label is cut
(IDs elide by design), and every dock opens at a usable size on screen."""

from __future__ import annotations

import pytest

from tests.ui.conftest import shown_main_window
from tests.ui.journeys import shot
from tools.fitcheck import fit_problems

SIZES = [(1366, 768), (1920, 1080)]


def _fits(qtbot, w, where: str) -> None:
    """Layouts settle in posted events: wait (bounded) until nothing is cut, else report what is.
    The posted layout requests of a newly shown item run first, so a check cannot pass on the
    state before them (a new kind's wider layout squeezed the Review dock a moment later)."""
    from PySide6.QtWidgets import QApplication

    for _ in range(3):
        QApplication.processEvents()
    try:
        qtbot.waitUntil(lambda: fit_problems(w) == [], timeout=3000)
    except Exception:  # noqa: BLE001 - pytest-qt's TimeoutError: report what is cut instead
        assert fit_problems(w) == [], where


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_kind_and_tab_fits_without_resizing_the_window(qtbot, demo_store, settings, size):
    w = shown_main_window(qtbot, demo_store, settings, size=size)
    try:
        hint = w.minimumSizeHint()
        assert hint.width() <= 1280 and hint.height() <= 720, hint
        seen = []
        for d in demo_store.datasets():
            w.select_dataset(d.name)
            qtbot.waitUntil(lambda: w.item_view.bundle is not None and w.item_view.bundle.detail.kind == d.kind,
                            timeout=5000)
            layout = w.item_view.current_layout()
            for i in range(layout.tabs.count()):
                layout.tabs.setCurrentIndex(i)
                if layout.tabs.widget(i) is getattr(layout, "diff", None):
                    qtbot.waitUntil(lambda: layout.diff.result is not None, timeout=5000)
                where = f"{d.kind} / {layout.tabs.tabText(i)}"
                _fits(qtbot, w, where)
                assert w.size().toTuple() == size, f"the window resized itself on {where}"
                shot(w, f"{d.kind}-{layout.tabs.tabText(i)}".replace(" ", "_"))
                seen.append(where)
        assert len({s.split(" / ")[0] for s in seen}) == 6
        for dock in (w.runs_dock, w.agreement_dock, w.review_dock):
            dock.show()
            dock.raise_()
            _fits(qtbot, w, dock.objectName())
            assert w.size().toTuple() == size, dock.objectName()
            assert dock.width() >= 300 and dock.height() >= 300, (dock.objectName(), dock.size())
            shot(w, dock.objectName())
    finally:
        w.runner.shutdown(5000)


def test_a_floated_dock_lands_on_screen_at_a_readable_size(qtbot, demo_store, settings):
    w = shown_main_window(qtbot, demo_store, settings, size=(1366, 768))
    try:
        dock = w.agreement_dock
        dock.show()
        dock.setFloating(True)
        dock.move(5000, 5000)  # where a saved state from a larger screen may put it
        dock.setFloating(False)
        dock.setFloating(True)
        avail = w.screen().availableGeometry()
        qtbot.waitUntil(lambda: avail.contains(dock.frameGeometry()), timeout=3000)
        # (the offscreen screen is small: 800x600) at least 40% of it wide, half of it tall
        assert dock.width() >= int(avail.width() * 0.4) and dock.height() >= int(avail.height() * 0.5)
    finally:
        w.runner.shutdown(5000)
