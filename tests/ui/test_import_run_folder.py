"""Journey: the official toolJSONprocessing results (one predictions file per endpoint) into
the app as ONE run, at 1366x768 and 1920x1080. File ▸ Import run… by its keys, the folder's
path typed into Path (the dialog says what it will import), Enter imports; the run list
holds the one run gpt-4o_code_generation, selected, with all 495 outputs. A file of another
model given the same run name is refused in the dialog's words, and nothing is written.
Screenshots under /tmp/runs-shots/ when that folder exists."""

from __future__ import annotations

import json
import os

import pytest
from PySide6.QtCore import Qt

from reviewer.store import Store
from tests.conftest import refdata
from tests.store.test_store import snapshot
from tests.ui.conftest import shown_main_window
from tests.ui.journeys import wait_idle
from tools.fitcheck import fit_problems
from reviewer_ui.file_menu import ImportDialog

SHOTS = "/tmp/runs-shots"
RUN = "gpt-4o_code_generation"


def _shot(widget, name: str) -> None:
    if os.path.isdir(SHOTS):
        widget.grab().save(f"{SHOTS}/{name}.png")


def _fits(qtbot, widget) -> None:
    try:  # layouts settle in posted events
        qtbot.waitUntil(lambda: fit_problems(widget) == [], timeout=3000)
    except Exception:  # noqa: BLE001 - report what is cut
        assert fit_problems(widget) == []


def _import_run_dialog(qtbot, window) -> ImportDialog:
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    window.table.setFocus()
    qtbot.keyClick(window.table, Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: isinstance(getattr(window, "file_dialog", None), ImportDialog)
                    and window.file_dialog.isVisible(), timeout=3000)
    dialog = window.file_dialog
    qtbot.addWidget(dialog)
    return dialog


def _type_path(qtbot, dialog, path, name: str = "") -> None:
    dialog.path.setFocus()
    qtbot.keyClicks(dialog.path, str(path))
    if name:
        qtbot.keyClicks(dialog.name, name)


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_predictions_folder_imports_as_one_run_from_the_file_menu(qtbot, tmp_path, settings, size):
    data = refdata("toolJSONprocessing", "generate_qa_pairs", "data")
    preds = refdata("toolJSONprocessing", "_synthetic", "experimental_scripts", "results", "predictions")
    store = Store(str(tmp_path / "runs.sqlite3"))
    store.import_dataset(data)
    w = shown_main_window(qtbot, store, settings, size=size)
    tag = f"{size[0]}x{size[1]}"
    try:
        w.select_dataset("generate_qa_pairs")
        qtbot.waitUntil(lambda: w.model.rowCount() > 0, timeout=5000)

        dialog = _import_run_dialog(qtbot, w)
        assert dialog.windowTitle() == "Import a run"
        choosers = [b.text() for b in dialog.findChildren(type(dialog.start_button)) if b.isVisible()]
        assert "File…" in choosers and "Folder…" in choosers
        assert dialog.dataset.currentData() == store.dataset("generate_qa_pairs").id
        _type_path(qtbot, dialog, preds)
        qtbot.waitUntil(lambda: dialog.detected.isVisible(), timeout=5000)
        assert dialog.detected.text() == "Detected: 2 prediction files (toolJSONprocessing predictions (JSON array))"
        assert dialog.start_button.isEnabled() and not dialog.message.text()
        _fits(qtbot, dialog)
        _shot(dialog, f"{tag}-1-folder-typed")

        qtbot.keyClick(dialog.path, Qt.Key.Key_Return)  # Import is the default button
        qtbot.waitUntil(lambda: dialog.result_value is not None, timeout=20000)
        qtbot.waitUntil(lambda: dialog.start_button.isEnabled(), timeout=5000)  # the job has ended
        assert dialog.message.text() == (f"Imported run {RUN!r} of dataset 'generate_qa_pairs': 495 outputs added, "
                                         "0 already present (from 2 files).")
        qtbot.waitUntil(lambda: w.run_box.currentText().startswith(f"{RUN}  ("), timeout=5000)
        runs = [w.run_box.itemText(i) for i in range(w.run_box.count())]
        assert runs == ["(no run)", f"{RUN}  (495 outputs)"], runs
        _fits(qtbot, dialog)
        _shot(dialog, f"{tag}-2-imported")
        # the current item shows the run's output (a user looks there next)
        qtbot.waitUntil(lambda: w.item_view.bundle is not None and [o.output.run for o in w.item_view.bundle.outputs]
                        == [RUN], timeout=5000)
        outputs = w.item_view.current_layout().outputs
        # the official files record only the answer (model_output null): the answer is what is shown
        qtbot.waitUntil(lambda: outputs.view_picker.currentText() == "Prediction", timeout=3000)
        assert outputs.stack.currentWidget() is outputs.prediction
        wait_idle(qtbot, w)  # the review pane has loaded the item's annotation
        _fits(qtbot, w)
        _shot(w, f"{tag}-3-window")
        dialog.close()

        # a file of another model, named into the same run: refused, in the dialog's words
        mini = tmp_path / next(p.name for p in sorted(preds.iterdir())).replace("gpt-4o", "gpt-4o-mini")
        records = json.loads(sorted(preds.iterdir())[0].read_text(encoding="utf-8"))
        mini.write_text(json.dumps([dict(r, model="Azure/gpt-4o-mini") for r in records]), encoding="utf-8")
        before = snapshot(store)
        dialog = _import_run_dialog(qtbot, w)
        _type_path(qtbot, dialog, mini, name=RUN)
        qtbot.waitUntil(lambda: dialog.detected.isVisible(), timeout=5000)
        qtbot.keyClick(dialog.name, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: bool(dialog.message.text()), timeout=10000)
        text = dialog.message.text()
        assert text == (f"{mini}: run {RUN!r} of dataset 'generate_qa_pairs' already holds model 'Azure/gpt-4o', "
                        "but this file has model 'Azure/gpt-4o-mini'; one run holds one model and setup. Type "
                        "another run name in Name to import it as a run of its own."), text
        assert dialog.result_value is None and snapshot(store) == before
        qtbot.waitUntil(lambda: dialog.start_button.isEnabled(), timeout=5000)
        _fits(qtbot, dialog)
        _shot(dialog, f"{tag}-4-mixing-refused")
        dialog.close()
    finally:
        w.runner.shutdown(5000)
        store.close()
