"""A lazy tree model over a parsed JSON value.

Children are created only when a node is expanded, in batches of ``BATCH``
through canFetchMore/fetchMore, so a 5 MB response shows in milliseconds and
costs memory only for what was opened (a fully built QStandardItemModel takes
seconds and ~600 MB: shared/NOTES.md).

Reduced view: every list shows only its first element (the row says how many
there are), which is usually all a reviewer needs to see a response's shape.
"""

from __future__ import annotations

import json
from itertools import islice
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt

from reviewer.errors import json_path

BATCH = 500
_ROOT = QModelIndex()  # the invalid index: Qt's "no parent"
PREVIEW = 160


class _Node:
    __slots__ = ("_size", "children", "key", "parent", "row", "value")

    def __init__(self, parent: _Node | None, row: int, key: Any, value: Any):
        self.parent, self.row, self.key, self.value = parent, row, key, value
        self.children: list[_Node] = []
        self._size = len(value) if isinstance(value, (dict, list)) else 0

    def path_parts(self) -> list[Any]:
        parts, node = [], self
        while node.parent is not None:
            parts.append(node.key)
            node = node.parent
        return parts[::-1]


def preview(value: Any) -> str:
    """One-line text for a value: scalars as JSON, containers by size."""
    if isinstance(value, dict):
        return f"{{{len(value)} keys}}" if value else "{}"
    if isinstance(value, list):
        return f"[{len(value)} items]" if value else "[]"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= PREVIEW else text[: PREVIEW - 1] + "…"


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "object", list: "array", str: "string", bool: "boolean"}.get(
        type(value), "number" if isinstance(value, (int, float)) else type(value).__name__
    )


class JsonTreeModel(QAbstractItemModel):
    COLUMNS = ("Key", "Value", "Type")

    def __init__(self, value: Any = None, reduced: bool = False, parent=None):
        super().__init__(parent)
        self._reduced = reduced
        self._root = _Node(None, 0, "$", value)
        self._top = _Node(self._root, 0, None, value)  # the single visible root row "$"

    # -- public -------------------------------------------------------------------

    def set_value(self, value: Any) -> None:
        self.beginResetModel()
        self._root = _Node(None, 0, "$", value)
        self._top = _Node(self._root, 0, None, value)
        self.endResetModel()

    def value(self) -> Any:
        return self._top.value

    def set_reduced(self, reduced: bool) -> None:
        """Switch between every element and one element per list (rebuilds the tree)."""
        if reduced != self._reduced:
            self._reduced = reduced
            self.set_value(self._top.value)

    @property
    def reduced(self) -> bool:
        return self._reduced

    def path(self, index: QModelIndex) -> str:
        """The JSON path of a row, e.g. ``$.filings[3].form``."""
        node = self._node(index)
        return json_path(node.path_parts()[1:]) if node is not None else "$"

    # -- model --------------------------------------------------------------------

    def _node(self, index: QModelIndex | QPersistentModelIndex) -> _Node | None:
        return index.internalPointer() if index.isValid() else None

    def _limit(self, node: _Node) -> int:
        if self._reduced and isinstance(node.value, list):
            return min(1, node._size)
        return node._size

    def index(self, row: int, column: int, parent=_ROOT) -> QModelIndex:
        node = self._node(parent)
        if node is None:
            return self.createIndex(row, column, self._top) if row == 0 else QModelIndex()
        if 0 <= row < len(node.children):
            return self.createIndex(row, column, node.children[row])
        return QModelIndex()

    def parent(self, index=_ROOT):
        node = self._node(index)
        if node is None or node.parent is None or node.parent is self._root:
            return QModelIndex()
        up = node.parent
        return self.createIndex(up.row, 0, up)

    def rowCount(self, parent=_ROOT) -> int:
        if parent.column() > 0:
            return 0
        node = self._node(parent)
        return 1 if node is None else len(node.children)

    def columnCount(self, parent=_ROOT) -> int:
        return len(self.COLUMNS)

    def hasChildren(self, parent=_ROOT) -> bool:
        if parent.column() > 0:  # children hang off column 0 only
            return False
        node = self._node(parent)
        return True if node is None else self._limit(node) > 0

    def canFetchMore(self, parent) -> bool:
        if parent.column() > 0:
            return False
        node = self._node(parent)
        return node is not None and len(node.children) < self._limit(node)

    def fetchMore(self, parent) -> None:
        node = self._node(parent)
        if node is None or parent.column() > 0:
            return
        start = len(node.children)
        end = min(self._limit(node), start + BATCH)
        if end <= start:
            return
        self.beginInsertRows(parent, start, end - 1)
        value = node.value
        if isinstance(value, dict):
            for offset, (key, child) in enumerate(islice(value.items(), start, end)):
                node.children.append(_Node(node, start + offset, key, child))
        else:
            for row in range(start, end):
                node.children.append(_Node(node, row, row, value[row]))
        self.endInsertRows()

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        node = self._node(index)
        if node is None:
            return None
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                if node.parent is self._root:
                    return "$"
                return f"[{node.key}]" if isinstance(node.key, int) else str(node.key)
            if col == 1:
                text = preview(node.value)
                if self._reduced and isinstance(node.value, list) and node._size > 1:
                    text += f"  (showing 1 of {node._size})"
                return text
            return type_name(node.value)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.path(index)
        return None

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section]
        return None
