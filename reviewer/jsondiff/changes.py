"""What the diff reports: one ``Change`` per difference, addressed by JSON path."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from reviewer.jsondiff.paths import render_path

ChangeKind = Literal["added", "removed", "changed", "type_changed", "moved"]
ADDED: ChangeKind = "added"
REMOVED: ChangeKind = "removed"
CHANGED: ChangeKind = "changed"
TYPE_CHANGED: ChangeKind = "type_changed"
MOVED: ChangeKind = "moved"
KINDS: tuple[ChangeKind, ...] = (ADDED, REMOVED, CHANGED, TYPE_CHANGED, MOVED)

# One character-level edit between two strings, as difflib gives it:
# (tag, i1, i2, j1, j2) with tag in "replace", "delete", "insert"; offsets are
# Python (code point) indexes into the left and right strings; a UI working in
# UTF-16 units (Qt) must convert them for characters beyond U+FFFF (emoji).
StringOp = tuple[str, int, int, int, int]


@dataclass(frozen=True, slots=True)
class Change:
    """One difference between the left and the right document.

    - ``left_path`` / ``right_path``: where the node is on each side (None on the
      side where it does not exist: ``added`` has no left, ``removed`` no right).
      They differ when a list element sits at another index on the right.
    - ``path``: the path to show: ``left_path`` when there is one, else ``right_path``.
    - ``left`` / ``right``: the values on each side (None on a missing side; the
      kind tells whether None means JSON null or "absent").
    - ``moved``: the element is equal (or its differences are reported as their own
      changes) but found at another index; ``left_path`` and ``right_path`` give both.
    - ``string_ops``: for ``changed`` strings at least ``string_ops_min_length``
      long, the character-level opcodes without the "equal" runs. When the
      differing middle of two long strings is too long to match character by
      character quickly, it is one "replace" span.
    """

    kind: ChangeKind
    path: tuple
    left_path: tuple | None
    right_path: tuple | None
    left: Any = None
    right: Any = None
    string_ops: tuple[StringOp, ...] | None = None

    @property
    def path_text(self) -> str:
        return render_path(self.path)

    def describe(self) -> str:
        """One line for a change list, e.g. ``changed $.a[2].price: 3 -> 4``."""
        if self.kind == ADDED:
            return f"added {render_path(self.right_path)}: {_short(self.right)}"
        if self.kind == REMOVED:
            return f"removed {render_path(self.left_path)}: {_short(self.left)}"
        if self.kind == MOVED:
            return f"moved {render_path(self.left_path)} -> {render_path(self.right_path)}"
        return f"{self.kind.replace('_', ' ')} {self.path_text}: {_short(self.left)} -> {_short(self.right)}"


def _short(value: Any, limit: int = 60) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
