"""Helpers the journey tests share: answering message boxes and driving the
review workspace as a person would (kept here so the steps that depend on the
review protocol's widgets can be adapted in one place)."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QDialog, QMessageBox


def answer_next_box(button: QMessageBox.StandardButton, seen: list[str] | None = None) -> None:
    """Press ``button`` in the next message box that opens (modal boxes block the test's flow)."""

    def press() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, press)
            return
        if seen is not None:
            seen.append(box.text())
        box.button(button).click()

    QTimer.singleShot(0, press)


def open_fix_dialog(qtbot, window):
    """Press E (Edit fix…) on the shown item; return (dialog, editor)."""
    ws = window.review
    qtbot.waitUntil(lambda: ws.annotation.detail is not None, timeout=5000)
    window.activateWindow()
    window.table.setFocus()
    qtbot.keyClick(window.table, Qt.Key.Key_E)
    qtbot.waitUntil(lambda: ws.annotation.fix_dialog is not None and ws.annotation.fix_dialog.isVisible(),
                    timeout=5000)
    dialog: QDialog = ws.annotation.fix_dialog
    return dialog, ws.annotation.fix_editor
