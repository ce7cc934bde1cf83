"""A table read a row at a time (the item list): Home and End go to its first and last row.

Qt's QTableView sends Home and End to the first and last column of the current row, which
scrolled the item list sideways to its Question column, out of sight of the IDs, where a
user expects the top or the bottom of the list; Ctrl+Home and Ctrl+End went to the first
and last row but also to the first and last column."""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractItemView, QTableView

_ROW_ENDS = (QAbstractItemView.CursorAction.MoveHome, QAbstractItemView.CursorAction.MoveEnd)


class RowTableView(QTableView):
    def moveCursor(self, action, modifiers):  # noqa: N802 - Qt's name
        """Home/End (with Ctrl or not): the first/last row, in the current column (Qt's
        Ctrl+End also went to the last column, scrolling the IDs out of view)."""
        model = self.model()
        if action in _ROW_ENDS and model is not None and model.rowCount() > 0:
            current = self.currentIndex()
            row = 0 if action == QAbstractItemView.CursorAction.MoveHome else model.rowCount() - 1
            return model.index(row, current.column() if current.isValid() else 0)
        return super().moveCursor(action, modifiers)
