"""Small table helpers shared by the dock's views."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
)


def fmt(value: float | None, percent: bool = False) -> str:
    if value is None:
        return "n/a"
    return f"{value:.1%}" if percent else f"{value:.3f}"


class SortItem(QTableWidgetItem):
    """A cell shown as ``text`` and sorted by ``key`` (None sorts after every number)."""

    def __init__(self, text: str, key=None):
        super().__init__(text)
        self.key = key
        if isinstance(key, (int, float)):
            self.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

    def __lt__(self, other) -> bool:
        a, b = self.key, getattr(other, "key", None)
        if a is None or b is None:
            return a is not None and b is None  # numbers before n/a in ascending order
        return a < b


def make_table(headers: list[str], stretch: int = -1, sortable: bool = False) -> QTableWidget:
    """A read-only, row-selecting table with these headers; ``sortable`` tables sort
    when a header is clicked and otherwise keep the order they were filled in."""
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setAlternatingRowColors(True)
    table.setWordWrap(False)
    table.verticalHeader().setVisible(False)
    table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 8)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    if stretch >= 0:
        header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
    if sortable:
        header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)  # no sort until a header is clicked
        table.setSortingEnabled(True)
    return table


def fill(table: QTableWidget, rows: list[list[SortItem]]) -> None:
    """Replace the table's rows (sorting is paused while filling, then re-applied)."""
    sorting = table.isSortingEnabled()
    table.setSortingEnabled(False)
    table.setRowCount(len(rows))
    for r, cells in enumerate(rows):
        for c, cell in enumerate(cells):
            table.setItem(r, c, cell)
    table.setSortingEnabled(sorting)
