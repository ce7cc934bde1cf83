"""The "Verdicts changed" list: outputs whose pass/fail flipped when their item's gold changed."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from reviewer.scoring.job import Flip
from reviewer_ui.runs.tables import SortItem, fill, make_table


def verdict(passed: bool | None) -> str:
    return "pass" if passed else ("n/a" if passed is None else "fail")


class FlipsView(QWidget):
    """Newest flips first; double-click shows the item."""

    show_item = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.flips: list[Flip] = []
        self.table = make_table(["Record", "Run", "Replication", "Mode", "Before → after"], stretch=1)
        self.table.cellDoubleClicked.connect(self._activated)
        self.status = QLabel("Fixing an item's gold re-scores its scored outputs; changed verdicts are listed here.")
        self.status.setObjectName("muted")
        self.status.setWordWrap(True)
        clear = QPushButton("Clear")
        clear.clicked.connect(self.clear)
        row = QHBoxLayout()
        row.addWidget(self.status, 1)
        row.addWidget(clear)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table, 1)
        layout.addLayout(row)

    def add(self, flips: list[Flip], items: int) -> None:
        self.flips = list(flips) + self.flips
        self._fill()
        self.status.setText(f"Re-scored {items} item{'s' if items != 1 else ''}: "
                            f"{len(flips)} verdict{'s' if len(flips) != 1 else ''} changed.")

    def clear(self) -> None:
        self.flips = []
        self._fill()

    def _fill(self) -> None:
        rows = []
        for f in self.flips:
            record = SortItem(f.record_id, f.record_id)
            record.item_id = f.item_id
            rows.append([record, SortItem(f.run, f.run), SortItem(str(f.replication), f.replication),
                         SortItem(f.mode, f.mode), SortItem(f"{verdict(f.before)} → {verdict(f.after)}")])
        fill(self.table, rows)

    def _activated(self, row: int, _column: int) -> None:
        item_id = getattr(self.table.item(row, 0), "item_id", None)
        if item_id is not None:
            self.show_item.emit(item_id)
