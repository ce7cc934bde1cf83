"""Side-by-side layout of two documents for the UI.

``align(left, right, changes)`` pretty-prints both documents into rows: row
``r`` shows ``left_lines[r]`` beside ``right_lines[r]`` (None is a blank filler
line), so that corresponding nodes line up and each side's text is its
document (members shared by both objects are shown in the left's order,
right-only members after them). ``kinds[r]`` is the change kind of the row or
None. Paths per line are computed on demand (``left_path(r)``), which keeps a
5 MB document's layout fast.

The layout of lists is rebuilt from the changes alone (removed/added/moved
elements; the rest paired in order), the same ``merge_order`` the diff uses;
with ignored paths in the options, lists are matched again (see ``align``).
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import compress
from itertools import count as count_from
from operator import ne
from dataclasses import dataclass, field
from collections.abc import Iterator
from typing import Any

from reviewer.jsondiff.changes import ADDED, CHANGED, MOVED, REMOVED, TYPE_CHANGED, Change
from reviewer.jsondiff.lists import LEFT_ONLY, PAIR, RIGHT_ONLY, match_lists, merge_order
from reviewer.jsondiff.options import DiffOptions
from reviewer.jsondiff.render import block_lines, line_paths, pretty_text, scalar_text


class _Block:
    """Consecutive lines of one side: a whole value (paths computed lazily) or
    one structural line (``{``, ``]``...) of a container shown member by member."""

    __slots__ = ("first_row", "n_lines", "value", "path", "_paths", "_offsets")

    def __init__(self, first_row: int, n_lines: int, value: Any, path: tuple, whole: bool):
        self.first_row = first_row
        self.n_lines = n_lines
        self.value = value if whole else _LINE
        self.path = path
        self._paths = None
        self._offsets = None

    def path_of(self, offset: int) -> tuple:
        if self.value is _LINE:
            return self.path
        if self._paths is None:
            self._paths = line_paths(self.value, self.path)
        return self._paths[offset]

    def offset_of(self, path: tuple) -> int | None:
        """First line of this block belonging to ``path``, or None."""
        if self.value is _LINE:
            return 0 if path == self.path else None
        if self._offsets is None:
            if self._paths is None:
                self._paths = line_paths(self.value, self.path)
            offsets: dict[tuple, int] = {}
            for offset, line_path in enumerate(self._paths):
                offsets.setdefault(line_path, offset)
            self._offsets = offsets
        return self._offsets.get(path)


_LINE = object()
_CONTAINERS = (dict, list)


@dataclass(frozen=True)
class CollapsedRun:
    """Rows ``start`` (included) to ``stop`` (excluded) hidden in "differences only" mode."""

    start: int
    stop: int

    @property
    def count(self) -> int:
        return self.stop - self.start

    @property
    def label(self) -> str:
        return f"… {self.count} equal line{'s' if self.count != 1 else ''}"


@dataclass
class AlignedDocument:
    """Two pretty-printed documents laid out in aligned rows (see the module docstring)."""

    left_lines: list[str | None] = field(default_factory=list)
    right_lines: list[str | None] = field(default_factory=list)
    kinds: list[str | None] = field(default_factory=list)
    _left_blocks: list[_Block] = field(default_factory=list, repr=False)
    _right_blocks: list[_Block] = field(default_factory=list, repr=False)
    # Text mode (``align(..., as_text=True)``): instead of a string per line, each side is
    # a list of chunks of consecutive lines (join them with "\n" for the side's text, a
    # filler row being an empty line), the filler rows of each side, and the runs
    # ``(start, stop, kind)`` of changed rows; ``left_lines``/``right_lines`` stay empty.
    text_mode: bool = False
    left_chunks: list[str] = field(default_factory=list, repr=False)
    right_chunks: list[str] = field(default_factory=list, repr=False)
    left_fillers: list[int] = field(default_factory=list, repr=False)
    right_fillers: list[int] = field(default_factory=list, repr=False)
    changed_runs: list[tuple[int, int, str]] = field(default_factory=list, repr=False)

    def __len__(self) -> int:
        return len(self.kinds)

    def left_text(self) -> str:
        """The left document as printed, filler lines left out."""
        return "\n".join(line for line in self.left_lines if line is not None)

    def right_text(self) -> str:
        return "\n".join(line for line in self.right_lines if line is not None)

    def left_path(self, row: int) -> tuple | None:
        """Path of the node the left line of ``row`` belongs to; None on a filler."""
        return _path_at(self._left_blocks, row)

    def right_path(self, row: int) -> tuple | None:
        return _path_at(self._right_blocks, row)

    def row_of_path(self, path: tuple, side: str = "left") -> int | None:
        """First row showing ``path`` on ``side`` ("left" or "right"), or None."""
        blocks = self._left_blocks if side == "left" else self._right_blocks
        n = len(path)
        for blk in blocks:
            if len(blk.path) <= n and blk.path == path[: len(blk.path)]:
                offset = blk.offset_of(path)
                if offset is not None:
                    return blk.first_row + offset
        return None

    # -- navigation ----------------------------------------------------------------------

    def change_rows(self) -> list[int]:
        """First row of each run of changed rows (one run per change as shown)."""
        kinds = self.kinds
        return [r for r, k in enumerate(kinds) if k is not None and (r == 0 or kinds[r - 1] != k)]

    def next_change_row(self, row: int) -> int | None:
        """First changed run starting after ``row`` (None when there is none)."""
        starts = self._starts()
        k = bisect_right(starts, row)
        return starts[k] if k < len(starts) else None

    def previous_change_row(self, row: int) -> int | None:
        starts = self._starts()
        k = bisect_right(starts, row - 1)
        return starts[k - 1] if k else None

    def _starts(self) -> list[int]:
        cached = getattr(self, "_change_starts", None)
        if cached is None or cached[0] != len(self.kinds):
            cached = (len(self.kinds), self.change_rows())
            self._change_starts = cached
        return cached[1]

    # -- "differences only" --------------------------------------------------------------

    def differences_only(self, context: int = 3) -> list[int | CollapsedRun]:
        """Rows to show when only differences matter: every changed row and
        ``context`` rows around it, each longer run of equal rows replaced by
        one ``CollapsedRun`` ("… N equal lines")."""
        n = len(self.kinds)
        keep = bytearray(n)
        for r, k in enumerate(self.kinds):
            if k is not None:
                lo, hi = max(0, r - context), min(n, r + context + 1)
                keep[lo:hi] = b"\x01" * (hi - lo)
        out: list[int | CollapsedRun] = []
        r = 0
        while r < n:
            if keep[r]:
                out.append(r)
                r += 1
                continue
            stop = keep.find(b"\x01", r)
            stop = n if stop == -1 else stop
            out.append(CollapsedRun(r, stop))
            r = stop
        return out


def _path_at(blocks: list[_Block], row: int) -> tuple | None:
    lo, hi = 0, len(blocks)
    while lo < hi:  # last block starting at or before row
        mid = (lo + hi) // 2
        if blocks[mid].first_row <= row:
            lo = mid + 1
        else:
            hi = mid
    if lo == 0:
        return None
    blk = blocks[lo - 1]
    offset = row - blk.first_row
    return blk.path_of(offset) if offset < blk.n_lines else None


class _Layout:
    """Builds an AlignedDocument row by row, in document order."""

    def __init__(self, changes: list[Change], indent: int, options: DiffOptions | None = None,
                 as_text: bool = False):
        self.indent = indent
        self.options = options
        self.doc = AlignedDocument(text_mode=as_text)
        self.as_text = as_text
        # The change at exactly a node, by side, and every ancestor of one.
        self.at_left: dict[tuple, Change] = {}
        self.at_right: dict[tuple, Change] = {}
        self.dirty_left: set[tuple] = set()
        self.dirty_right: set[tuple] = set()
        # Nodes with a change that alters the shape of the printed text below
        # them (a line added, removed or moved), by side.
        self.reshaped_left: set[tuple] = set()
        self.reshaped_right: set[tuple] = set()
        # For each node: the changes below it, a run of ``changes`` since the
        # diff reports in depth-first order: [index of the first, count].
        self.changes = changes
        self.below: dict[tuple, list[int]] = {}
        # The members (keys or indexes) of each node that have a change of their own, by
        # side: a big list's elements standing alone are found from these, not by looking
        # every element up.
        self.changed_members_left: dict[tuple, set] = {}
        self.changed_members_right: dict[tuple, set] = {}
        for n, c in enumerate(changes):
            if c.left_path:
                self.changed_members_left.setdefault(c.left_path[:-1], set()).add(c.left_path[-1])
            if c.right_path and c.kind in (ADDED, MOVED):
                self.changed_members_right.setdefault(c.right_path[:-1], set()).add(c.right_path[-1])
            if c.left_path is not None:
                self.at_left.setdefault(c.left_path, c)
                _add_prefixes(self.dirty_left, c.left_path)
                for k in range(len(c.left_path) + 1):
                    run = self.below.setdefault(c.left_path[:k], [n, 0])
                    run[1] += 1
            if c.right_path is not None and c.kind in (ADDED, MOVED):
                self.at_right.setdefault(c.right_path, c)
            if c.right_path is not None:
                _add_prefixes(self.dirty_right, c.right_path)
            if c.kind in (ADDED, REMOVED, MOVED) or type(c.left) in _CONTAINERS or type(c.right) in _CONTAINERS:
                if c.left_path is not None:
                    _add_prefixes(self.reshaped_left, c.left_path)
                if c.right_path is not None:
                    _add_prefixes(self.reshaped_right, c.right_path)
        self.use_dense_blocks = True

    # -- emitting rows -------------------------------------------------------------------

    def rows(self, left: tuple | None, right: tuple | None, kind: str | None) -> None:
        """Emit one side's block beside the other's (either may be None), padded to equal height.

        A side is ``(value, path, depth, before, after)``.
        """
        doc = self.doc
        start = len(doc.kinds)
        if self.as_text:
            self._text_rows(left, right, kind, start)
            return
        n_left = n_right = 0
        if left is not None:
            lines, n_left = self._side(left, doc._left_blocks, start)
            doc.left_lines.extend(lines)
        if right is not None:
            lines, n_right = self._side(right, doc._right_blocks, start)
            doc.right_lines.extend(lines)
        height = max(n_left, n_right)
        if n_left < height:
            doc.left_lines.extend([None] * (height - n_left))
        if n_right < height:
            doc.right_lines.extend([None] * (height - n_right))
        doc.kinds.extend([kind] * height)

    def _text_rows(self, left: tuple | None, right: tuple | None, kind: str | None, start: int) -> None:
        """``rows`` in text mode: each side's block as one chunk of text, no split into lines."""
        doc = self.doc
        n_left = n_right = 0
        if left is not None:
            chunk, n_left = self._side_text(left, doc._left_blocks, start)
            doc.left_chunks.append(chunk)
        if right is not None:
            chunk, n_right = self._side_text(right, doc._right_blocks, start)
            doc.right_chunks.append(chunk)
        height = max(n_left, n_right)
        for n, chunks, fillers in ((n_left, doc.left_chunks, doc.left_fillers),
                                   (n_right, doc.right_chunks, doc.right_fillers)):
            if n < height:
                chunks.append("\n" * (height - n - 1))  # height - n empty lines
                fillers.extend(range(start + n, start + height))
        doc.kinds.extend([kind] * height)
        if kind is not None:
            doc.changed_runs.append((start, start + height, kind))

    def _side_text(self, side: tuple, blocks: list[_Block], start: int) -> tuple[str, int]:
        value, path, depth, before, after = side
        pad = " " * (self.indent * depth)
        if type(value) in _CONTAINERS:
            text = pretty_text(value, self.indent)
            if depth:
                text = text.replace("\n", "\n" + pad)
            n = text.count("\n") + 1
            blocks.append(_Block(start, n, value, path, whole=True))
            return pad + before + text + after, n
        blocks.append(_Block(start, 1, None, path, whole=False))
        return pad + before + scalar_text(value) + after, 1

    def _side(self, side: tuple, blocks: list[_Block], start: int) -> tuple[list[str], int]:
        value, path, depth, before, after = side
        if type(value) in _CONTAINERS:
            lines = block_lines(value, depth, before, after, self.indent)
            blocks.append(_Block(start, len(lines), value, path, whole=True))
        else:
            lines = [" " * (self.indent * depth) + before + scalar_text(value) + after]
            blocks.append(_Block(start, 1, None, path, whole=False))
        return lines, len(lines)

    def line(self, left_text: str, left_path: tuple, right_text: str, right_path: tuple, kind: str | None = None) -> None:
        """One line on both sides: a bracket of a container shown member by member, or a scalar."""
        doc = self.doc
        row = len(doc.kinds)
        doc._left_blocks.append(_Block(row, 1, None, left_path, whole=False))
        doc._right_blocks.append(_Block(row, 1, None, right_path, whole=False))
        if self.as_text:
            doc.left_chunks.append(left_text)
            doc.right_chunks.append(right_text)
            if kind is not None:
                doc.changed_runs.append((row, row + 1, kind))
        else:
            doc.left_lines.append(left_text)
            doc.right_lines.append(right_text)
        doc.kinds.append(kind)

    # -- walking -------------------------------------------------------------------------

    def run(self, left: Any, right: Any, first_rows: int = 0, on_first_rows=None) -> AlignedDocument:
        # Explicit stack: a task is a pair of nodes to lay out, a closing line, or the
        # members of a container still to lay out (an iterator of tasks, drawn one at a
        # time: the first rows of a 10,000-element list cost no more than its first elements).
        stack: list = [("pair", left, right, (), (), 0, "", "", "", "", self.use_dense_blocks)]
        kinds = self.doc.kinds
        while stack:
            if on_first_rows is not None and len(kinds) >= first_rows:
                on_first_rows(self.doc)  # rows are laid out in order: these ones are final
                on_first_rows = None
            task = stack.pop()
            if task[0] == "members":
                member = next(task[1], None)
                if member is not None:
                    stack.append(task)
                    stack.append(member)
                continue
            if task[0] == "close":
                self.line(*task[1:])
                continue
            if task[0] == "rows":
                self.rows(*task[1:])
                continue
            _, a, b, lp, rp, depth, lbefore, rbefore, lafter, rafter, dense_ok = task
            ta, tb = type(a), type(b)
            if ta not in _CONTAINERS and tb not in _CONTAINERS:
                # Two scalars: one row. The common case, so kept short.
                change = self.at_left.get(lp)
                kind = change.kind if change is not None and change.kind in (CHANGED, TYPE_CHANGED) else None
                pad = " " * (self.indent * depth)
                self.line(pad + lbefore + scalar_text(a) + lafter, lp, pad + rbefore + scalar_text(b) + rafter, rp, kind)
                continue
            left_side = (a, lp, depth, lbefore, lafter)
            right_side = (b, rp, depth, rbefore, rafter)
            if lp not in self.dirty_left and rp not in self.dirty_right:
                self.rows(left_side, right_side, None)
                continue
            change = self.at_left.get(lp)
            if change is not None and change.kind in (CHANGED, TYPE_CHANGED):
                self.rows(left_side, right_side, change.kind)
                continue
            if ta is not tb or not a or not b:
                # An empty container facing a non-empty one: its members are
                # all added (or removed); show both whole. Different container
                # types come with a type_changed change and never get here.
                kind = ADDED if not a and ta is tb else REMOVED if not b and ta is tb else CHANGED
                self.rows(left_side, right_side, kind)
                continue
            if dense_ok and lp not in self.reshaped_left and rp not in self.reshaped_right:
                if self._mostly_changed(a, lp):
                    if self._dense_rows(left_side, right_side):
                        continue
                    dense_ok = False  # the texts did not correspond; do not render again below
            opener, closer = ("{", "}") if ta is dict else ("[", "]")
            pad = " " * (self.indent * depth)
            self.line(pad + lbefore + opener, lp, pad + rbefore + opener, rp)
            children = self._object_children(a, b, lp, rp) if ta is dict else self._list_children(a, b, lp, rp)
            stack.append(("close", pad + closer + lafter, lp, pad + closer + rafter, rp))
            stack.append(("members", self._child_tasks(children, a, b, lp, rp, depth + 1, dense_ok)))
        return self.doc

    def _mostly_changed(self, a, lp: tuple) -> bool:
        """Whether at least half of the container's members have changes below them."""
        keys = a if type(a) is dict else range(len(a))
        dirty = self.dirty_left
        return 2 * sum(1 for k in keys if lp + (k,) in dirty) >= len(a)

    def _dense_rows(self, left_side: tuple, right_side: tuple) -> bool:
        """Lay out a container whose changes are all scalar values changed in
        place as two whole blocks, marking the rows that differ; False (and
        nothing emitted) when the two texts do not correspond line by line.

        In such a container every reported change prints as one differing line
        and nothing else moves, so when both texts have the same height and
        exactly as many differing lines as changes, those lines are the changes
        (in order). Anything else (members in another order, values equal only
        under the options) shows up as extra differing lines: then the caller
        lays the container out member by member.
        """
        a, lp, depth, lbefore, lafter = left_side
        b, rp, _, rbefore, rafter = right_side
        if lp not in self.below:
            return False  # changes only on the right side: not a change in place
        first, count = self.below[lp]
        left_lines = block_lines(a, depth, lbefore, lafter, self.indent)
        right_lines = block_lines(b, depth, rbefore, rafter, self.indent)
        if len(left_lines) != len(right_lines):
            return False
        differing = list(compress(count_from(), map(ne, left_lines, right_lines)))
        if len(differing) != count:
            return False
        doc = self.doc
        start = len(doc.kinds)
        doc._left_blocks.append(_Block(start, len(left_lines), a, lp, whole=True))
        doc._right_blocks.append(_Block(start, len(right_lines), b, rp, whole=True))
        kinds: list[str | None] = [None] * len(left_lines)
        for offset, change in zip(differing, self.changes[first : first + count]):
            kinds[offset] = change.kind
        if self.as_text:
            doc.left_chunks.append("\n".join(left_lines))
            doc.right_chunks.append("\n".join(right_lines))
            doc.changed_runs.extend((start + offset, start + offset + 1, kinds[offset]) for offset in differing)
        else:
            doc.left_lines.extend(left_lines)
            doc.right_lines.extend(right_lines)
        doc.kinds.extend(kinds)
        return True

    def _object_children(self, a: dict, b: dict, lp: tuple, rp: tuple) -> Iterator[tuple]:
        """Members in display order: the left's (shared or left-only), then right-only ones."""
        for k in a:
            yield (PAIR, k, k) if k in b else (LEFT_ONLY, k)
        for k in b:
            if k not in a:
                yield (RIGHT_ONLY, k)

    def _list_children(self, a: list, b: list, lp: tuple, rp: tuple) -> Iterator[tuple]:
        """Elements in display order (``merge_order``), produced as they are laid out."""
        if self.options is not None and self.options.has_ignored:
            # Ignored elements leave no trace in the changes: match again.
            match = match_lists(a, b, self.options.list_key_for(lp), self.options.detect_moves)
            return merge_order(len(a), len(b), match.in_order_pairs())
        # Elements reported removed/moved (left) or added/moved (right) stand
        # alone; the others were paired in order by the diff. Found from the
        # changes, so nothing here is proportional to the length of the lists.
        at_left = self.at_left
        gone = {i for i in self.changed_members_left.get(lp, ())
                if type(i) is int and at_left[lp + (i,)].kind in (REMOVED, MOVED)}
        new = {j for j in self.changed_members_right.get(rp, ()) if type(j) is int}
        pairs = zip((i for i in range(len(a)) if i not in gone), (j for j in range(len(b)) if j not in new))
        return merge_order(len(a), len(b), pairs)

    def _child_tasks(self, children: Iterator[tuple], a, b, lp: tuple, rp: tuple, depth: int,
                     dense_ok: bool) -> Iterator[tuple]:
        """The layout task of each member, in display order, one at a time. Every left
        member appears once (paired or alone), and every right one: a member is the last
        of its side (no comma) when it is the len-th."""
        is_object = type(a) is dict
        n_left, n_right = len(a), len(b)
        seen_left = seen_right = 0
        for child in children:
            if child[0] == PAIR:
                seen_left += 1
                seen_right += 1
                ka, kb = child[1], child[2]
                before = scalar_text(ka) + ": " if is_object else ""
                yield (
                    "pair", a[ka], b[kb], lp + (ka,), rp + (kb,), depth, before, before,
                    "," if seen_left < n_left else "", "," if seen_right < n_right else "", dense_ok,
                )
            elif child[0] == LEFT_ONLY:
                seen_left += 1
                k = child[1]
                change = self.at_left.get(lp + (k,))
                before = scalar_text(k) + ": " if is_object else ""
                side = (a[k], lp + (k,), depth, before, "," if seen_left < n_left else "")
                yield ("rows", side, None, change.kind if change else None)
            else:
                seen_right += 1
                k = child[1]
                change = self.at_right.get(rp + (k,))
                before = scalar_text(k) + ": " if is_object else ""
                side = (b[k], rp + (k,), depth, before, "," if seen_right < n_right else "")
                yield ("rows", None, side, change.kind if change else None)


def _add_prefixes(target: set, path: tuple) -> None:
    for n in range(len(path), -1, -1):
        prefix = path[:n]
        if prefix in target:
            return  # its own prefixes are in already
        target.add(prefix)


def align(
    left: Any, right: Any, changes: list[Change], indent: int = 2, options: DiffOptions | None = None,
    first_rows: int = 0, on_first_rows=None, as_text: bool = False,
) -> AlignedDocument:
    """Lay out ``left`` and ``right`` side by side using ``changes`` from
    ``diff(left, right, options)`` (with the same documents).

    Pass the same ``options`` when they ignore paths: an ignored list element
    that was added or removed leaves no change behind, so lists are then
    matched again instead of rebuilt from the changes.

    ``on_first_rows(doc)``, when given, is called once, in the middle of the layout, as
    soon as the document under construction has at least ``first_rows`` rows (never if
    the whole layout is shorter): the rows up to there are final, which lets a viewer
    show the top of a big diff before the rest is laid out. It must not modify ``doc``.

    ``as_text`` lays each side out as chunks of text rather than a string per line
    (see AlignedDocument): the same rows, several times cheaper to build and to hand over.
    """
    return _Layout(changes, indent, options, as_text).run(left, right, first_rows, on_first_rows)
