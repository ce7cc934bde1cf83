"""WrapGrid: a row of buttons that wraps into a grid when its box is too narrow.

In one row when they fit (a wide or floated window), else in as many equal columns as
the width holds (2x2 in the Review dock): a narrow dock never scrolls sideways to reach
the last button. Its minimum width is one column's, its height that of the rows it uses.
"""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QGridLayout, QSizePolicy, QWidget


class WrapGrid(QWidget):
    def __init__(self, widgets: list[QWidget], parent: QWidget | None = None, spacing: int = 4):
        super().__init__(parent)
        self.items = list(widgets)
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(spacing)
        self.columns = 0
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.arrange(len(self.items))

    def cell_width(self) -> int:
        return max((w.sizeHint().width() for w in self.items), default=0)

    def columns_for(self, width: int) -> int:
        """The most equal columns whose cells (each as wide as the widest item) fit ``width``."""
        cell, gap = self.cell_width(), self.grid.horizontalSpacing()
        for n in range(len(self.items), 1, -1):
            if n * cell + (n - 1) * gap <= width:
                return n
        return 1

    def arrange(self, columns: int) -> None:
        columns = max(1, min(columns, len(self.items)))
        if columns == self.columns:
            return
        for w in self.items:
            self.grid.removeWidget(w)
        for i, w in enumerate(self.items):
            self.grid.addWidget(w, i // columns, i % columns)
        for c in range(len(self.items)):
            self.grid.setColumnStretch(c, 1 if c < columns else 0)
            self.grid.setColumnMinimumWidth(c, 0)
        self.columns = columns
        self.updateGeometry()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        n, gap = len(self.items), self.grid.horizontalSpacing()
        return QSize(n * self.cell_width() + max(0, n - 1) * gap, self.grid.sizeHint().height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(self.cell_width(), self.grid.minimumSize().height())

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self.arrange(self.columns_for(event.size().width()))
