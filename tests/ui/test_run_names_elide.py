"""Run names that share a long prefix can be told apart at 1366x768 and 1920x1080: the
Run box and the "Output of" picker cut them in the middle (the ends differ), show the
whole name in their tooltip, and open a list wide enough for the whole names."""

from __future__ import annotations

import os

import pytest

from reviewer.samples import DATA_DIR
from reviewer.store import Store
from tests.ui.conftest import shown_main_window
from tools.fitcheck import fit_problems

SHOTS = "/tmp/fix_shots"
PREFIX = "citybikes.example.org_v1_stations_"
RUNS = {
    PREFIX + "alpha-7b_direct_prompting_predictions":
        "tooljson/predictions/citybikes.example.org_v1_stations_alpha-7b_direct_prompting_predictions.json",
    PREFIX + "beta-13b_code_generation_predictions":
        "tooljson/predictions/citybikes.example.org_v1_stations_beta-13b_code_generation_predictions.json",
}


@pytest.fixture
def long_names_store(tmp_path):
    store = Store(str(tmp_path / "runs.sqlite3"))
    store.import_dataset(DATA_DIR / "tooljson", format="tooljson", name="tooljson")
    for name, path in RUNS.items():
        store.import_run("tooljson", DATA_DIR / path, format="tooljson-predictions", name=name)
    yield store
    store.close()


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_long_run_names_are_told_apart(qtbot, long_names_store, settings, size):
    w = shown_main_window(qtbot, long_names_store, settings, size=size)
    try:
        w.select_dataset("tooljson")
        qtbot.waitUntil(lambda: w.item_view.bundle is not None and bool(w.item_view.bundle.outputs), timeout=5000)
        layout = w.item_view.current_layout()
        picker = layout.outputs.picker
        for box in (w.run_box, picker):
            shown = []
            for i in range(box.count()):
                if PREFIX not in box.itemText(i):
                    continue
                box.setCurrentIndex(i)
                qtbot.waitUntil(lambda: box.toolTip() == box.itemText(i), timeout=3000)
                text = box.displayed_text()
                assert text.startswith("city") and ("alpha" in text or "beta" in text), text
                assert box.itemData(i, 3) == box.itemText(i)  # the list's tooltip: the whole name
                shown.append(text)
            assert len(shown) == 2 and shown[0] != shown[1], shown  # the two runs read differently
            widest = max(box.view().fontMetrics().horizontalAdvance(box.itemText(i)) for i in range(box.count()))
            assert box.popup_width() >= min(widest, box.screen().availableGeometry().width() - 48)
        try:
            qtbot.waitUntil(lambda: fit_problems(w) == [], timeout=3000)
        except Exception:  # noqa: BLE001 - report what is cut
            assert fit_problems(w) == []
        if os.path.isdir(SHOTS):
            w.grab().save(f"{SHOTS}/run-names-{size[0]}.png")
            w.run_box.showPopup()
            qtbot.waitUntil(lambda: w.run_box.view().isVisible(), timeout=3000)
            w.run_box.view().window().grab().save(f"{SHOTS}/run-names-popup-{size[0]}.png")
            w.run_box.hidePopup()
    finally:
        w.runner.shutdown(5000)
