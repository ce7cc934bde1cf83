"""Big diffs computed and laid out in the helper process; the app gets compact arrays.

Why: diffing and laying out a 5 MB pair allocates hundreds of thousands of Python
objects (parsed values, blocks, paths, tasks). In the app that took the GIL from the
GUI thread for long stretches and needed the collector paused and frozen
(reviewer_ui.runtime.gcpolicy) and a 1 ms switch interval (threadpolicy) to keep the
window responsive. In the helper process (reviewer_ui.runtime.parsepool) none of it
touches the app's interpreter.

What crosses the process boundary, for a pair of N rows:
- in: both values as compact JSON bytes (``orjson.dumps``, one short C call each);
- out, first rows (``begin``): the text of the first FIRST_ROWS rows and their fillers
  and changed runs, so the view shows the top while the rest is laid out;
- out, whole (``finish``): each pane's text in a temporary file the app maps read-only
  with its block index (reviewer_ui.textdoc.ByteLines), the filler rows and the changed
  runs as C arrays (rows start, stop, kind code), the changes, the row of each change,
  the character spans of long changed strings, and the "differences only" rows. Nothing
  per line: roles, line numbers and lines are looked up from those arrays when painted.
- the JSON path of a clicked row (``path_at``), asked by the quick lane: the helper keeps
  the last KEEP_ALIGNED layouts' path blocks.

App side: ``diff_in_helper`` (a job on a worker thread) returns a reviewer_ui.diffdoc.DiffResult.
"""

from __future__ import annotations

import gc
import os
import tempfile
import threading
from array import array
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from reviewer.jsondiff import CollapsedRun, DiffOptions, align, diff

KEEP_ALIGNED = 3  # layouts whose row paths the helper keeps (each holds both parsed values)
FIRST_ROWS = 2000  # as reviewer_ui.diffdoc.FIRST_ROWS (not imported: the helper need not load Qt-free UI bits)
DIFFS_ONLY_CONTEXT = 3
ROLES = ("added", "removed", "changed", "moved")  # the roles of changed rows (diffdoc.ROLE_OF_KIND)

_lock = threading.Lock()
_jobs: dict[str, _HelperJob] = {}
_kept: OrderedDict[str, Any] = OrderedDict()  # key -> AlignedDocument (chunks emptied)
_running = 0  # layouts running in the helper (the collector is off while any does)


class _HelperJob:
    """A layout running on a thread of the helper; ``first`` is set at its first rows or its end."""

    def __init__(self):
        self.first = threading.Event()
        self.done = threading.Event()
        self.partial: tuple | None = None
        self.outcome: tuple | None = None  # (changes, aligned) once laid out
        self.error: BaseException | None = None
        self.thread: threading.Thread | None = None


# -- helper side ----------------------------------------------------------------------


def _collector_off() -> None:
    # The helper's own business: its collector would walk the million objects of the parsed
    # values again and again while they are being made (it slowed the layout, not the GUI).
    global _running
    with _lock:
        _running += 1
        gc.disable()


def _collector_on() -> None:
    global _running
    with _lock:
        _running -= 1
        if _running == 0:
            gc.enable()


def begin(key: str, left_data: bytes, right_data: bytes, options: DiffOptions | None) -> tuple:
    """Helper side: parse, diff and start laying out a pair; return at the first rows.

    Returns ``("partial", changes, partial_rows)`` (the layout goes on in the helper; the
    app asks ``finish(key)`` for the rest), ``("whole", changes, None)`` when the layout
    finished before FIRST_ROWS rows, or raises what the diff raised."""
    import orjson

    job = _HelperJob()
    _collector_off()
    try:
        left, right = orjson.loads(left_data), orjson.loads(right_data)
        del left_data, right_data
        changes = diff(left, right, options or DiffOptions())
    except BaseException:
        _collector_on()
        raise

    def first_rows(doc) -> None:
        n = len(doc.kinds)
        job.partial = (n, "\n".join(doc.left_chunks), "\n".join(doc.right_chunks),
                       doc.left_fillers[:], doc.right_fillers[:], doc.changed_runs[:])
        job.first.set()

    def run() -> None:
        try:
            aligned = align(left, right, changes, first_rows=FIRST_ROWS, on_first_rows=first_rows,
                            options=options, as_text=True)
            job.outcome = (changes, aligned)
        except BaseException as exc:  # noqa: BLE001 - raised again by ``finish``
            job.error = exc
        finally:
            _collector_on()
            job.first.set()
            job.done.set()

    with _lock:
        _jobs[key] = job
    job.thread = threading.Thread(target=run, name="diff-layout", daemon=True)
    job.thread.start()
    job.first.wait()
    if job.partial is None:
        return "whole", changes, None
    return "partial", changes, job.partial


def _pop_job(key: str) -> _HelperJob:
    with _lock:
        job = _jobs.pop(key, None)
    if job is None:
        raise KeyError(f"no diff layout under {key!r}")
    job.done.wait()
    return job


def finish(key: str, with_changes: bool) -> tuple:
    """Helper side: wait for the layout started by ``begin`` and hand it over compactly
    (see the module docstring). The panes' texts go to files the app maps and deletes."""
    from reviewer_ui.diffdoc import lay_out
    from reviewer_ui.textdoc import _BlockLines, block_index

    job = _pop_job(key)
    if job.error is not None:
        raise job.error
    changes, aligned = job.outcome
    ldoc, rdoc, rows = lay_out(changes, aligned)
    n = len(aligned.kinds)
    panes = []
    for doc in (ldoc, rdoc):
        data = doc.lines.text.encode("utf-8", "surrogatepass")
        fd, path = tempfile.mkstemp(prefix="reviewer-diff-", suffix=".json")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        panes.append((path, *block_index(data, _BlockLines.BLOCK), doc.spans, role_runs(doc.roles)))
    entries = aligned.differences_only(DIFFS_ONLY_CONTEXT)
    shown = array("q", (-1 if isinstance(e, CollapsedRun) else e for e in entries))
    labels = [e.label for e in entries if isinstance(e, CollapsedRun)]
    with _lock:
        _kept[key] = aligned
        while len(_kept) > KEEP_ALIGNED:
            _kept.popitem(last=False)
    return {
        "n": n, "left": panes[0], "right": panes[1],
        "changes": changes if with_changes else None, "change_rows": rows,
        "shown_rows": shown, "fold_labels": labels, "max_len": ldoc.max_len,
    }


def discard(key: str) -> None:
    """Helper side: a layout nobody waits for any more (the app cancelled it)."""
    try:
        _pop_job(key)
    except KeyError:
        pass


def path_at(key: str, side: str, row: int) -> tuple | None:
    """Helper side (quick lane): the JSON path of a row of a kept layout; None on a
    filler, or when the layout is no longer kept."""
    with _lock:
        aligned = _kept.get(key)
    if aligned is None:
        return None
    return aligned.left_path(row) if side == "left" else aligned.right_path(row)


# -- app side ---------------------------------------------------------------------------


class RunRoles(Mapping):
    """Row -> background role of one pane from C arrays: its filler rows, then runs of rows
    sharing a role (first row, row after the last, role code in ROLES), sorted and disjoint.
    No entry per row: a diff where everything changed costs the app a few arrays, not a
    dict of 400k rows."""

    def __init__(self, fillers: array, starts: array, stops: array, codes: bytes):
        self._fillers, self._starts, self._stops, self._codes = fillers, starts, stops, codes

    def get(self, row, default=None):
        k = bisect_right(self._fillers, row)
        if k and self._fillers[k - 1] == row:
            return "filler"
        k = bisect_right(self._starts, row)
        if k and row < self._stops[k - 1]:
            return ROLES[self._codes[k - 1]]
        return default

    def __getitem__(self, row):
        role = self.get(row)
        if role is None:
            raise KeyError(row)
        return role

    def __contains__(self, row) -> bool:
        return self.get(row) is not None

    def __iter__(self):
        rows = list(self._fillers)
        for start, stop in zip(self._starts, self._stops):
            rows.extend(range(start, stop))
        return iter(sorted(rows))

    def __len__(self) -> int:
        return len(self._fillers) + sum(b - a for a, b in zip(self._starts, self._stops))


def role_runs(roles: dict[int, str]) -> tuple[array, array, array, bytes]:
    """Helper side: a pane's role dict (reviewer_ui.diffdoc._side) as RunRoles' arrays."""
    fillers = array("q", sorted(r for r, role in roles.items() if role == "filler"))
    starts, stops, codes = array("q"), array("q"), bytearray()
    for row in sorted(r for r, role in roles.items() if role != "filler"):
        code = ROLES.index(roles[row])
        if codes and stops[-1] == row and codes[-1] == code:
            stops[-1] = row + 1
        else:
            starts.append(row)
            stops.append(row + 1)
            codes.append(code)
    return fillers, starts, stops, bytes(codes)


class RemoteAlignment:
    """Stands for the AlignedDocument kept in the helper: row paths through the quick lane,
    "differences only" from the rows the helper sent."""

    PATH_TIMEOUT_S = 2.0

    def __init__(self, key: str, n: int, shown_rows: array, fold_labels: list[str]):
        self.key, self.n = key, n
        self._shown, self._labels = shown_rows, fold_labels

    def __len__(self) -> int:
        return self.n

    def left_path(self, row: int) -> tuple | None:
        return self._path("left", row)

    def right_path(self, row: int) -> tuple | None:
        return self._path("right", row)

    def _path(self, side: str, row: int) -> tuple | None:
        from reviewer_ui.runtime import parsepool

        return parsepool.quick(path_at, self.key, side, row).result(self.PATH_TIMEOUT_S)

    def differences_only(self, context: int = DIFFS_ONLY_CONTEXT) -> list[int | CollapsedRun]:
        if context != DIFFS_ONLY_CONTEXT:
            raise ValueError(f"the helper folded with context {DIFFS_ONLY_CONTEXT}")
        labels = iter(self._labels)
        return [_Fold(next(labels)) if r < 0 else r for r in self._shown]


class _Fold(CollapsedRun):
    """A fold as the helper labelled it (its rows are not needed in the app)."""

    def __init__(self, label: str):
        super().__init__(0, 0)
        self._label = label

    @property
    def label(self) -> str:
        return self._label


def diff_in_helper(ctx, left_data: bytes, right_data: bytes, options, on_partial):
    """App side (a job on a worker): the DiffResult of a pair diffed and laid out in the helper."""
    from reviewer_ui.diffdoc import DiffResult, LineNumbers, _side
    from reviewer_ui.runtime import parsepool
    from reviewer_ui.textdoc import _mapped_document
    from reviewer_ui.treeindex import new_key

    key = new_key()
    stage, changes, partial = parsepool.run(begin, key, left_data, right_data, options)
    del left_data, right_data
    try:
        if ctx is not None:
            ctx.check_cancelled()
        if partial is not None and on_partial is not None:
            n, ltext, rtext, lfill, rfill, runs = partial
            ldoc, rdoc = _side([ltext], lfill, runs, n), _side([rtext], rfill, runs, n)
            ldoc.max_len = rdoc.max_len = max(ldoc.max_len, rdoc.max_len)
            on_partial(DiffResult(changes, None, ldoc, rdoc, [None] * len(changes), complete=False))
    except BaseException:
        parsepool.submit(discard, key)
        raise
    whole = parsepool.run(finish, key, False)
    n = whole["n"]
    docs = []
    for side in ("left", "right"):
        path, starts, firsts, count, spans, runs = whole[side]
        doc = _mapped_document(path, starts, firsts, count)
        fillers = runs[0]
        doc.roles = RunRoles(*runs)
        doc.spans = spans
        doc.numbers = LineNumbers(n, fillers)
        docs.append(doc)
    docs[0].max_len = docs[1].max_len = max(docs[0].max_len, docs[1].max_len)
    aligned = RemoteAlignment(key, n, whole["shown_rows"], whole["fold_labels"])
    return DiffResult(changes, aligned, docs[0], docs[1], whole["change_rows"])
