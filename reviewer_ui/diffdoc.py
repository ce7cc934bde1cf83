"""Qt-free preparation of a side-by-side diff (runs on a worker thread).

``build_diff(ctx, left, right)`` runs reviewer.jsondiff, aligns the two
pretty-printed documents and turns them into two LineDocuments with the same
rows (fillers where one side has nothing), a background role per changed row,
and character spans inside long changed strings.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reviewer.jobs import JobContext
from reviewer.jsondiff import (
    AlignedDocument,
    Change,
    CollapsedRun,
    DiffOptions,
    align,
    diff,
)
from reviewer.jsondiff.render import scalar_text
from reviewer_ui.runtime import gcpolicy
from reviewer_ui.textdoc import LineDocument, json_tokens

ROLE_OF_KIND = {"added": "added", "removed": "removed", "changed": "changed", "type_changed": "changed",
                "moved": "moved"}


@dataclass
class DiffResult:
    changes: list[Change]
    aligned: AlignedDocument
    left: LineDocument
    right: LineDocument
    change_rows: list[int | None]  # row of each change in ``aligned`` (None when not shown)

    def differences_only(self, context: int = 3) -> tuple[LineDocument, LineDocument, list[int | None]]:
        """Both sides with long equal runs folded into "… N equal lines" rows,
        plus the aligned row shown at each view row (None for a fold)."""
        entries = self.aligned.differences_only(context)  # walks every aligned row: once
        rows: list[int | None] = [None if isinstance(e, CollapsedRun) else e for e in entries]
        fold_labels = iter([e.label for e in entries if isinstance(e, CollapsedRun)])
        return _subset(self.left, rows, fold_labels), _subset(self.right, rows, None), rows


def _subset(doc: LineDocument, rows: list[int | None], labels) -> LineDocument:
    lines, roles, spans, numbers = [], {}, {}, []
    for view_row, row in enumerate(rows):
        if row is None:
            lines.append(next(labels) if labels is not None else "")
            roles[view_row] = "collapsed"
            numbers.append(None)
            continue
        lines.append(doc.lines[row])
        if row in doc.roles:
            roles[view_row] = doc.roles[row]
        if row in doc.spans:
            spans[view_row] = doc.spans[row]
        numbers.append(doc.number(row))
    return LineDocument(lines, doc.tokenizer, roles, spans, numbers)


class LineNumbers(Sequence):
    """The gutter numbers of one side of a diff: a C array with 0 for "no number"
    (a filler row). 400k Python ints in a list cost ~13 MB, and freeing them is one
    C call that holds the GIL ~10 ms, stalling the GUI thread (see reviewer_ui.runtime.disposal)."""

    def __init__(self, numbers: array):
        self._numbers = numbers

    def __len__(self) -> int:
        return len(self._numbers)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [n or None for n in self._numbers[index]]
        return self._numbers[index] or None


def _side(lines: list[str | None], kinds: list[str | None]) -> LineDocument:
    texts: list[str] = []
    roles: dict[int, str] = {}
    numbers = array("l")
    n = longest = 0
    for row, line in enumerate(lines):
        if line is None:
            texts.append("")
            roles[row] = "filler"
            numbers.append(0)
            continue
        n += 1
        texts.append(line)
        numbers.append(n)
        # Measured here, in bytecode the GUI thread can interleave with: LineDocument's
        # own max(map(len, lines)) is one C call holding the GIL ~25 ms on 600k lines,
        # a stall of the GUI thread while this runs on a worker.
        longest = max(longest, len(line))
        kind = kinds[row]
        if kind is not None:
            roles[row] = ROLE_OF_KIND.get(kind, "changed")
    return LineDocument(texts, json_tokens, roles, {}, LineNumbers(numbers), max_len=longest)


def _escaped_offsets(text: str) -> list[int]:
    """Column of each character of ``text`` inside its JSON literal (after the quote)."""
    out, col = [], 1
    for ch in text:
        out.append(col)
        col += len(scalar_text(ch)) - 2 if (ch < " " or ch in '"\\') else 1
    out.append(col)
    return out


def _string_spans(doc: LineDocument, row: int, value: str, ops, side: str) -> None:
    """Mark the edited characters of a long changed string on its line."""
    line = doc.lines[row]
    literal = scalar_text(value)
    end = len(line) - (1 if line.endswith(",") else 0)
    start = end - len(literal)
    if start < 0 or line[start:end] != literal:
        return  # not laid out on one line as expected: keep the row highlight only
    cols = _escaped_offsets(value)
    marks = doc.spans.setdefault(row, [])
    for tag, i1, i2, j1, j2 in ops:
        a, b = (i1, i2) if side == "left" else (j1, j2)
        if b > a:
            role = "span_removed" if side == "left" else "span_added"
            marks.append((start + cols[a], start + cols[b], role if tag != "replace" else "span_changed"))


def build_diff(ctx: JobContext | None, left: Any, right: Any, options: DiffOptions | None = None) -> DiffResult:
    """Diff and lay out two JSON values (a job; runs with the collector paused, see reviewer_ui.runtime.gcpolicy)."""
    with gcpolicy.paused():
        return _build_diff(ctx, left, right, options)


def _build_diff(ctx: JobContext | None, left: Any, right: Any, options: DiffOptions | None) -> DiffResult:
    changes = diff(left, right, options or DiffOptions(), ctx)
    if ctx is not None:
        ctx.check_cancelled()
    aligned = align(left, right, changes)
    ldoc, rdoc = _side(aligned.left_lines, aligned.kinds), _side(aligned.right_lines, aligned.kinds)
    # First changed row of each path, found by walking the changed rows once
    # (row_of_path per change would scan every block for every change).
    left_rows: dict[tuple, int] = {}
    right_rows: dict[tuple, int] = {}
    for row, kind in enumerate(aligned.kinds):
        if kind is not None:
            if aligned.left_lines[row] is not None:
                left_rows.setdefault(aligned.left_path(row), row)
            if aligned.right_lines[row] is not None:
                right_rows.setdefault(aligned.right_path(row), row)

    def row_of(path, side):
        if path is None:
            return None
        found = (left_rows if side == "left" else right_rows).get(path)
        return found if found is not None else aligned.row_of_path(path, side)

    rows: list[int | None] = []
    for change in changes:
        row = row_of(change.left_path, "left")
        if row is None:
            row = row_of(change.right_path, "right")
        rows.append(row)
        if change.string_ops and row is not None and isinstance(change.left, str) and isinstance(change.right, str):
            rrow = row_of(change.right_path, "right")
            _string_spans(ldoc, row, change.left, change.string_ops, "left")
            if rrow is not None:
                _string_spans(rdoc, rrow, change.right, change.string_ops, "right")
    return DiffResult(changes, aligned, ldoc, rdoc, rows)
