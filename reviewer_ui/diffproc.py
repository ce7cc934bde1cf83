"""Big diffs computed and laid out in the helper process; the app gets compact arrays.

Why: diffing and laying out a 5 MB pair allocates hundreds of thousands of Python
objects (parsed values, blocks, paths, tasks). In the app that took the GIL from the
GUI thread for long stretches and needed the collector paused and frozen
(reviewer_ui.runtime.gcpolicy) and a 1 ms GIL switch interval to keep the window
responsive (both since removed from the app: measured unnecessary once this moved out). In the helper process (reviewer_ui.runtime.parsepool) none of it
touches the app's interpreter.

What crosses the process boundary, for a pair of N rows:
- in: both values as compact JSON in two files the helper reads and deletes (written in
  pieces, reviewer_ui.diffdoc._compact_pair: pickling 10 MB of bytes and pushing them through
  the helper's pipe 64 KB at a time kept the GIL changing hands between the GUI and the pool's
  feeder thread, the likeliest cause of the 60-195 ms diff stalls seen under load), and the
  changes the app found (the first screen does not wait for the helper: the app diffs the
  values it already holds and lays out only the first FIRST_ROWS rows, then hands the pair over);
- out (``lay_out_loaded``, or ``lay_out_pair`` when nothing is shown early): each pane's
  text in a temporary file the app maps read-only with its block index
  (reviewer_ui.textdoc.ByteLines), the filler rows and the runs of changed rows as C arrays
  (RunRoles: first row, row after the last, role code), the row of each change and the
  character spans of long changed strings. Nothing per line: roles, line numbers and lines
  are looked up from those arrays when painted;
- on demand, by the quick lane: the JSON path of a clicked row (``path_at``) and the rows
  "differences only" shows (``folded_rows``); the helper keeps the last KEEP_ALIGNED layouts.

App side: ``diff_in_helper`` (a job on a worker thread) returns a reviewer_ui.diffdoc.DiffResult.
Known gap: a pair whose differences are laid out as one dense block (no first rows) costs the
app that whole layout before it is dropped for the helper's.
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

KEEP_ALIGNED = 2  # layouts whose row paths the helper keeps (each holds both parsed values: ~40 MB for a 5 MB pair)
DIFFS_ONLY_CONTEXT = 3
ROLES = ("added", "removed", "changed", "moved")  # the roles of changed rows (diffdoc.ROLE_OF_KIND)

_lock = threading.Lock()
_kept: OrderedDict[str, Any] = OrderedDict()  # key -> AlignedDocument (chunks emptied)
_running = 0  # layouts running in the helper (the collector is off while any does)


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


_loaded: dict[str, tuple] = {}  # key -> (left, right) parsed by ``load_pair``, waiting for ``lay_out_loaded``


def load_pair(key: str, left_path: str, right_path: str) -> None:
    """Helper side: parse a pair (compact JSON texts in files the app wrote, ``hand_over``;
    deleted here) and keep it for ``lay_out_loaded``, which the app queues right behind this
    call once it has diffed the pair itself."""
    import orjson

    _collector_off()
    try:
        _loaded[key] = tuple(orjson.loads(_take_file(path)) for path in (left_path, right_path))
    except BaseException:
        _collector_on()
        raise


def _take_file(path: str) -> bytes:
    """Helper side: the contents of a file the app handed over, deleted once read."""
    try:
        with open(path, "rb") as f:
            return f.read()
    finally:
        os.unlink(path)


def hand_over(parts: list[bytes], prefix: str = "reviewer-pair-") -> str:
    """A file (in shared memory when the system has it) holding ``parts`` joined, for the
    other process to read and delete: the app's pair for the helper, the helper's panes for
    the app. Each write releases the GIL; nothing is pickled; a failed write leaves no file."""
    fd, path = tempfile.mkstemp(prefix=prefix, suffix=".json", dir=_memory_dir())
    try:
        with os.fdopen(fd, "wb") as f:
            f.writelines(parts)
    except BaseException:
        os.unlink(path)
        raise
    return path


def lay_out_loaded(key: str, changes: list, options: DiffOptions | None) -> dict:
    """Helper side: lay out the pair ``load_pair`` parsed, with the changes the app found (the
    diff is deterministic: the same values give the same changes), see ``lay_out_pair``."""
    left, right = _loaded.pop(key)
    try:
        whole = _lay_out(key, left, right, changes, options)
    finally:
        del left, right
        _collector_on()
    whole["changes"] = None  # the app has them
    return whole


def drop_loaded(key: str) -> None:
    """Helper side: a pair ``load_pair`` parsed that will not be laid out (the app's diff failed
    or was cancelled)."""
    if _loaded.pop(key, None) is not None:
        _collector_on()


def lay_out_pair(key: str, left_path: str, right_path: str, options: DiffOptions | None) -> dict:
    """Helper side: parse (as ``load_pair``), diff and lay out a pair, and hand it over
    compactly with its changes (see the module docstring)."""
    load_pair(key, left_path, right_path)
    left, right = _loaded.pop(key)
    try:
        whole = _lay_out(key, left, right, diff(left, right, options or DiffOptions()), options)
    finally:
        del left, right
        _collector_on()
    return whole


def _lay_out(key: str, left: Any, right: Any, changes: list, options: DiffOptions | None) -> dict:
    """The panes' texts go to files the app maps and deletes; the layout's row paths stay
    here under ``key`` (``path_at``)."""
    from reviewer_ui.diffdoc import lay_out
    from reviewer_ui.textdoc import _BlockLines, block_index

    aligned = align(left, right, changes, options=options, as_text=True)
    ldoc, rdoc, rows = lay_out(changes, aligned)
    panes = []
    for doc in (ldoc, rdoc):
        data = doc.lines.text.encode("utf-8", "surrogatepass")
        path = hand_over([data], prefix="reviewer-diff-")
        panes.append((path, *block_index(data, _BlockLines.BLOCK), doc.spans, role_runs(doc.roles)))
    with _lock:
        _kept[key] = aligned
        evicted = [_kept.popitem(last=False)[1] for _ in range(len(_kept) - KEEP_ALIGNED)]
    if evicted:
        # Freeing an old layout (two parsed values: a million objects) takes ~100 ms: on a
        # thread, after this answer is on its way, not in front of it.
        threading.Thread(target=evicted.clear, name="diff-evict", daemon=True).start()
        del evicted
    return {
        "n": len(aligned.kinds), "left": panes[0], "right": panes[1],
        "changes": changes, "change_rows": rows,
    }


def _memory_dir() -> str | None:
    """Where the panes' files go: shared memory when the system has it (they are mapped at once
    and deleted; no reason to write them to a disk), else the temporary folder."""
    return "/dev/shm" if os.access("/dev/shm", os.W_OK) else None


def _unlink_panes(whole: dict) -> None:
    """App side: the files of a layout nobody will show (its diff was cancelled)."""
    _unlink([whole[side][0] for side in ("left", "right")])


def _unlink(paths: list[str]) -> None:
    for path in paths:
        try:
            os.unlink(path)
        except OSError:
            pass


def folded_rows(key: str) -> tuple[array, list[str]] | None:
    """Helper side (quick lane): the rows "differences only" shows of a kept layout (-1 for a
    fold) and the folds' labels, or None when the layout is no longer kept. Asked when the
    user turns the mode on: the walk over every row is not paid before the diff shows."""
    with _lock:
        aligned = _kept.get(key)
    if aligned is None:
        return None
    entries = aligned.differences_only(DIFFS_ONLY_CONTEXT)
    shown = array("q", (-1 if isinstance(e, CollapsedRun) else e for e in entries))
    return shown, [e.label for e in entries if isinstance(e, CollapsedRun)]


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
    """Stands for the AlignedDocument kept in the helper: row paths and "differences only"
    asked through the quick lane."""

    LANE_TIMEOUT_S = 5.0

    def __init__(self, key: str, n: int):
        self.key, self.n = key, n

    def __len__(self) -> int:
        return self.n

    def left_path(self, row: int) -> tuple | None:
        return self._path("left", row)

    def right_path(self, row: int) -> tuple | None:
        return self._path("right", row)

    def _path(self, side: str, row: int) -> tuple | None:
        from reviewer_ui.runtime import parsepool

        return parsepool.quick(path_at, self.key, side, row).result(self.LANE_TIMEOUT_S)

    def differences_only(self, context: int = DIFFS_ONLY_CONTEXT) -> list[int | CollapsedRun]:
        """As AlignedDocument.differences_only, folded in the helper. A layout the helper no
        longer keeps (KEEP_ALIGNED newer diffs since) is shown unfolded."""
        from reviewer_ui.runtime import parsepool

        if context != DIFFS_ONLY_CONTEXT:
            raise ValueError(f"the helper folds with context {DIFFS_ONLY_CONTEXT}")
        folded = parsepool.quick(folded_rows, self.key).result(self.LANE_TIMEOUT_S)
        if folded is None:
            return list(range(self.n))
        shown, labels = folded
        labels = iter(labels)
        return [_Fold(next(labels)) if r < 0 else r for r in shown]


class _Fold(CollapsedRun):
    """A fold as the helper labelled it (its rows are not needed in the app)."""

    def __init__(self, label: str):
        super().__init__(0, 0)
        self._label = label

    @property
    def label(self) -> str:
        return self._label


class _EnoughRows(Exception):
    """Stops the app's own layout once the first rows are handed over."""


def diff_in_helper(ctx, left: Any, right: Any, pair: tuple[list[bytes], list[bytes]], options, on_partial):
    """App side (a job on a worker): the DiffResult of a pair laid out in the helper.
    ``pair``: both values as compact JSON pieces (reviewer_ui.diffdoc._compact_pair).

    With ``on_partial``, the worker first diffs the pair itself and lays out only its first
    FIRST_ROWS rows, handed to ``on_partial``; then the helper parses the pair and lays out
    the whole with those changes: the first screen does not wait for the helper to parse
    both texts (about 90 ms for a 5 MB pair). The app's share is the diff walk and a few
    thousand rows; the objects of the whole layout are only ever made in the helper."""
    from concurrent.futures import TimeoutError as FutureTimeout

    from reviewer_ui.diffdoc import FIRST_ROWS, DiffResult, LineNumbers, _partial
    from reviewer_ui.runtime import parsepool
    from reviewer_ui.textdoc import _mapped_document
    from reviewer_ui.treeindex import new_key

    key = new_key()
    paths: list[str] = []
    if on_partial is None:  # nothing to show early: the helper does it all
        paths = [hand_over(parts) for parts in pair]
        whole_future = parsepool.submit(lay_out_pair, key, *paths, options)
    changes = None
    laying_out = on_partial is None
    try:
        if on_partial is not None:
            changes = diff(left, right, options or DiffOptions(), ctx)

            def first_rows(doc) -> None:
                on_partial(_partial(changes, doc, wait=False))
                raise _EnoughRows

            try:
                # A pair laid out in fewer rows, or as one dense block (every member changed),
                # gets no first rows: this layout is then dropped and the helper's shown.
                align(left, right, changes, first_rows=FIRST_ROWS, on_first_rows=first_rows, options=options,
                      as_text=True)
            except _EnoughRows:
                pass
            # Handed over only now: the helper parsing meanwhile took the CPU the first rows
            # needed (2 cores, shared): first screen 131-145 ms that way, 88-107 ms this way,
            # the whole layout no later (355-363 against 357-387 ms; bench/viewer_bench.py).
            paths = [hand_over(parts) for parts in pair]
            parsepool.submit(load_pair, key, *paths)
            whole_future = parsepool.submit(lay_out_loaded, key, changes, options)  # right behind it, in order
            laying_out = True
        del pair
        while True:
            if ctx is not None:
                ctx.check_cancelled()
            try:
                whole = whole_future.result(timeout=0.05)
                break
            except FutureTimeout:
                continue
    except BaseException:
        # Nobody will show it: the helper's files go as soon as it is done, or it never starts
        # and the helper lets go of the parsed pair.
        if laying_out and not whole_future.cancel():
            whole_future.add_done_callback(lambda f: f.exception() is None and _unlink_panes(f.result()))
        elif laying_out and on_partial is not None:  # parsed (or about to be), never laid out
            parsepool.submit(drop_loaded, key)
        elif laying_out:  # lay_out_pair never started: the files handed over are still there
            _unlink(paths)
        raise
    if changes is None:
        changes = whole["changes"]
    n = whole["n"]
    docs = []
    for side in ("left", "right"):
        path, starts, firsts, count, spans, runs = whole[side]
        doc = _mapped_document(path, starts, firsts, count)
        doc.roles = RunRoles(*runs)
        doc.spans = spans
        doc.numbers = LineNumbers(n, runs[0])
        docs.append(doc)
    docs[0].max_len = docs[1].max_len = max(docs[0].max_len, docs[1].max_len)
    aligned = RemoteAlignment(key, n)
    return DiffResult(changes, aligned, docs[0], docs[1], whole["change_rows"])
