"""Qt-free preparation of a side-by-side diff (runs on a worker thread).

``build_diff(ctx, left, right)`` runs reviewer.jsondiff, aligns the two
pretty-printed documents and turns them into two LineDocuments with the same
rows (fillers where one side has nothing), a background role per changed row,
and character spans inside long changed strings. A big pair is laid out in the
helper process (reviewer_ui.diffproc); a small one here.
"""

from __future__ import annotations

import threading
from array import array
from bisect import bisect_left
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
from reviewer_ui.textdoc import LineDocument, TextLines, json_tokens

ROLE_OF_KIND = {"added": "added", "removed": "removed", "changed": "changed", "type_changed": "changed",
                "moved": "moved"}


FIRST_ROWS = 2000  # a diff laid out in more rows than this shows its top first (``on_partial``)
# How long the worker waits for the viewer to paint the first rows before laying out the
# rest. Painting is Python code, and so is the layout: run together, every Qt call of the
# paint waits for the GIL, and the first screen took 5-10 times longer (bench/viewer_bench.py).
SHOWN_WAIT_S = 0.25


@dataclass
class DiffResult:
    changes: list[Change]
    aligned: AlignedDocument | None  # None in a partial result
    left: LineDocument
    right: LineDocument
    change_rows: list[int | None]  # row of each change in ``aligned`` (None when not shown)
    complete: bool = True  # False: only the first rows of a big diff, the rest is being laid out
    shown: threading.Event | None = None  # a partial result: set by the viewer once it painted it

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
    """The gutter numbers of one side of a diff, from its filler rows alone: row ``r``
    shows ``r + 1`` minus the fillers above it, a filler shows none. A sorted C array of
    the (usually few) filler rows replaces a number per row: nothing per line to build
    on the worker, nothing per line to free on the GUI thread."""

    def __init__(self, n_rows: int, fillers: array):
        self._n = n_rows
        self._fillers = fillers

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._n))]
        if index < 0:
            index += self._n
        if not 0 <= index < self._n:
            raise IndexError(index)
        k = bisect_left(self._fillers, index)
        if k < len(self._fillers) and self._fillers[k] == index:
            return None
        return index + 1 - k


def _side(chunks: list[str], fillers: list[int], runs: list[tuple[int, int, str]], n_rows: int) -> LineDocument:
    """One side of an aligned document laid out as text (``align(..., as_text=True)``):
    its chunks joined into one text (TextLines), "filler" rows where it has no line, a
    role per changed row. Nothing here is done per line: the worker building it holds
    the GIL only for a join of a few thousand chunks, and the GUI gets one string."""
    text = "\n".join(chunks)
    roles: dict[int, str] = dict.fromkeys(fillers, "filler")
    for start, stop, kind in runs:
        role = ROLE_OF_KIND.get(kind, "changed")
        for row in range(start, stop):
            roles.setdefault(row, role)
    lines = TextLines(text) if n_rows else []
    # The longest line is measured in the first block only; the viewer widens its range
    # as it paints longer ones (as for any big text).
    longest = lines.longest_in_first_block() if n_rows else 0
    return LineDocument(lines, json_tokens, roles, {}, LineNumbers(n_rows, array("l", fillers)), max_len=longest)


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


def _partial(changes: list[Change], doc: AlignedDocument, wait: bool = True) -> DiffResult:
    """The rows laid out so far (all final), as a result the view can show. ``wait``: the
    layout waits for the view to paint them (``shown``) before going on in this process."""
    n = len(doc.kinds)
    ldoc = _side(doc.left_chunks[:], doc.left_fillers[:], doc.changed_runs[:], n)
    rdoc = _side(doc.right_chunks[:], doc.right_fillers[:], doc.changed_runs[:], n)
    ldoc.max_len = rdoc.max_len = max(ldoc.max_len, rdoc.max_len)
    return DiffResult(changes, None, ldoc, rdoc, [None] * len(changes), complete=False,
                      shown=threading.Event() if wait else None)


def _hand_over(on_partial, result: DiffResult) -> None:
    """Give the first rows to the viewer and let it paint them before going on."""
    on_partial(result)
    result.shown.wait(SHOWN_WAIT_S)


# Pairs whose compact JSON is at least this long (both sides together) are diffed and laid
# out in the helper process (reviewer_ui.diffproc); smaller ones here, where the round trip
# (serialising, the pipe, mapping two files) would cost more than the diff itself
# (bench/diff_bench.py --helper-threshold measures both ways).
IN_HELPER_FROM = 256 * 1024


def build_diff(ctx: JobContext | None, left: Any, right: Any, options: DiffOptions | None = None,
               on_partial=None) -> DiffResult:
    """Diff and lay out two JSON values (a job on a worker thread).

    The result is compact: each pane is one text plus the (few) filler and changed
    rows, not a Python object per line, so handing it to the GUI and later dropping
    it costs the GUI thread next to nothing. A big pair (IN_HELPER_FROM) is diffed and
    laid out in the helper process (reviewer_ui.diffproc): the hundreds of thousands of
    objects a 5 MB layout allocates never exist in the app, so its collector and the
    GUI thread never wait for them. Values orjson cannot write exactly (integers past
    64 bits, non-string keys, lone surrogates) and an app without its helper are diffed here.
    ``on_partial(result)``, when given, receives the first FIRST_ROWS rows of a bigger
    diff (``complete`` False, no change rows yet) while the rest is laid out."""
    from reviewer_ui.runtime import parsepool

    pair = _compact_pair(left, right)
    if pair is not None and _size(pair) >= IN_HELPER_FROM and parsepool.executor() is not None:
        from reviewer_ui.diffproc import diff_in_helper

        return diff_in_helper(ctx, left, right, pair, options, on_partial)
    del pair
    return _build_diff(ctx, left, right, options, on_partial)


def _compact_pair(left: Any, right: Any) -> tuple[list[bytes], list[bytes]] | None:
    """Both values as compact JSON, each a list of pieces that join to ``orjson.dumps`` of it
    (reviewer_ui.textdoc.print_pieces: many short C calls, where one call on a 5 MB value
    held the GIL, and so the GUI, for 8 ms and more under load), or None when orjson cannot
    write them. Known gap: NaN and infinities (not JSON; only the lenient json fallback
    of ``parse_json`` makes them) are written as null, so a big pair shows them as null."""
    from reviewer_ui import textdoc

    if textdoc.orjson is None:
        return None
    pair: tuple[list[bytes], list[bytes]] = ([], [])
    try:
        for value, parts in zip((left, right), pair):
            textdoc.print_pieces(value, parts.append, indent=False)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return None
    return pair


def _size(pair: tuple[list[bytes], list[bytes]]) -> int:
    return sum(len(part) for parts in pair for part in parts)


def _build_diff(ctx, left, right, options, on_partial) -> DiffResult:
    changes = diff(left, right, options or DiffOptions(), ctx)
    if ctx is not None:
        ctx.check_cancelled()
    first = None if on_partial is None else (lambda doc: _hand_over(on_partial, _partial(changes, doc)))
    aligned = align(left, right, changes, first_rows=FIRST_ROWS, on_first_rows=first, as_text=True)
    ldoc, rdoc, rows = lay_out(changes, aligned)
    return DiffResult(changes, aligned, ldoc, rdoc, rows)


def lay_out(changes: list[Change], aligned: AlignedDocument) -> tuple[LineDocument, LineDocument, list[int | None]]:
    """Both panes of an aligned diff (``align(..., as_text=True)``) and the row of each change,
    long changed strings marked character by character. The aligned document's chunks are
    emptied (the panes have the text). Used here and in the helper process (reviewer_ui.diffproc)."""
    n = len(aligned.kinds)
    runs = aligned.changed_runs
    ldoc = _side(aligned.left_chunks, aligned.left_fillers, runs, n)
    rdoc = _side(aligned.right_chunks, aligned.right_fillers, runs, n)
    # The panes scroll sideways together: the same range on both keeps their scroll bars alike.
    ldoc.max_len = rdoc.max_len = max(ldoc.max_len, rdoc.max_len)
    # The panes have the text now: the chunks would only cost memory.
    aligned.left_chunks, aligned.right_chunks = [], []
    # First changed row of each path, found by walking the changed rows once
    # (row_of_path per change would scan every block for every change).
    left_rows: dict[tuple, int] = {}
    right_rows: dict[tuple, int] = {}
    for start, stop, _kind in runs:
        for row in range(start, stop):
            if ldoc.roles.get(row) != "filler":
                left_rows.setdefault(aligned.left_path(row), row)
            if rdoc.roles.get(row) != "filler":
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
    return ldoc, rdoc, rows
