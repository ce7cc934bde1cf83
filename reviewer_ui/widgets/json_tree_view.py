"""The lazy JSON tree with a "reduced view" switch (one element per list)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from reviewer_ui.models.json_tree import JsonTreeModel


class JsonTreeView(QWidget):
    path_selected = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.model = JsonTreeModel(None, reduced=False, parent=self)
        self.tree = QTreeView()
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)  # lets Qt skip measuring every row
        self.tree.setAlternatingRowColors(True)
        self.tree.header().setStretchLastSection(False)
        self.tree.setColumnWidth(0, 220)
        self.tree.setColumnWidth(1, 420)
        self.tree.selectionModel().currentChanged.connect(self._on_current)
        self.reduced = QCheckBox("Reduced view (one element per list)")
        self.reduced.toggled.connect(self._on_reduced)
        self.path = QLabel("$")
        self.path.setObjectName("muted")
        self.path.setTextInteractionFlags(self.path.textInteractionFlags() | self.path.textInteractionFlags().TextSelectableByMouse)
        top = QHBoxLayout()
        top.addWidget(self.reduced)
        top.addStretch(1)
        top.addWidget(self.path)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.tree, 1)

    def set_value(self, value: Any) -> None:
        self.model.set_value(value)
        self._open_root()

    def _on_reduced(self, on: bool) -> None:
        self.model.set_reduced(on)
        self._open_root()

    def _open_root(self) -> None:
        # The top level is always wanted: fetch it now rather than on the next layout pass
        # (for a value in the helper process, the rows arrive a moment later).
        root = self.model.index(0, 0)
        if self.model.canFetchMore(root):
            self.model.fetchMore(root)
        self.tree.expand(root)

    def _on_current(self, current, _previous) -> None:
        path = self.model.path(current)
        self.path.setText(path)
        self.path_selected.emit(path)
