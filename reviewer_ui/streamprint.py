"""Pretty-print a huge JSON text a piece at a time, never holding its parsed value (Qt-free).

Parsed whole, a 91.5 MB response took 775 MB in the helper process: Python objects
cost 7-8 times the text. Here the text is cut at the commas between the members of
its big containers (reviewer_ui.jsonspans), and consecutive members are parsed and
printed about PIECE bytes at a time, so that the helper holds the text, one piece's
objects and a write buffer. The output is byte for byte what
``orjson.dumps(orjson.loads(text), option=OPT_INDENT_2)`` makes (the tests compare
them); wherever it could not be (duplicate keys, which one parse merges; numbers orjson
does not read; anything that is not JSON), ``pretty_stream`` raises NotSplittable or
ValueError and the caller parses the text whole as before, which also names the problem.
"""

from __future__ import annotations

import os
from array import array
from typing import Callable

import numpy as np
import orjson

from reviewer_ui.jsonspans import NotSplittable, as_array, child_bounds, member, member_bounds, root_span, skip_space
from reviewer_ui.textdoc import _indented, stoppable  # (loaded in the helper anyway: it prints the rest)

PIECE = 128 << 10  # bytes of text parsed at a time (about ten times that in objects, briefly)
MAX_SPLIT_DEPTH = 64  # deeper than this, a big value is parsed whole (or the caller falls back)
_FLUSH = 512 << 10  # output bytes gathered before a write (smaller pieces ran no slower: 0.77 s for 45 MB)
_CLOSER = {ord("{"): b"}", ord("["): b"]"}


class Stopped(Exception):
    """``stop`` said to stop (the app no longer shows the text)."""


class BlockIndexWriter:
    """Writes pieces of text to a file and indexes its lines on the way, as
    ``textdoc.block_index`` does for a whole text: the same (block starts, first line of
    each block, line count), without holding the text."""

    def __init__(self, f, block: int):
        self.f, self.block = f, block
        self.starts, self.firsts = array("q", [0]), array("q", [0])
        self._pending: list[bytes] = []
        self._pending_size = 0
        self._offset = 0  # bytes written so far
        self._lines_before = 0  # newlines in what was written before the current block start
        self._block_start = 0
        self._counted_to = 0  # newlines are counted up to here (from the current block start)

    def put(self, piece: bytes) -> None:
        self._pending.append(piece)
        self._pending_size += len(piece)
        if self._pending_size >= _FLUSH:
            self._flush()

    def _flush(self) -> None:
        data = b"".join(self._pending)
        self._pending.clear()
        self._pending_size = 0
        base = self._offset
        while True:
            want = self._block_start + self.block  # the next block starts after the first newline from here
            cut = data.find(b"\n", max(want - base, 0))
            if cut == -1:
                break
            self._lines_before += data.count(b"\n", max(self._counted_to - base, 0), cut + 1)
            self._block_start = self._counted_to = base + cut + 1
            self.starts.append(self._block_start)
            self.firsts.append(self._lines_before)
        self._lines_before += data.count(b"\n", max(self._counted_to - base, 0))
        self._counted_to = base + len(data)
        self.f.write(data)
        self._offset += len(data)

    def finish(self) -> tuple[array, array, int]:
        """Write what is left; (block starts, first lines, line count)."""
        self._flush()
        return self.starts, self.firsts, self._lines_before + 1


def pretty_stream(data, put: Callable[[bytes], object], piece: int | None = None) -> None:
    """Hand the pretty-printed JSON ``data`` (bytes or an mmap) to ``put`` in pieces (see
    the module's docstring). Raises NotSplittable or ValueError (orjson.JSONDecodeError)
    where one whole parse would differ or fail; ``put`` may have received pieces by then."""
    buf = as_array(data)
    start, end = root_span(buf)
    _print_value(data, buf, start, end, 0, put, piece or PIECE)


def _print_value(data, buf, start: int, end: int, depth: int, put, piece: int, bounds=None) -> None:
    """Print the value ``data[start:end]`` at ``depth``; ``bounds``: the offsets around its
    members (jsonspans.bounds_of) if its parent's scan found them, else it scans for them."""
    opener = int(buf[start])
    if end - start <= piece or opener not in _CLOSER or depth >= MAX_SPLIT_DEPTH:
        put(_indented(orjson.dumps(orjson.loads(memoryview(data)[start:end]), option=orjson.OPT_INDENT_2), depth))
        return
    if data[end - 1 : end] != _CLOSER[opener]:
        raise NotSplittable("a container does not end with its closing bracket")
    below = None
    if bounds is None:
        bounds, below = member_bounds(buf, start, end - 1)
    inside = skip_space(buf, start + 1, end - 1)
    if inside == end - 1:  # only whitespace between the brackets
        put(bytes([opener]) + _CLOSER[opener])
        return
    # Member i spans bounds[i] + 1 .. bounds[i + 1] (a comma or a bracket at each bound).
    is_object = opener == ord("{")
    keys = _KeyHashes()
    pad = b"  " * depth
    put(bytes([opener]) + b"\n")
    first, count = 0, len(bounds) - 1
    while first < count:
        # The members that fit in one piece from ``first`` (at least one).
        # (The value in the offsets' own type: another type would copy them for each call.)
        reach = bounds.dtype.type(min(int(bounds[first]) + piece, int(bounds[-1])))
        last = int(np.searchsorted(bounds, reach, side="right")) - 1
        if first:
            put(b",\n")
        if last <= first + 1 and bounds[first + 1] - bounds[first] > piece:  # one big member
            key, member_start, member_end = member(data, buf, bounds, first, is_object)
            put(pad + b"  ")
            if is_object:
                keys.add([key])
                put(orjson.dumps(key) + b": ")
            inner = None if below is None else child_bounds(below, member_start, member_end)
            _print_value(data, buf, member_start, member_end, depth + 1, put, piece, inner)
            first += 1
            continue
        last = max(last, first + 1)
        text = bytes([opener]) + bytes(memoryview(data)[int(bounds[first]) + 1 : int(bounds[last])]) + _CLOSER[opener]
        value = orjson.loads(text)
        if len(value) != last - first:  # an empty member ("[1,]") or a key twice in the piece
            raise NotSplittable("a member is empty or a key comes twice")
        if is_object:
            keys.add(value)
        printed = orjson.dumps(value, option=orjson.OPT_INDENT_2)
        del value
        put(pad + _indented(printed[2:-2], depth))  # without the brackets' lines: "{\n" ... "\n}"
        first = last
    if is_object:
        keys.check()
    put(b"\n" + pad + _CLOSER[opener])


class _KeyHashes:
    """The keys of an object printed in pieces, as 8-byte hashes: a key in two pieces would
    be printed twice where one parse keeps one (the object's keys as strings took 12 times
    the text of an object of two million short keys). A hash collision only sends the text
    to the whole parse."""

    def __init__(self):
        self._parts: list[np.ndarray] = []

    def add(self, keys) -> None:
        self._parts.append(np.fromiter(map(hash, keys), dtype=np.int64, count=len(keys)))

    def check(self) -> None:
        """Raises NotSplittable if a key came twice (within a piece the caller checks)."""
        if len(self._parts) > 1:
            hashes = np.concatenate(self._parts)
            if np.unique(hashes).size != hashes.size:
                raise NotSplittable("an object has a key twice")


def pretty_file_streamed(data, out_path: str, block: int, stop: Callable[[], bool] | None = None) -> tuple:
    """Pretty-print ``data`` into ``out_path`` (created) and index its lines:
    (block starts, first lines, line count). On any error the file is removed and the
    error raised (NotSplittable, ValueError, or Stopped when ``stop``, asked before each
    piece, says True)."""
    try:
        with open(out_path, "wb") as f:
            writer = BlockIndexWriter(f, block)
            pretty_stream(data, stoppable(writer.put, stop, Stopped))
            return writer.finish()
    except BaseException:
        os.unlink(out_path)
        raise
