"""Compare two runs item by item: record, category, both headline scores, difference.

The rows come from ``reviewer.scoring.job.compare_runs`` (items both runs
answered and that are scored in the chosen mode). The Difference column
shows B - A and sorts by its size, so sorting descending puts the items the
runs disagree on most at the top whichever run did better. Double-clicking a
row asks the host to show the item (``show_item``).
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from reviewer.scoring.base import MODES
from reviewer_ui.runs.tables import SortItem, fill, fmt, make_table

DIFF_COL = 4


class CompareView(QWidget):
    compare_requested = Signal(int, int, str)  # run A, run B, mode
    show_item = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.run_a, self.run_b = QComboBox(), QComboBox()
        self.mode_box = QComboBox()
        self.mode_box.addItems(list(MODES))
        self.compare_button = QPushButton("Compare")
        self.compare_button.clicked.connect(self.request)
        self.table = make_table(["Record", "Category", "Score A", "Score B", "Difference (B − A)"], stretch=0, sortable=True)
        self.table.cellDoubleClicked.connect(self._activated)
        self.status = QLabel("Pick two scored runs and press Compare.")
        self.status.setObjectName("muted")
        self.status.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(QLabel("A"))
        row.addWidget(self.run_a, 1)
        row.addWidget(QLabel("B"))
        row.addWidget(self.run_b, 1)
        row.addWidget(self.mode_box)
        row.addWidget(self.compare_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.status)

    def set_runs(self, runs: list) -> None:
        """Offer these runs (RunInfo); keep the picks that still exist."""
        for n, box in enumerate((self.run_a, self.run_b)):
            current = box.currentData()
            box.blockSignals(True)
            box.clear()
            for r in runs:
                box.addItem(r.name, r.id)
            index = box.findData(current)
            box.setCurrentIndex(index if index >= 0 else min(n, len(runs) - 1))
            box.blockSignals(False)
        self.compare_button.setEnabled(len(runs) >= 2)

    def choose(self, run_a: int, run_b: int, mode: str | None = None) -> None:
        self.run_a.setCurrentIndex(self.run_a.findData(run_a))
        self.run_b.setCurrentIndex(self.run_b.findData(run_b))
        if mode:
            self.mode_box.setCurrentText(mode)

    def request(self) -> None:
        a, b = self.run_a.currentData(), self.run_b.currentData()
        if a is None or b is None:
            return
        if a == b:
            self.status.setText("Pick two different runs.")
            return
        self.status.setText("Comparing…")
        self.compare_requested.emit(a, b, self.mode_box.currentText())

    def set_rows(self, rows: list[dict]) -> None:
        """Show ``compare_runs`` rows (largest |difference| first, as given)."""
        self.table.setSortingEnabled(False)
        self.table.horizontalHeader().setSortIndicator(-1, self.table.horizontalHeader().sortIndicatorOrder())
        cells = []
        for r in rows:
            record = SortItem(str(r["record_id"]), str(r["record_id"]))
            record.item_id = r["item_id"]
            diff = r["difference"]
            cells.append([record, SortItem(r["category"] or "", r["category"] or ""),
                          SortItem(fmt(r["a"]), r["a"]), SortItem(fmt(r["b"]), r["b"]),
                          SortItem(_signed(diff), None if diff is None else abs(diff))])
        fill(self.table, cells)
        self.table.setSortingEnabled(True)
        differ = sum(1 for r in rows if r["difference"])
        self.status.setText(
            f"{len(rows)} items scored in both runs ({self.mode_box.currentText()}); {differ} differ."
            if rows else "No item is scored in both runs in this mode: score both runs first."
        )

    def item_id_at(self, row: int) -> int | None:
        cell = self.table.item(row, 0)
        return getattr(cell, "item_id", None)

    def _activated(self, row: int, _column: int) -> None:
        item_id = self.item_id_at(row)
        if item_id is not None:
            self.show_item.emit(item_id)


def _signed(diff: float | None) -> str:
    if diff is None:
        return "n/a"
    return "0" if diff == 0 else f"{diff:+.3f}"
