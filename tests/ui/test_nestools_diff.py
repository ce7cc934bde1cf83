"""Gold vs output on the NesTools sample: a perfect output (responses as a name →
placeholder object, an api_id: the format the paper asks for) shows no difference
against the gold (responses as a list, no api_id), and the titles say how each side
was read; a wrong output still shows its real differences (a wrong value, a wrong
api_id)."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from reviewer.samples import DATA_DIR
from reviewer.store import Store
from tests.ui.conftest import shown_main_window
from tools.fitcheck import fit_problems

SHOTS = "/tmp/fix_shots"


@pytest.fixture
def nes_store(tmp_path):
    src = tmp_path / "nestools"
    shutil.copytree(DATA_DIR / "nestools", src)
    good = src / "predictions" / "chainsmith-8b" / "raw_response.jsonl"
    rows = [json.loads(line) for line in good.read_text().splitlines() if line.strip()]
    first = json.loads(rows[0]["response"])
    first[0]["api_id"] = 502  # get_air_quality's id: the scorer does not select this call
    first[0]["parameters"]["unit"] = "fahrenheit"
    first[0]["thought"] = "weather first"  # a key the scorer never reads
    rows[0]["response"] = json.dumps(first)
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    store = Store(str(tmp_path / "nes.sqlite3"))
    store.import_dataset(src, format="nestools", name="nestools")
    store.import_run("nestools", good, format="nestools-predictions", name="chainsmith-8b")
    store.import_run("nestools", wrong, format="nestools-predictions", name="wrong-ids")
    yield store
    store.close()


def _diff_of(qtbot, w, run_name):
    index = next(i for i in range(w.run_box.count()) if w.run_box.itemText(i).startswith(run_name + "  ("))
    w.run_box.setCurrentIndex(index)
    layout = w.item_view.current_layout()
    qtbot.waitUntil(lambda: layout.outputs.current() is not None
                    and layout.outputs.current().output.run == run_name, timeout=5000)
    layout.tabs.setCurrentWidget(layout.diff)
    qtbot.waitUntil(lambda: layout.diff.result is not None and run_name in layout.diff.title_right.text()
                    and not layout.diff.summary.text().startswith("comparing"), timeout=5000)
    return layout


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_perfect_nestools_output_shows_no_difference(qtbot, nes_store, settings, size):
    w = shown_main_window(qtbot, nes_store, settings, size=size)
    try:
        w.select_dataset("nestools")
        qtbot.waitUntil(lambda: w.item_view.bundle is not None and w.item_view.bundle.detail.record_id == "1",
                        timeout=5000)
        layout = _diff_of(qtbot, w, "chainsmith-8b")
        assert layout.diff.result.changes == []
        assert layout.diff.summary.text() == "identical"
        assert "responses read as lists" in layout.diff.title_right.text()
        assert "api_id from the API list" in layout.diff.title_left.text()
        assert "Scores are unchanged" in layout.diff.title_left.toolTip()
        # What the Calls tab says agrees with the diff.
        assert layout._alignment.rows[0].status == "match"
        # The stored gold is untouched (display only).
        assert w.item_view.bundle.detail.gold[0]["responses"] == ["API_call_0", "API_call_1"]
        assert "api_id" not in w.item_view.bundle.detail.gold[0]
        try:
            qtbot.waitUntil(lambda: fit_problems(w) == [], timeout=3000)
        except Exception:  # noqa: BLE001 - report what is cut
            assert fit_problems(w) == []
        if os.path.isdir(SHOTS):
            w.grab().save(f"{SHOTS}/nestools-diff-perfect-{size[0]}.png")

        layout = _diff_of(qtbot, w, "wrong-ids")
        changes = sorted((c.kind, str(c.path)) for c in layout.diff.result.changes)
        kinds = [k for k, _ in changes]
        assert kinds == ["changed", "changed"], changes  # the api_id and the unit; nothing else
        assert any("api_id" in p for _, p in changes) and any("unit" in p for _, p in changes)
        assert layout.diff.summary.text().startswith("2 differences")
        assert "not shown, the scorer never reads them: thought" in layout.diff.title_right.text()
        if os.path.isdir(SHOTS):
            w.grab().save(f"{SHOTS}/nestools-diff-wrong-{size[0]}.png")
    finally:
        w.runner.shutdown(5000)
