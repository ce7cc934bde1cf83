"""Where the members of a JSON container begin and end, found without parsing it (Qt-free).

A huge response parsed whole becomes Python objects taking 7-8 times its text (775 MB
for a 91.5 MB file). To print such a text, the helper process instead cuts it at the
commas between a container's members, found by numpy a chunk at a time at C speed, and
parses one small piece at a time (reviewer_ui.streamprint).

Contract: the text is taken to be JSON. Where it is not, what these functions find is
unspecified but bounded (an index into the text, or NotSplittable): callers parse every
piece with a real parser and fall back to one whole parse on any error, which then
names the problem.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import orjson

CHUNK = 256 << 10  # bytes scanned per numpy pass (a few temporary arrays of this length)

_QUOTE, _BACKSLASH, _COMMA = ord('"'), ord("\\"), ord(",")
_OPEN_ARRAY, _OPEN_OBJECT, _CLOSE_ARRAY, _CLOSE_OBJECT = b"[{]}"
_CLOSING = {_OPEN_ARRAY: _CLOSE_ARRAY, _OPEN_OBJECT: _CLOSE_OBJECT}
_WHITESPACE = np.zeros(256, dtype=bool)
_WHITESPACE[list(b" \t\n\r")] = True
# Possessive repeats: a 20 MB key takes 0.17 s and no memory (an alternation per character
# took 9 s and 2.2 GB).
_KEY = re.compile(rb'[ \t\n\r]*("[^"\\]*+(?:\\.[^"\\]*+)*+")[ \t\n\r]*:[ \t\n\r]*', re.DOTALL)


class NotSplittable(ValueError):
    """The text is not laid out as JSON where the scanner looked (unbalanced brackets,
    an unterminated string): the caller parses it whole instead."""


def as_array(data) -> np.ndarray:
    """The bytes of ``data`` (bytes, bytearray, mmap) as a uint8 array, without copying."""
    return np.frombuffer(data, dtype=np.uint8)


def root_span(buf: np.ndarray) -> tuple[int, int]:
    """Where the text's top value starts and ends, whitespace trimmed. Raises NotSplittable
    unless it is an object or an array that ends with its closing bracket."""
    start = skip_space(buf, 0, buf.size)
    end = trim_space(buf, start, buf.size)
    if start == end or _CLOSING.get(int(buf[start])) != int(buf[end - 1]):
        raise NotSplittable("the text is not an object or an array")
    return start, end


def member_bounds(buf: np.ndarray, open_at: int, close_at: int) -> tuple[np.ndarray, np.ndarray]:
    """For the container whose brackets are at ``open_at`` and ``close_at``: the offsets
    around its members (``bounds_of``: its brackets and the commas between its members,
    outside strings and nested containers), and, found in the same pass, the commas one
    level down (between the members of its members that are containers), in order.
    Raises NotSplittable if its inside ends within a string or with brackets unbalanced."""
    start, end = open_at + 1, close_at
    own: list[np.ndarray] = []
    below: list[np.ndarray] = []
    offset = offset_type(buf)
    in_string = False
    depth = 0
    carried_backslashes = 0  # the run of backslashes that ended the previous chunk
    for chunk_start in range(start, end, CHUNK):
        chunk = buf[chunk_start : min(chunk_start + CHUNK, end)]
        quotes = np.flatnonzero(chunk == _QUOTE)
        backslash = chunk == _BACKSLASH
        if carried_backslashes or backslash.any():
            quotes, carried_backslashes = _unescaped(backslash, quotes, carried_backslashes)
        # Six comparisons are three times faster than a 256-entry lookup table here.
        opening = (chunk == _OPEN_ARRAY) | (chunk == _OPEN_OBJECT)
        closing = (chunk == _CLOSE_ARRAY) | (chunk == _CLOSE_OBJECT)
        structural = np.flatnonzero(opening | closing | (chunk == _COMMA))
        if structural.size:
            quotes_before = np.searchsorted(quotes, structural)
            structural = structural[((quotes_before + in_string) & 1) == 0]  # outside strings
        if structural.size:
            step = opening[structural].astype(np.int64) - closing[structural]
            after = np.cumsum(step) + depth
            before = after - step
            if int(after.min()) < 0:
                raise NotSplittable("a closing bracket with no opening one")
            comma = step == 0
            own.append((structural[comma & (before == 0)] + chunk_start).astype(offset))
            below.append((structural[comma & (before == 1)] + chunk_start).astype(offset))
            depth = int(after[-1])
        in_string ^= bool(quotes.size & 1)
    if in_string:
        raise NotSplittable("a string is not closed")
    if depth:
        raise NotSplittable("a bracket is not closed")
    return _joined(own, offset, open_at, close_at), _joined(below, offset)


def _joined(parts: list[np.ndarray], offset, first: int | None = None, last: int | None = None) -> np.ndarray:
    """The parts end to end (between ``first`` and ``last`` if given), each let go of once
    copied: an array of ten million members has ten million commas, and the parts and
    the whole at once took twice their memory."""
    ends = 0 if first is None else 1
    out = np.empty(sum(part.size for part in parts) + 2 * ends, dtype=offset)
    if ends:
        out[0], out[-1] = first, last
    pos = ends
    for i, part in enumerate(parts):
        out[pos : pos + part.size] = part
        pos += part.size
        parts[i] = None
    return out


def offset_type(buf: np.ndarray):
    """The integer type of offsets into ``buf``: 4 bytes where they fit (an array of ten
    million one-digit numbers has ten million commas)."""
    return np.int32 if buf.size < 2**31 else np.int64


def bounds_of(start: int, cuts: np.ndarray, end: int) -> np.ndarray:
    """Offsets around the members of the container whose opening bracket is at ``start`` and
    closing one at ``end``, its member commas being ``cuts``: member i lies between
    bounds[i] and bounds[i + 1]."""
    return _joined([cuts], cuts.dtype, start, end)


def child_bounds(below: np.ndarray, start: int, end: int) -> np.ndarray:
    """``bounds_of`` the member container spanning ``start`` to ``end`` (exclusive), from the
    commas one level down that its parent's ``member_bounds`` found: no scan of its own."""
    return bounds_of(start, within(below, start, end), end - 1)


def within(cuts: np.ndarray, start: int, end: int) -> np.ndarray:
    """The offsets of the sorted ``cuts`` between ``start`` and ``end`` (offsets into the
    same text, so of the cuts' type: another type would copy the cuts for each call)."""
    kind = cuts.dtype.type
    return cuts[np.searchsorted(cuts, kind(start)) : np.searchsorted(cuts, kind(end))]


def _unescaped(backslash: np.ndarray, quotes: np.ndarray, carried: int) -> tuple[np.ndarray, int]:
    """The quotes of a chunk that end or start strings (not preceded by an odd run of
    backslashes), and the length of the run of backslashes the chunk ends with."""
    index = np.arange(backslash.size)
    last_other = np.maximum.accumulate(np.where(backslash, -1, index))  # last non-backslash so far
    if quotes.size:
        before = quotes - 1
        last = last_other[np.maximum(before, 0)]
        # A run reaching the chunk's start continues the run the previous chunk ended with.
        run = np.where(before < 0, carried, np.where(last == -1, before + 1 + carried, before - last))
        quotes = quotes[(run & 1) == 0]
    end = int(last_other[-1])
    tail = backslash.size + carried if end == -1 else backslash.size - 1 - end
    return quotes, tail


def skip_space(buf: np.ndarray, pos: int, end: int) -> int:
    """The first offset in ``buf[pos:end]`` that is not JSON whitespace, or ``end``."""
    while pos < end:
        window = buf[pos : min(pos + 4096, end)]
        other = np.flatnonzero(~_WHITESPACE[window])
        if other.size:
            return pos + int(other[0])
        pos += window.size
    return end


def trim_space(buf: np.ndarray, start: int, end: int) -> int:
    """The end of ``buf[start:end]`` without its trailing JSON whitespace."""
    while end > start:
        window = buf[max(start, end - 4096) : end]
        other = np.flatnonzero(~_WHITESPACE[window])
        if other.size:
            return end - window.size + int(other[-1]) + 1
        end -= window.size
    return start


def member(data, buf: np.ndarray, bounds: np.ndarray, i: int, is_object: bool) -> tuple[Any, int, int]:
    """Member ``i`` of the container around whose members ``bounds`` lie: (its key, or its
    index in an array; where its value starts; where it ends, whitespace trimmed). Raises
    NotSplittable if an object's member does not start with a key, ValueError if it is empty."""
    start, end = int(bounds[i]) + 1, int(bounds[i + 1])
    key: Any = i
    if is_object:
        quoted, start = key_and_value(data, start, end)
        key = orjson.loads(quoted)
    start = skip_space(buf, start, end)
    end = trim_space(buf, start, end)
    if start == end:
        raise ValueError(f"an empty member at byte {start}")
    return key, start, end


def key_and_value(data, start: int, end: int) -> tuple[bytes, int]:
    """For the member ``data[start:end]`` of an object: its key as written (quoted) and the
    offset where its value starts. Raises NotSplittable if it does not start with a key."""
    match = _KEY.match(data, start, end)
    if match is None:
        raise NotSplittable("an object member does not start with a key")
    return match.group(1), match.end()
