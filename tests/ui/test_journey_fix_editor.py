"""Journey 4: an annotator edits a gold in the Fix dialog with the keyboard.
Enter inserts a newline and keeps the edit (it used to press "Back to the
original" and lose it); Esc asks before discarding; Ctrl+Z undoes "Back to the
original"; Ctrl+Enter saves the fix."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QMessageBox

from reviewer.review.annotate import snapshot
from tests.ui.conftest import open_dataset, shown_main_window
from tests.ui.journeys import answer_next_box, open_fix_dialog, shot


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_enter_keeps_the_edit_esc_asks_and_ctrl_enter_saves(qtbot, demo_store, settings, size):
    w = shown_main_window(qtbot, demo_store, settings, size=size)
    try:
        open_dataset(qtbot, w, "extraction")
        dialog, editor = open_fix_dialog(qtbot, w)
        original = editor.original
        editor.text.setFocus()
        qtbot.waitUntil(editor.text.hasFocus, timeout=3000)
        cursor = editor.text.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.Start)
        cursor.movePosition(QTextCursor.MoveOperation.EndOfLine)  # after the opening brace
        editor.text.setTextCursor(cursor)
        qtbot.keyClick(editor.text, Qt.Key.Key_Return)  # a newline (indented), not a button
        qtbot.keyClicks(editor.text, '"reviewed": true,')
        assert dialog.isVisible()
        assert editor.text.toPlainText().startswith('{\n  "reviewed": true,\n  "person"')
        qtbot.waitUntil(lambda: editor.value is not None and editor.value.get("reviewed") is True, timeout=3000)
        shot(w, "enter-kept-the-edit", dialog)

        asked: list[str] = []
        answer_next_box(QMessageBox.StandardButton.No, asked)  # Esc: "discard?" - no
        qtbot.keyClick(editor.text, Qt.Key.Key_Escape)
        qtbot.waitUntil(lambda: bool(asked), timeout=3000)
        assert "unsaved changes" in asked[0] and dialog.isVisible() and '"reviewed"' in editor.text.toPlainText()

        asked.clear()
        answer_next_box(QMessageBox.StandardButton.Yes, asked)  # back to the original: yes...
        editor.reset_button.click()
        assert asked and json.loads(editor.text.toPlainText()) == original
        qtbot.keyClick(editor.text, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # ...and undo it
        assert '"reviewed": true' in editor.text.toPlainText()

        dialog.activateWindow()  # as a closed message box hands activation back to its dialog
        qtbot.waitUntil(dialog.isActiveWindow, timeout=3000)
        shot(w, "before-ctrl-enter", dialog)
        qtbot.keyClick(editor.text, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)  # save
        qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)
        item = w.review.annotation.detail
        mine = snapshot(demo_store, item.id, w.review.session.name).mine
        assert mine is not None and mine.draft.verdict == "fix" and mine.draft.fixed_gold["reviewed"] is True
        shot(w, "fix-saved")
    finally:
        w.runner.shutdown(5000)


def test_enter_in_a_one_line_answer_neither_closes_nor_resets(qtbot, demo_store, settings):
    w = shown_main_window(qtbot, demo_store, settings, size=(1366, 768))
    try:
        open_dataset(qtbot, w, "tool_qa")  # string answers are edited as one line
        dialog, editor = open_fix_dialog(qtbot, w)
        assert editor.as_line
        editor.line.setFocus()
        qtbot.waitUntil(editor.line.hasFocus, timeout=3000)
        editor.line.selectAll()
        qtbot.keyClicks(editor.line, "12")
        qtbot.keyClick(editor.line, Qt.Key.Key_Return)
        assert dialog.isVisible() and editor.line.text() == "12"
        asked: list[str] = []
        answer_next_box(QMessageBox.StandardButton.Yes, asked)
        qtbot.keyClick(editor.line, Qt.Key.Key_Escape)  # asks, then closes without saving
        qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=3000)
        assert asked and snapshot(demo_store, w.review.annotation.detail.id, w.review.session.name).mine is None
    finally:
        w.runner.shutdown(5000)
