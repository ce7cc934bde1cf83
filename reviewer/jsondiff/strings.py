"""String comparison under the options, and character-level edits of long strings."""

from __future__ import annotations

from difflib import SequenceMatcher

from reviewer.jsondiff.changes import StringOp

# difflib's matching costs up to (left length x right length) steps. Past this
# budget the differing middle (after the common start and end) is reported as
# one replaced span: coarser, but still points at the right place, instantly.
MAX_MATCH_CELLS = 1_000_000


def normalize(text: str, ignore_case: bool, normalize_whitespace: bool) -> str:
    if normalize_whitespace:
        text = " ".join(text.split())
    if ignore_case:
        text = text.casefold()
    return text


def string_ops(left: str, right: str) -> tuple[StringOp, ...]:
    """Character-level edits turning ``left`` into ``right``, without the "equal" runs."""
    start = _common_prefix_length(left, right)
    limit = min(len(left), len(right)) - start
    end = _common_prefix_length(left[::-1][:limit], right[::-1][:limit])
    mid_left = left[start : len(left) - end]
    mid_right = right[start : len(right) - end]
    if not mid_left or not mid_right or len(mid_left) * len(mid_right) > MAX_MATCH_CELLS:
        tag = "insert" if not mid_left else "delete" if not mid_right else "replace"
        return ((tag, start, start + len(mid_left), start, start + len(mid_right)),)
    matcher = SequenceMatcher(None, mid_left, mid_right, autojunk=False)
    return tuple(
        (tag, i1 + start, i2 + start, j1 + start, j2 + start)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    )


def _common_prefix_length(a: str, b: str) -> int:
    # Binary search on slice comparisons: each is done in C, so long equal
    # starts cost O(n log n) character compares instead of a Python loop.
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo
