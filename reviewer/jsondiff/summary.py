"""Counts of changes by kind, and navigation between changes in document order."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Any

from reviewer.jsondiff.changes import KINDS, Change


def count_by_kind(changes: list[Change]) -> dict[str, int]:
    """Number of changes of each kind, every kind present (zero when absent)."""
    counts = dict.fromkeys(KINDS, 0)
    for c in changes:
        counts[c.kind] += 1
    return counts


class ChangeIndex:
    """Changes ordered as they appear in the documents, for "next/previous change".

    A path's place is where its node is printed: object members in the
    document's member order, list elements by index; a descendant comes after
    its ancestor. Changes are placed by their left path in ``left``; an added
    node, which only the right side has, by its right path in ``right``.
    """

    def __init__(self, changes: list[Change], left: Any, right: Any):
        self.changes = list(changes)
        self.counts = count_by_kind(self.changes)
        self._left = _Positions(left)
        self._right = _Positions(right)
        keyed = sorted(
            (self._key(c), n) for n, c in enumerate(self.changes)
        )
        self._keys = [k for k, _ in keyed]
        self._order = [self.changes[n] for _, n in keyed]

    def __len__(self) -> int:
        return len(self.changes)

    def _key(self, change: Change) -> tuple:
        if change.left_path is not None:
            return self._left.key(change.left_path)
        return self._right.key(change.right_path)

    def first_change_after(self, path: tuple, side: str = "left") -> Change | None:
        """The first change printed after the node at ``path`` (a path in the
        ``side`` document), its own descendants included; None past the last."""
        key = (self._left if side == "left" else self._right).key(path)
        k = bisect_right(self._keys, key)
        return self._order[k] if k < len(self._order) else None

    def last_change_before(self, path: tuple, side: str = "left") -> Change | None:
        """The last change printed before the node at ``path``; None before the first."""
        key = (self._left if side == "left" else self._right).key(path)
        k = bisect_left(self._keys, key)
        return self._order[k - 1] if k else None


class _Positions:
    """Order keys of paths in one document: a tuple of member/element positions."""

    def __init__(self, document: Any):
        self.document = document
        self._member_positions: dict[int, dict] = {}

    def key(self, path: tuple) -> tuple:
        out = []
        node = self.document
        for part in path:
            if type(node) is dict:
                positions = self._member_positions.get(id(node))
                if positions is None:
                    positions = {k: n for n, k in enumerate(node)}
                    self._member_positions[id(node)] = positions
                # A member the document lacks sorts after the ones it has.
                out.append(positions.get(part, len(positions)))
                node = node.get(part)
            elif type(node) is list and type(part) is int:
                out.append(part)
                node = node[part] if 0 <= part < len(node) else None
            else:
                out.append(part if type(part) is int else 0)
                node = None
        return tuple(out)
