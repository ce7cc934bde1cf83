"""The tree of a huge JSON text, read from the text itself (Qt-free, helper side).

Parsed whole, a 91.5 MB response became 775 MB of Python objects in the helper process.
A ``SpanTree`` keeps only the text's bytes: a container's members are found by the
commas between them (reviewer_ui.jsonspans, remembered for the last few containers
opened), and a member is parsed only when its row is shown, or when the user opens a
member small enough to parse whole (PIECE), from which on the tree walks Python values.
The rows are those of the parsed value (reviewer_ui.treeindex): ``(key, preview, type
name, size)``. Where the text is not JSON, the rows of the broken part raise
ValueError (the tree leaves that node closed; the text view names the problem).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

import numpy as np
import orjson

from reviewer_ui.jsonspans import (
    as_array, child_bounds, key_and_value, member, member_bounds, offset_type, root_span, skip_space,
)
from reviewer_ui.streamprint import PIECE

_OPENERS = (ord("{"), ord("["))
KEPT_CONTAINERS = 8  # containers whose member offsets are remembered (a few MB at most each)


class SpanTree:
    """A JSON text whose top is an object or an array, shown as a tree without parsing it
    whole. Raises NotSplittable when the text's top is anything else (the caller parses it
    whole). Safe to use from several threads (the helper's queue and its quick lane)."""

    def __init__(self, data: bytes):
        self.data = data
        self.buf = as_array(data)
        self.root = root_span(self.buf)
        self._bounds: OrderedDict[tuple[int, int], np.ndarray] = OrderedDict()
        self._keys: OrderedDict[tuple[int, int], dict[str, int]] = OrderedDict()
        self._lock = threading.Lock()

    def top_row(self) -> tuple:
        return self._row("$", self.root)

    def rows(self, path: tuple, start: int, count: int) -> list[tuple]:
        """Rows ``start`` to ``start + count`` under the node at ``path`` (keys or indexes)."""
        from reviewer_ui.treeindex import rows_of

        node = self._resolve(path)
        if not isinstance(node, tuple):
            return rows_of(node, start, count)
        bounds = self._members(node)
        is_object = int(self.buf[node[0]]) == _OPENERS[0]
        return [self._row(*self._member(bounds, i, is_object)) for i in range(start, min(len(bounds) - 1, start + count))]

    # -- inside ----------------------------------------------------------------------------

    def _resolve(self, path: tuple) -> Any:
        """The node at ``path``: a span (start, end) of a big container, or a parsed value."""
        node: Any = self.root
        for part in path:
            if isinstance(node, tuple) and not self._big(node):
                node = self._parse(node)
            if not isinstance(node, tuple):
                node = node[part]
                continue
            bounds = self._members(node)
            if int(self.buf[node[0]]) == _OPENERS[0]:
                index = self._key_index(node, bounds).get(part)
                if index is None:
                    raise KeyError(part)
                node = self._member(bounds, index, True)[1]
            else:
                if not 0 <= part < len(bounds) - 1:
                    raise IndexError(part)
                node = self._member(bounds, part, False)[1]
        if isinstance(node, tuple) and not self._big(node):
            node = self._parse(node)
        return node

    def _big(self, span: tuple[int, int]) -> bool:
        return span[1] - span[0] > PIECE and int(self.buf[span[0]]) in _OPENERS

    def _parse(self, span: tuple[int, int]) -> Any:
        return orjson.loads(memoryview(self.data)[span[0] : span[1]])

    def _row(self, key: Any, span: tuple[int, int]) -> tuple:
        from reviewer_ui.treeindex import row_of

        if not self._big(span):
            return row_of(key, self._parse(span))
        size = len(self._members(span)) - 1
        if int(self.buf[span[0]]) == _OPENERS[0]:
            return key, f"{{{size} keys}}" if size else "{}", "object", size
        return key, f"[{size} items]" if size else "[]", "array", size

    def _members(self, span: tuple[int, int]) -> np.ndarray:
        """Offsets around the members of the container at ``span``: member i lies between
        bounds[i] and bounds[i + 1] (its opening bracket or a comma before, a comma or its
        closing bracket after); one offset only when it is empty."""
        with self._lock:
            bounds = self._bounds.get(span)
            if bounds is not None:
                self._bounds.move_to_end(span)
                return bounds
        start, end = span
        found = {}
        if skip_space(self.buf, start + 1, end - 1) == end - 1:
            bounds = found[span] = np.array([start], dtype=offset_type(self.buf))
        else:
            bounds, below = member_bounds(self.buf, start, end - 1)
            found[span] = bounds
            # The same pass found the commas inside the members: the big ones, which the
            # user is likely to open next, need no scan of their own.
            is_object = int(self.buf[start]) == _OPENERS[0]
            for i in np.flatnonzero(np.diff(bounds) > PIECE)[:KEPT_CONTAINERS - 1]:
                child = self._member(bounds, int(i), is_object)[1]
                if self._big(child) and skip_space(self.buf, child[0] + 1, child[1] - 1) < child[1] - 1:
                    found[child] = child_bounds(below, *child)
        with self._lock:
            for known, its_bounds in found.items():
                self._bounds[known] = its_bounds
            self._bounds.move_to_end(span)
            while len(self._bounds) > KEPT_CONTAINERS:
                self._bounds.popitem(last=False)
        return bounds

    def _member(self, bounds: np.ndarray, i: int, is_object: bool) -> tuple[Any, tuple[int, int]]:
        """(key or index, value span) of member ``i``."""
        key, start, end = member(self.data, self.buf, bounds, i, is_object)
        return key, (start, end)

    def _key_index(self, span: tuple[int, int], bounds: np.ndarray) -> dict[str, int]:
        """Key -> member index of the object at ``span`` (the last one of a key, as a parse keeps)."""
        with self._lock:
            index = self._keys.get(span)
        if index is None:
            index = {}
            for i in range(len(bounds) - 1):
                start, end = int(bounds[i]) + 1, int(bounds[i + 1])
                index[orjson.loads(key_and_value(self.data, start, end)[0])] = i
            with self._lock:
                self._keys[span] = index
                while len(self._keys) > KEPT_CONTAINERS:
                    self._keys.popitem(last=False)
        return index
