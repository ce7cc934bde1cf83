"""The item view shows each run's score of the item, with the scorer's notes as tooltip."""

from __future__ import annotations

from reviewer.scoring.job import score_run
from tests.ui.conftest import open_dataset


def test_item_view_shows_scores_and_what_the_scorer_saw(qtbot, window, demo_store):
    ds = next(d for d in demo_store.datasets() if d.name == "demo-tool_qa")
    for run in demo_store.runs(ds.id):
        score_run(demo_store, run.id, "faithful")
        score_run(demo_store, run.id, "fixed")
    open_dataset(qtbot, window, "tool_qa")
    view = window.item_view
    view.show_item(view.bundle.detail.id)  # reload: the scores were made after the first load
    qtbot.waitUntil(lambda: view.scores.isVisible() and "Scores:" in view.scores.text(), timeout=5000)
    text = view.scores.text()
    for run in demo_store.runs(ds.id):
        assert run.name in text
    assert "faithful" in text and "fixed" in text
    assert ("✓" in text) or ("✗" in text)
    assert "scored prediction" in view.scores.toolTip()


def test_no_scores_no_strip(qtbot, window):
    open_dataset(qtbot, window, "call_chain")
    assert not window.item_view.scores.isVisible()
