"""Gold vs output on a toolJSON item whose gold is a list joined with ", " and whose
model answered "a; b" style: the diff lists element adds and removes, and both
titles say the text was read as a list (for the view only)."""

from __future__ import annotations

import json
import shutil

import pytest

from reviewer.samples import DATA_DIR
from reviewer.store import Store
from tests.ui.conftest import shown_main_window
from tests.ui.journeys import shot
from tools.fitcheck import fit_problems

GOLD = "Avenida Ribeira, Praça da Lua, Rua Nova"
ANSWER = "Avenida Ribeira; Rua Nova; Largo Velho"


@pytest.fixture
def list_store(tmp_path):
    src = tmp_path / "tooljson"
    shutil.copytree(DATA_DIR / "tooljson", src)
    for p in (src / "predictions").glob("*"):
        p.unlink()
    qa_file = next((src / "qa_pairs").glob("*.json"))
    rows = json.loads(qa_file.read_text())
    rows[0]["gold_answer"] = GOLD
    qa_file.write_text(json.dumps(rows))
    preds = [{"endpoint": "citybikes.example.org_v1_stations", "setup_type": "direct_prompting", "model": "m/lister",
              "uid": r["uid"], "api_response": {}, "question": r["question"], "gold_answer": r["gold_answer"],
              "schema": "''", "task": r["task"], "task_type": r["task_type"],
              "predicted_answer": ANSWER if i == 0 else r["gold_answer"], "code_exec_status": "",
              "model_output": "The stations are: " + ANSWER,
              "metrics": {"exact_match_metric": "accuracy_string", "exact_match": None}}
             for i, r in enumerate(rows)]
    pred_file = tmp_path / "lister_direct_prompting_predictions.json"
    pred_file.write_text(json.dumps(preds))
    store = Store(str(tmp_path / "lists.sqlite3"))
    store.import_dataset(src, name="stations")
    store.import_run("stations", pred_file, name="lister")
    yield store
    store.close()


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_joined_list_answer_is_diffed_element_by_element(qtbot, list_store, settings, size):
    w = shown_main_window(qtbot, list_store, settings, size=size)
    try:
        qtbot.waitUntil(lambda: w.item_view.bundle is not None and w.item_view.bundle.detail.gold == GOLD,
                        timeout=5000)
        layout = w.item_view.current_layout()
        qtbot.waitUntil(lambda: layout.outputs.current() is not None, timeout=5000)
        layout.tabs.setCurrentWidget(layout.diff)
        qtbot.waitUntil(lambda: layout.diff.result is not None, timeout=5000)
        changes = [(c.kind, c.left if c.left is not None else c.right) for c in layout.diff.result.changes]
        assert sorted(changes) == [("added", "Largo Velho"), ("removed", "Praça da Lua")]
        assert "read as a list of 3, split at ', '" in layout.diff.title_left.text()
        assert "read as a list of 3, split at '; '" in layout.diff.title_right.text()
        assert "For this comparison only" in layout.diff.title_left.toolTip()  # and scoring is untouched
        assert layout.diff.summary.text().startswith("2 differences")
        # The scorer is untouched: the stored gold is still the joined string.
        assert w.item_view.bundle.detail.gold == GOLD
        w.next_item()  # CityBikesTaskList_2: a one-word gold, answered exactly: nothing read as a list
        qtbot.waitUntil(lambda: w.item_view.bundle.detail.record_id.endswith("_2"), timeout=5000)
        qtbot.waitUntil(lambda: layout.diff.result is not None and layout.diff.result.changes == [], timeout=5000)
        assert layout.diff.title_left.text() == "Gold" and layout.diff.title_left.toolTip() == ""
        w.previous_item()
        qtbot.waitUntil(lambda: "read as a list" in layout.diff.title_left.text(), timeout=5000)
        try:
            qtbot.waitUntil(lambda: fit_problems(w) == [], timeout=3000)
        except Exception:  # noqa: BLE001 - report what is cut
            assert fit_problems(w) == []
        shot(w, "list-answer-diff")
    finally:
        w.runner.shutdown(5000)
