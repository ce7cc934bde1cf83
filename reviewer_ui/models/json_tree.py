"""A lazy tree model over a parsed JSON value, or over one kept in the helper process.

Children are created only when a node is expanded, in batches of ``BATCH``
through canFetchMore/fetchMore, so a 5 MB response shows in milliseconds and
costs memory only for what was opened (a fully built QStandardItemModel takes
seconds and ~600 MB: shared/NOTES.md).

A big response's value stays in the helper process (``set_value`` given a
reviewer_ui.treeindex.RemoteJson): a fetch then asks the helper for the batch of
rows without waiting, and the rows are inserted when they arrive, so the GUI
never holds (or frees) the parsed value.

Reduced view: every list shows only its first element (the row says how many
there are), which is usually all a reviewer needs to see a response's shape.
"""

from __future__ import annotations

from itertools import islice
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt, Signal

from reviewer.errors import json_path
from reviewer_ui.treeindex import PREVIEW, RemoteJson, preview, type_name  # noqa: F401 - re-exported

BATCH = 500
_ROOT = QModelIndex()  # the invalid index: Qt's "no parent"


class _Node:
    __slots__ = ("_size", "children", "key", "parent", "pending", "row", "shown", "value")

    def __init__(self, parent: _Node | None, row: int, key: Any, value: Any, shown: tuple | None = None):
        self.parent, self.row, self.key, self.value = parent, row, key, value
        self.children: list[_Node] = []
        # ``shown``: (preview, type name) of a node whose value is in the helper (value None).
        self.shown = shown
        self.pending = False  # a batch of its children was asked of the helper
        if shown is not None:
            self._size = shown[2]
        else:
            self._size = len(value) if isinstance(value, (dict, list)) else 0

    def path_parts(self) -> list[Any]:
        parts, node = [], self
        while node.parent is not None:
            parts.append(node.key)
            node = node.parent
        return parts[::-1]

    def is_list(self) -> bool:
        return self.shown[1] == "array" if self.shown is not None else isinstance(self.value, list)


def _remote_node(parent: _Node, row: int, info: tuple) -> _Node:
    key, text, kind, size = info
    return _Node(parent, row, key, None, (text, kind, size))


class JsonTreeModel(QAbstractItemModel):
    COLUMNS = ("Key", "Value", "Type")
    _rows_arrived = Signal(object)  # (generation, node, start, future), from the helper's thread

    def __init__(self, value: Any = None, reduced: bool = False, parent=None):
        super().__init__(parent)
        self._reduced = reduced
        self._generation = 0  # bumped on every reset: late rows of an older tree are dropped
        self._remote: RemoteJson | None = None
        self._rows_arrived.connect(self._on_rows, Qt.ConnectionType.QueuedConnection)
        self._build(value)

    def _build(self, value: Any) -> None:
        self._generation += 1
        if isinstance(value, RemoteJson):
            self._remote = value
            self._root = _Node(None, 0, "$", None, ("", "object", 1))
            self._top = _remote_node(self._root, 0, (None, *value.top[1:]))
        else:
            self._remote = None
            self._root = _Node(None, 0, "$", value)
            self._top = _Node(self._root, 0, None, value)

    # -- public -------------------------------------------------------------------

    def set_value(self, value: Any) -> None:
        previous = self._remote
        self.beginResetModel()
        self._build(value)
        self.endResetModel()
        if previous is not None and previous is not value:
            from reviewer_ui.runtime import parsepool
            from reviewer_ui.treeindex import close_value

            parsepool.quick(close_value, previous.key)  # freed there, not here

    def value(self) -> Any:
        return self._remote if self._remote is not None else self._top.value

    def set_reduced(self, reduced: bool) -> None:
        """Switch between every element and one element per list (rebuilds the tree)."""
        if reduced != self._reduced:
            self._reduced = reduced
            self.beginResetModel()
            self._build(self.value())
            self.endResetModel()

    @property
    def reduced(self) -> bool:
        return self._reduced

    @property
    def fetching(self) -> bool:
        """Whether rows asked of the helper process are still on their way."""
        stack = [self._top]
        while stack:
            node = stack.pop()
            if node.pending:
                return True
            stack.extend(node.children)
        return False

    def path(self, index: QModelIndex) -> str:
        """The JSON path of a row, e.g. ``$.filings[3].form``."""
        node = self._node(index)
        return json_path(node.path_parts()[1:]) if node is not None else "$"

    # -- model --------------------------------------------------------------------

    def _node(self, index: QModelIndex | QPersistentModelIndex) -> _Node | None:
        return index.internalPointer() if index.isValid() else None

    def _limit(self, node: _Node) -> int:
        if self._reduced and node.is_list():
            return min(1, node._size)
        return node._size

    def index(self, row: int, column: int, parent=_ROOT) -> QModelIndex:
        node = self._node(parent)
        if node is None:
            return self.createIndex(row, column, self._top) if row == 0 else QModelIndex()
        if 0 <= row < len(node.children):
            return self.createIndex(row, column, node.children[row])
        return QModelIndex()

    def _index_of(self, node: _Node) -> QModelIndex:
        return self.createIndex(node.row, 0, node)

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
        return node is not None and not node.pending and len(node.children) < self._limit(node)

    def fetchMore(self, parent) -> None:
        node = self._node(parent)
        if node is None or parent.column() > 0 or node.pending:
            return
        start = len(node.children)
        end = min(self._limit(node), start + BATCH)
        if end <= start:
            return
        if self._remote is not None:
            self._fetch_remote(node, start, end)
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

    def _fetch_remote(self, node: _Node, start: int, end: int) -> None:
        from reviewer_ui.runtime import parsepool
        from reviewer_ui.treeindex import rows

        node.pending = True
        generation = self._generation
        future = parsepool.quick(rows, self._remote.key, tuple(node.path_parts()[1:]), start, end - start)
        future.add_done_callback(lambda f: self._arrived(generation, node, start, f))

    def _arrived(self, generation, node, start, future) -> None:
        try:  # in the thread that finished the future: queued to the GUI thread
            self._rows_arrived.emit((generation, node, start, future))
        except RuntimeError:  # the model was deleted meanwhile
            pass

    def _on_rows(self, arrival) -> None:
        generation, node, start, future = arrival
        if generation != self._generation:
            return  # rows of a tree no longer shown
        node.pending = False
        try:
            rows = future.result()
        except Exception:  # noqa: BLE001 - the helper went away: the node stays closed
            return
        if not rows or start != len(node.children):
            return
        self.beginInsertRows(self._index_of(node), start, start + len(rows) - 1)
        node.children.extend(_remote_node(node, start + k, info) for k, info in enumerate(rows))
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
                text = node.shown[0] if node.shown is not None else preview(node.value)
                if self._reduced and node.is_list() and node._size > 1:
                    text += f"  (showing 1 of {node._size})"
                return text
            return node.shown[1] if node.shown is not None else type_name(node.value)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.path(index)
        return None

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section]
        return None
