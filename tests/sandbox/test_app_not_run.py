"""The app says what the CLI says when no isolation is available: the code was not run, why, how to enable it.

A reviewer opens a toolJSON dataset whose code-generation run was scored on a
machine without bubblewrap, moves to an item with the keyboard and reads the
score strip and its tooltip. Screenshots at 1366x768 and 1920x1080 go to
tests/sandbox/screenshots/ (not committed).
"""

from __future__ import annotations

import os
from pathlib import Path

os.environ["QT_QPA_PLATFORM"] = "offscreen"

import pytest

from reviewer.formats.base import OutputRecord, ParsedRun, RunRecord
from reviewer.jobs import silent
from reviewer.sandbox import availability, engine
from reviewer.scoring.job import score_run
from reviewer.store.importing import import_run
from tests.ui.conftest import demo_store, settings, shown_main_window  # noqa: F401 - fixtures

SHOTS = Path(__file__).with_name("screenshots")


@pytest.fixture
def unscored_code_run(demo_store, monkeypatch, tmp_path):  # noqa: F811
    """demo-tool_qa plus a code-generation run with no stored predictions, scored without bubblewrap."""
    ds = next(d for d in demo_store.datasets() if d.name == "demo-tool_qa")
    code = "def solve(data):\n    return str(len(data['stations']))\n"
    outputs = [OutputRecord(f"bikes-{i}", code, {}, prediction=None, extra={"setup_type": "code_generation"})
               for i in range(6)]
    run = RunRecord(name="coder-unsandboxed", format="demo", source="test", model="coder")
    import_run(demo_store.engine, ds.id, ParsedRun(run, iter(outputs)), silent())
    run_id = next(r.id for r in demo_store.runs(ds.id) if r.name == "coder-unsandboxed")
    monkeypatch.setenv(engine.BWRAP_ENV, str(tmp_path / "no-bwrap"))
    availability(refresh=True)
    score_run(demo_store, run_id, "faithful")
    monkeypatch.undo()
    availability(refresh=True)
    return ds


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)])
def test_item_view_says_code_was_not_run_and_how_to_enable_isolation(qtbot, demo_store, settings,  # noqa: F811
                                                                    unscored_code_run, size):
    from PySide6.QtCore import Qt

    w = shown_main_window(qtbot, demo_store, settings, size=size)
    try:
        w.select_dataset("demo-tool_qa")
        view = w.item_view
        qtbot.waitUntil(lambda: view.bundle is not None and view.bundle.detail.kind == "tool_qa", timeout=5000)
        w.table.setFocus() if hasattr(w, "table") else None
        qtbot.keyClick(w, Qt.Key.Key_J)  # next item, as a reviewer moves through the list
        qtbot.waitUntil(lambda: view.scores.isVisible() and "coder-unsandboxed" in view.scores.text(), timeout=5000)
        tip = view.scores.toolTip()
        assert "not run: no isolation available" in tip
        assert "bubblewrap is not installed" in tip and "install bubblewrap" in tip
        assert "coder-unsandboxed <b>–</b>" in view.scores.text()  # not scored, not failed
        SHOTS.mkdir(exist_ok=True)
        w.grab().save(str(SHOTS / f"not_run_{size[0]}x{size[1]}.png"))
    finally:
        w.runner.shutdown(5000)
