"""Which element of the left list corresponds to which element of the right list.

Elements are matched by a configured key member when there is one, else by
content (canonical fingerprint) with an alignment that keeps an insertion in
the middle from shifting everything after it, else by position. A matched pair
found out of order (not on the longest in-order chain of pairs) is a move.

``merge_order`` turns a match into the display order shared by the diff's
change list and the side-by-side view, so the two always agree.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable, Iterator
from itertools import chain
from dataclasses import dataclass, field

from reviewer.jsondiff.canonical import canonical, strictly_equal

# Steps yielded by merge_order.
PAIR, LEFT_ONLY, RIGHT_ONLY = "pair", "left", "right"

# Why two elements were paired: they are the same value; they carry the same
# key; or they only sit at corresponding places (a guess: compared, and
# dropped rather than reported as a move when out of order).
SAME, KEYED, GUESS = "same", "key", "position"

# Equal-length lists whose positions mostly agree are aligned by position, the
# mismatches only checked for moves; this saves fingerprinting every element.
# Above this share of mismatched positions the full alignment runs.
_POSITIONAL_MISMATCH_SHARE = 0.1


@dataclass
class ListMatch:
    """``pairs``: (left index, right index, basis: SAME, KEYED or GUESS), sorted by
    left index. ``moved``: left indexes of pairs that are moves.
    ``removed``/``added``: unmatched indexes."""

    pairs: list[tuple[int, int, str]] = field(default_factory=list)
    moved: set[int] = field(default_factory=set)
    removed: list[int] = field(default_factory=list)
    added: list[int] = field(default_factory=list)

    def in_order_pairs(self) -> list[tuple[int, int]]:
        return [(i, j) for i, j, _ in self.pairs if i not in self.moved]


def match_lists(left: list, right: list, key: str | None, detect_moves: bool = True) -> ListMatch:
    """Match the elements of two lists (see the module docstring)."""
    if key is None:
        pairs = _content_pairs(left, right)
    else:
        pairs = _key_pairs(left, right, key)
    pairs.sort()
    moved = _out_of_order(pairs)
    if moved:
        # A guessed pair out of order is no evidence of a move: unpair it.
        # Without move detection no out-of-order pair is kept.
        drop = {i for i, _, basis in pairs if i in moved and (basis == GUESS or not detect_moves)}
        pairs = [p for p in pairs if p[0] not in drop]
        moved -= drop
    matched_left = {i for i, _, _ in pairs}
    matched_right = {j for _, j, _ in pairs}
    return ListMatch(
        pairs=pairs,
        moved=moved,
        removed=[i for i in range(len(left)) if i not in matched_left],
        added=[j for j in range(len(right)) if j not in matched_right],
    )


def merge_order(n_left: int, n_right: int, in_order: Iterable[tuple[int, int]]) -> Iterator[tuple]:
    """Interleave two lists around their in-order pairs.

    Yields ``(PAIR, i, j)``, ``(LEFT_ONLY, i)`` and ``(RIGHT_ONLY, j)``; in each
    gap between pairs the left-only elements come first. ``in_order`` is read
    lazily (the side-by-side layout draws the steps as it lays them out).
    """
    i = j = 0
    for pi, pj in chain(in_order, ((n_left, n_right),)):
        while i < pi:
            yield (LEFT_ONLY, i)
            i += 1
        while j < pj:
            yield (RIGHT_ONLY, j)
            j += 1
        if pi < n_left:
            yield (PAIR, pi, pj)
            i, j = pi + 1, pj + 1


def _fingerprints(values: list) -> list:
    # A value too deep to fingerprint gets a unique stand-in: it matches nothing
    # by content and is compared by position instead.
    out = []
    for v in values:
        fp = canonical(v)
        out.append(fp if fp is not None else object())
    return out


def _content_pairs(left: list, right: list) -> list[tuple[int, int, str]]:
    n, m = len(left), len(right)
    pairs: list[tuple[int, int, str]] = []
    start = 0
    while start < n and start < m and strictly_equal(left[start], right[start]):
        pairs.append((start, start, SAME))
        start += 1
    tail = 0
    while tail < n - start and tail < m - start and strictly_equal(left[n - 1 - tail], right[m - 1 - tail]):
        pairs.append((n - 1 - tail, m - 1 - tail, SAME))
        tail += 1
    mid_left = left[start : n - tail]
    mid_right = right[start : m - tail]
    if not mid_left and not mid_right:
        return pairs
    local = _positional_pairs(mid_left, mid_right)
    if local is None:
        local = _aligned_pairs(mid_left, mid_right)
    pairs.extend((i + start, j + start, basis) for i, j, basis in local)
    return pairs


def _positional_pairs(left: list, right: list) -> list[tuple[int, int, str]] | None:
    """Pairs by position when the lengths agree and few positions differ; else None."""
    if len(left) != len(right):
        return None
    mismatched = []
    limit = max(2, int(len(left) * _POSITIONAL_MISMATCH_SHARE))
    pairs = []
    for k, (a, b) in enumerate(zip(left, right)):
        if strictly_equal(a, b):
            pairs.append((k, k, SAME))
        else:
            mismatched.append(k)
            if len(mismatched) > limit:
                return None
    # A mismatched element equal to another mismatched element elsewhere moved there.
    by_print = defaultdict(deque)
    for k, fp in zip(mismatched, _fingerprints([left[k] for k in mismatched])):
        by_print[fp].append(k)
    rest_left = set(mismatched)
    rest_right = []
    for k, fp in zip(mismatched, _fingerprints([right[k] for k in mismatched])):
        candidates = by_print.get(fp)
        if candidates:
            i = candidates.popleft()
            pairs.append((i, k, _same_or_guess(left[i], right[k])))
            rest_left.discard(i)
        else:
            rest_right.append(k)
    pairs.extend((i, j, GUESS) for i, j in zip(sorted(rest_left), rest_right))
    return pairs


def _aligned_pairs(left: list, right: list) -> list[tuple[int, int, str]]:
    """Alignment on fingerprints (``_opcodes``), then moves, then position."""
    fl, fr = _fingerprints(left), _fingerprints(right)
    pairs = []
    pool_left: list[int] = []
    pool_right: list[int] = []
    replaced: list[tuple[list[int], list[int]]] = []
    for tag, i1, i2, j1, j2 in _opcodes(fl, fr):
        if tag == "equal":
            # Equal fingerprints; == rules out the one thing they conflate (NaN/null).
            pairs.extend((i, j, _same_or_guess(left[i], right[j])) for i, j in zip(range(i1, i2), range(j1, j2)))
            continue
        if tag == "replace":
            # Equal elements facing each other in a replaced block stay paired
            # where they are: that is no move.
            facing = {d for d in range(min(i2 - i1, j2 - j1)) if fl[i1 + d] == fr[j1 + d]}
            pairs.extend((i1 + d, j1 + d, _same_or_guess(left[i1 + d], right[j1 + d])) for d in sorted(facing))
            rest_left = [i1 + d for d in range(i2 - i1) if d not in facing]
            rest_right = [j1 + d for d in range(j2 - j1) if d not in facing]
            replaced.append((rest_left, rest_right))
        else:
            rest_left, rest_right = list(range(i1, i2)), list(range(j1, j2))
        pool_left.extend(rest_left)
        pool_right.extend(rest_right)
    # An element that left one place and reappears elsewhere moved.
    by_print = defaultdict(deque)
    for i in pool_left:
        by_print[fl[i]].append(i)
    moved_left, moved_right = set(), set()
    for j in pool_right:
        candidates = by_print.get(fr[j])
        if candidates:
            i = candidates.popleft()
            pairs.append((i, j, _same_or_guess(left[i], right[j])))
            moved_left.add(i)
            moved_right.add(j)
    # What is left of a replaced block changed in place: pair it by position.
    for lefts, rights in replaced:
        rest_left = [i for i in lefts if i not in moved_left]
        rest_right = [j for j in rights if j not in moved_right]
        pairs.extend((i, j, GUESS) for i, j in zip(rest_left, rest_right))
    return pairs


def _opcodes(fl: list, fr: list) -> list[tuple[str, int, int, int, int]]:
    """Align two fingerprint sequences, patience style: trim equal ends, anchor on
    fingerprints occurring once on each side (longest in-order chain of them),
    and repeat between anchors. Opcodes as difflib's ("equal", "replace",
    "delete", "insert"), in order. Unlike difflib's matcher this stays
    O(n log n) on long lists full of repeated values.
    """
    out: list[tuple[str, int, int, int, int]] = []
    # A stack of ranges still to align, and finished opcodes, in reverse order.
    stack: list = [(None, 0, len(fl), 0, len(fr))]
    while stack:
        item = stack.pop()
        if item[0] is not None:
            out.append(item)
            continue
        _, a0, a1, b0, b1 = item
        start = a0
        while a0 < a1 and b0 < b1 and fl[a0] == fr[b0]:
            a0 += 1
            b0 += 1
        if a0 > start:
            out.append(("equal", start, a0, b0 - (a0 - start), b0))
        tail = 0
        while a0 < a1 - tail and b0 < b1 - tail and fl[a1 - 1 - tail] == fr[b1 - 1 - tail]:
            tail += 1
        later: list = []
        if tail:
            later.append(("equal", a1 - tail, a1, b1 - tail, b1))
            a1 -= tail
            b1 -= tail
        if a0 == a1 or b0 == b1:
            if a0 < a1:
                later.append(("delete", a0, a1, b0, b0))
            elif b0 < b1:
                later.append(("insert", a0, a0, b0, b1))
        else:
            anchors = _unique_anchors(fl, fr, a0, a1, b0, b1)
            if not anchors:
                later.append(("replace", a0, a1, b0, b1))
            else:
                pieces: list = []
                i, j = a0, b0
                for ai, aj in anchors:
                    pieces.append((None, i, ai, j, aj))
                    pieces.append(("equal", ai, ai + 1, aj, aj + 1))
                    i, j = ai + 1, aj + 1
                pieces.append((None, i, a1, j, b1))
                later = pieces + later
        stack.extend(reversed([p for p in later if p[0] is not None or p[1] < p[2] or p[3] < p[4]]))
    return out


def _unique_anchors(fl: list, fr: list, a0: int, a1: int, b0: int, b1: int) -> list[tuple[int, int]]:
    """Pairs (i, j) of fingerprints found exactly once in each range, forming
    the longest chain increasing on both sides."""
    count_left: dict = {}
    for i in range(a0, a1):
        count_left[fl[i]] = count_left.get(fl[i], 0) + 1
    count_right: dict = {}
    where_right: dict = {}
    for j in range(b0, b1):
        fp = fr[j]
        count_right[fp] = count_right.get(fp, 0) + 1
        where_right[fp] = j
    candidates = [
        (i, where_right[fl[i]], SAME)
        for i in range(a0, a1)
        if count_left[fl[i]] == 1 and count_right.get(fl[i]) == 1
    ]
    off_chain = _out_of_order(candidates)
    return [(i, j) for i, j, _ in candidates if i not in off_chain]


def _key_pairs(left: list, right: list, key: str) -> list[tuple[int, int, str]]:
    """Pair elements with equal key values (k-th occurrence with k-th); elements
    without the key are matched among themselves by content."""
    by_key = defaultdict(deque)
    unkeyed_right = []
    for j, v in enumerate(right):
        kv = _key_value(v, key)
        if kv is None:
            unkeyed_right.append(j)
        else:
            by_key[kv].append(j)
    pairs = []
    unkeyed_left = []
    for i, v in enumerate(left):
        kv = _key_value(v, key)
        if kv is None:
            unkeyed_left.append(i)
            continue
        candidates = by_key.get(kv)
        if candidates:
            pairs.append((i, candidates.popleft(), KEYED))
    if unkeyed_left or unkeyed_right:
        local = _content_pairs([left[i] for i in unkeyed_left], [right[j] for j in unkeyed_right])
        pairs.extend((unkeyed_left[i], unkeyed_right[j], basis) for i, j, basis in local)
    return pairs


def _same_or_guess(a, b) -> str:
    # Equal fingerprints; == rules out the one thing they conflate (NaN/null).
    return SAME if a == b else GUESS


def _key_value(element, key: str):
    if type(element) is not dict or key not in element:
        return None
    return canonical(element[key])


def _out_of_order(pairs: list[tuple[int, int, str]]) -> set[int]:
    """Left indexes of the pairs off one longest chain increasing in both indexes.

    Among the longest chains, the one with most pairs known to be the same
    value wins, then the one keeping most elements at their own index, so that
    swapping two elements reports those two as moved and not a third that
    happens to be in between.
    """
    rights = [j for _, j, _ in pairs]
    if all(a < b for a, b in zip(rights, rights[1:])):
        return set()  # already in order: the usual case, decided without the tree
    # Cut the pairs where every right index before the cut is below every one after it:
    # a chain through one segment extends through any other, so the best chain is the
    # best chain of each segment together, and a segment already in order is kept whole.
    # One element moved in a 10,000-element list leaves one short segment to work on.
    off: set[int] = set()
    suffix_min = rights[:]
    for pos in range(len(rights) - 2, -1, -1):
        if suffix_min[pos + 1] < suffix_min[pos]:
            suffix_min[pos] = suffix_min[pos + 1]
    start, prefix_max = 0, -1
    for pos, j in enumerate(rights):
        if j > prefix_max:
            prefix_max = j
        if pos + 1 == len(rights) or prefix_max < suffix_min[pos + 1]:
            segment = rights[start : pos + 1]
            if not all(a < b for a, b in zip(segment, segment[1:])):
                off |= _off_longest_chain(pairs[start : pos + 1])
            start = pos + 1
    return off


def _off_longest_chain(pairs: list[tuple[int, int, str]]) -> set[int]:
    """``_out_of_order`` of pairs that are not in order, by the weighted tree below."""
    # Weighted longest increasing subsequence of right indexes (pairs are
    # sorted by left index) with a Fenwick tree of prefix maxima over right
    # indexes. Length dominates the weight; staying in place breaks ties.
    # Each bonus outweighs all of the smaller ones together: length first, then
    # pairs known the same, then elements kept at their own index.
    n = len(pairs)
    same_bonus = n + 1
    unit = (n + 1) * (n + 1) + 1
    size = max(j for _, j, _ in pairs) + 2
    tree: list[tuple[int, int]] = [(0, -1)] * (size + 1)  # (score, position in pairs)
    previous = [-1] * len(pairs)
    best = (0, -1)
    for pos, (i, j, basis) in enumerate(pairs):
        k, found = j, (0, -1)  # best chain ending at a right index < j
        while k > 0:
            if tree[k] > found:
                found = tree[k]
            k -= k & -k
        score = found[0] + unit + (same_bonus if basis == SAME else 0) + (1 if i == j else 0)
        previous[pos] = found[1]
        entry = (score, pos)
        k = j + 1
        while k <= size:
            if tree[k] < entry:
                tree[k] = entry
            k += k & -k
        if entry > best:
            best = entry
    keep = set()
    pos = best[1]
    while pos != -1:
        keep.add(pos)
        pos = previous[pos]
    return {pairs[pos][0] for pos in range(len(pairs)) if pos not in keep}
