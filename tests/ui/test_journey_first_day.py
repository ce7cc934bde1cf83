"""Journey 1: a team's first day in the app, at 1366x768 and 1920x1080.
An empty database; the File menu imports a dataset and a run (keyboard:
Ctrl+I, Ctrl+Shift+I); alice annotates five items and bob the same five; the
adjudicator settles their disagreements; File ▸ Export writes the JSONL; the
exported file holds every item with both annotations and the adjudications."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from reviewer.samples import DATA_DIR
from reviewer.store import Store
from tests.ui.conftest import shown_main_window
from tests.ui.journeys import adjudicate_row, annotate_rows, become, shot
from reviewer_ui.models.item_table import COL
from tools.fitcheck import fit_problems

DATASET = DATA_DIR / "schemagen" / "schemagen.jsonl"
RUN = DATA_DIR / "schemagen" / "outputs" / "struct-tuned-8b.jsonl"


def same_size(w, size, qtbot=None) -> None:
    """The window kept its size and (with ``qtbot``) nothing in it is cut (tools/fitcheck)."""
    assert w.size().toTuple() == tuple(size), "the window resized itself"
    if qtbot is not None:
        try:  # layouts settle in posted events
            qtbot.waitUntil(lambda: fit_problems(w) == [], timeout=3000)
        except Exception:  # noqa: BLE001 - report what is cut
            assert fit_problems(w) == []


def settled_view(qtbot, w, who: str, n: int = 5) -> None:
    """After a burst of saves the window catches up (the Review column repaints after a
    pause, the queue's count is a job): wait until it shows what was done, as a user would."""
    qtbot.waitUntil(lambda: f"({who}) annotated {n} of {n} items" in w.review.queues.mine_label.text(), timeout=5000)
    qtbot.waitUntil(lambda: all("not reviewed" not in str(w.model.index(r, COL["Review"]).data())
                                for r in range(w.model.rowCount())), timeout=5000)


def file_dialog_import(qtbot, window, keys, path: Path):
    """Open an import dialog by its shortcut, give the path, Import, wait for the result."""
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    window.table.setFocus()
    qtbot.keyClick(window.table, *keys)
    qtbot.waitUntil(lambda: getattr(window, "file_dialog", None) is not None and window.file_dialog.isVisible(),
                    timeout=3000)
    dialog = window.file_dialog
    dialog.path.setText(str(path))
    qtbot.waitUntil(lambda: dialog.detected.text().startswith("Detected:"), timeout=5000)
    qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.result_value is not None, timeout=10000)
    shot(window, f"imported-{path.stem}", dialog)
    dialog.close()
    return dialog.result_value


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_first_day_import_annotate_twice_adjudicate_export(qtbot, tmp_path, settings, size, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))  # the export dialog opens in the home folder
    store = Store(str(tmp_path / "team.sqlite3"))
    from reviewer_ui.main_window import MainWindow

    w = MainWindow(store, settings)
    qtbot.addWidget(w)
    w.resize(*size)
    w.show()
    try:
        qtbot.waitUntil(lambda: "Import dataset" in w.count_label.text(), timeout=5000)  # the empty state says how
        shot(w, "first-start")

        summary = file_dialog_import(qtbot, w, (Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier), DATASET)
        assert summary.added == 5
        qtbot.waitUntil(lambda: w.current_dataset() is not None and w.model.rowCount() == 5, timeout=5000)
        run = file_dialog_import(qtbot, w, (Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier
                                            | Qt.KeyboardModifier.ShiftModifier), RUN)
        assert [r.run for r in run.runs()] == ["struct-tuned-8b"]
        qtbot.waitUntil(lambda: w.run_box.findText("struct-tuned-8b", Qt.MatchFlag.MatchStartsWith) >= 0,
                        timeout=5000)  # visible without a restart

        become(qtbot, w, "alice")
        annotate_rows(qtbot, w, {0: "pass", 1: "pass", 2: "pass", 3: "pass", 4: "reject"})
        settled_view(qtbot, w, "alice")
        shot(w, "alice-annotated")
        same_size(w, size, qtbot)
        become(qtbot, w, "bob")
        annotate_rows(qtbot, w, {0: "pass", 1: "reject", 2: "pass", 3: "reject", 4: "reject"})
        settled_view(qtbot, w, "bob")
        shot(w, "bob-annotated")
        same_size(w, size, qtbot)
        become(qtbot, w, "carol", "adjudicator")
        for row, take in ((1, "a"), (3, "b")):  # the two disagreements
            adjudicate_row(qtbot, w, row, take, f"checked the source of row {row}")
            shot(w, f"adjudicated-row{row}")
            same_size(w, size, qtbot)

        w.activateWindow()
        qtbot.waitUntil(w.isActiveWindow, timeout=3000)
        w.table.setFocus()
        qtbot.keyClick(w.table, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
        qtbot.waitUntil(lambda: w.file_dialog.windowTitle() == "Export" and w.file_dialog.isVisible(), timeout=3000)
        export = w.file_dialog
        assert export.target.text().startswith(str(tmp_path))  # home (or the last folder), not the CWD
        export.as_jsonl.setChecked(True)
        target = Path(export.target.text())
        qtbot.mouseClick(export.start_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: export.result_value is not None, timeout=10000)
        shot(w, "exported", export)
        same_size(w, size)
        export.close()

        rows = [json.loads(line) for line in target.read_text().splitlines()]
        assert len(rows) == 5
        by_row = {i: r for i, r in enumerate(rows)}
        for i, r in by_row.items():
            who = sorted(a["annotator"] for a in r["provenance"]["annotations"])
            assert who == ["alice", "bob"], (i, who)
        settled = {i: r["provenance"]["adjudication"] for i, r in by_row.items() if r["provenance"]["adjudication"]}
        assert {i: a["verdict"] for i, a in settled.items() if a["adjudicator"] == "carol"} == {1: "pass", 3: "reject"}
        assert settled[1]["rationale"] == "checked the source of row 1"
    finally:
        w.runner.shutdown(5000)
        store.close()
