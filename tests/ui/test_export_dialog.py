"""File > Export, driven from the keyboard as a user would: "Only the released Gold" writes
exactly what the Release tab calls Gold, in JSONL or in the benchmark's own files, and the
dialog says how many items it withheld and why (as ``reviewer export --gold-only`` does).
Before, the box said "settled gold", was ignored for the folder export, and the message
said nothing of what was left out."""

from __future__ import annotations

import json
import os

import pytest
from PySide6.QtCore import Qt

from reviewer.review.annotate import save_annotation
from reviewer.review.rubric import Draft
from reviewer.store import Store
from reviewer_ui.file_menu import ExportDialog
from tests.ui.conftest import shown_main_window

SHOTS = os.environ.get("REVIEWER_SHOTS")  # a folder: save a screenshot of each step there


@pytest.fixture
def select_store(tmp_path):
    """Three tool-selection items: t0 is Gold, t1 settled without an ambiguity rating, t2 not reviewed."""
    tools = [{"name": "Weather", "description": "forecasts"}, {"name": "Calendar", "description": "meetings"}]
    source = tmp_path / "select.jsonl"
    source.write_text("".join(json.dumps({"id": f"t{i}", "message": f"message {i}", "tools": tools,
                                          "expected": ["Weather"]}) + "\n" for i in range(3)), encoding="utf-8")
    store = Store(str(tmp_path / "export.sqlite3"))
    store.import_dataset(source, "toolselect", name="select")
    t0, t1 = (store.find_item("select", f"t{i}").id for i in (0, 1))
    for who in ("alice", "erin"):
        save_annotation(store, t0, who, Draft(verdict="pass", ambiguity="low"), None)
        save_annotation(store, t1, who, Draft(verdict="pass"), None)
    yield store
    store.close()


def _shot(widget, name: str) -> None:
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        widget.grab().save(os.path.join(SHOTS, f"{name}.png"))


def _export(qtbot, window, target: str, as_jsonl: bool, size: tuple[int, int]) -> ExportDialog:
    """Ctrl+Shift+E, tick the boxes with Space, type the target, Enter; return the dialog once done."""
    before = getattr(window, "file_dialog", None)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    window.table.setFocus()
    qtbot.keyClick(window.table, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: window.file_dialog is not before and isinstance(window.file_dialog, ExportDialog),
                    timeout=3000)
    dialog = window.file_dialog
    qtbot.waitExposed(dialog)
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow, timeout=3000)
    if as_jsonl:
        dialog.as_jsonl.setFocus()
        qtbot.keyClick(dialog.as_jsonl, Qt.Key.Key_Space)
    dialog.gold_only.setFocus()
    qtbot.keyClick(dialog.gold_only, Qt.Key.Key_Space)
    assert dialog.gold_only.isChecked() and dialog.as_jsonl.isChecked() == as_jsonl
    dialog.target.setFocus()
    dialog.target.selectAll()
    qtbot.keyClicks(dialog.target, target)
    _shot(dialog, f"export-{'jsonl' if as_jsonl else 'folder'}-{size[0]}-filled")
    qtbot.keyClick(dialog.target, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: dialog.result_value is not None or bool(dialog.message.text()), timeout=10000)
    _shot(dialog, f"export-{'jsonl' if as_jsonl else 'folder'}-{size[0]}-done")
    return dialog


def _whole_message_in_view(qtbot, dialog) -> None:
    """Every wrapped line of the message is inside the dialog: the long path does not push the
    withheld counts past its edge (a word-wrapped QLabel cannot break inside a path)."""
    m = dialog.message
    qtbot.waitUntil(lambda: m.height() >= m.document().size().height(), timeout=3000)
    assert m.document().idealWidth() <= m.viewport().width() + 1
    assert m.geometry().bottom() <= dialog.rect().bottom() and m.geometry().right() <= dialog.rect().right()


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)])
def test_export_released_gold_from_the_file_menu(qtbot, select_store, settings, tmp_path, size):
    window = shown_main_window(qtbot, select_store, settings, size=size)
    try:
        window.select_dataset("select")
        out = tmp_path / "gold.jsonl"
        dialog = _export(qtbot, window, str(out), as_jsonl=True, size=size)
        assert dialog.result_value is not None, dialog.message.text()
        assert [json.loads(x)["record_id"] for x in out.read_text().splitlines()] == ["t0"]
        said = dialog.message.text()
        assert f"Wrote 1 released Gold item to {out}." in said
        assert "Withheld 2 items:" in said
        assert "1 ambiguity not rated" in said and "1 not settled by dual review yet" in said
        _whole_message_in_view(qtbot, dialog)
        dialog.close()

        folder = tmp_path / "gold-files"
        dialog = _export(qtbot, window, str(folder), as_jsonl=False, size=size)
        assert dialog.result_value is not None, dialog.message.text()
        written = [json.loads(x)["id"] for f in sorted(folder.iterdir()) for x in f.read_text().splitlines()]
        assert written == ["t0"]  # the benchmark's own file, holding the released Gold only
        assert f"Wrote 1 released Gold item in the benchmark's own files under {folder}." in dialog.message.text()
        assert "Withheld 2 items:" in dialog.message.text()
        _whole_message_in_view(qtbot, dialog)
        dialog.close()
    finally:
        window.runner.shutdown(5000)
