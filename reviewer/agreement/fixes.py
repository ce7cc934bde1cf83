"""Do two annotators who both fixed an item fix it the same way?

Two views: whether the golds they produced are equal (JSON equality), and
how much their RFC 6902 patches touch the same places (Jaccard overlap of
the JSON paths the operations change).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from reviewer.agreement.model import Rating


def json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values: 1 == 1.0, but true != 1 and key order does not matter."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def changed_paths(patch: list[dict] | None) -> set[str]:
    """JSON pointers a patch changes: every op's path, and a move's source; "test" changes nothing."""
    paths: set[str] = set()
    for op in patch or []:
        if op["op"] == "test":
            continue
        paths.add(op["path"])
        if op["op"] == "move":
            paths.add(op["from"])
    return paths


@dataclass
class FixPair:
    """Two annotators' fixes of one item."""

    item_id: str
    annotators: tuple[str, str]
    gold_equal: bool
    jaccard: float | None  # None when neither patch changes anything
    jaccard_reason: str | None = None


@dataclass
class FixAgreement:
    """Summary over every item at least two annotators fixed (one entry per annotator pair).

    The rates are None when there is nothing to compare, and ``reason`` says why.
    """

    n_items: int = 0
    pairs: list[FixPair] = field(default_factory=list)
    gold_equal_rate: float | None = None
    mean_jaccard: float | None = None
    reason: str | None = None


def fix_agreement(ratings: list[Rating]) -> FixAgreement:
    """Compare the fixes of every item that two or more annotators marked "fix"."""
    fixers: dict[str, list[Rating]] = defaultdict(list)
    for r in ratings:
        if r.verdict == "fix":
            fixers[r.item_id].append(r)
    out = FixAgreement()
    for item_id, group in fixers.items():
        if len(group) < 2:
            continue
        out.n_items += 1
        for a, b in combinations(sorted(group, key=lambda r: r.annotator), 2):
            pa, pb = changed_paths(a.patch), changed_paths(b.patch)
            union = pa | pb
            jaccard = len(pa & pb) / len(union) if union else None
            reason = None if union else "neither patch changes anything"
            out.pairs.append(FixPair(item_id, (a.annotator, b.annotator), json_equal(a.fix, b.fix), jaccard, reason))
    if not out.pairs:
        out.reason = "no item was fixed by two annotators"
        return out
    out.gold_equal_rate = sum(p.gold_equal for p in out.pairs) / len(out.pairs)
    overlaps = [p.jaccard for p in out.pairs if p.jaccard is not None]
    if overlaps:
        out.mean_jaccard = sum(overlaps) / len(overlaps)
    else:
        out.reason = "no pair of fixes has a non-empty patch, so their overlap is undefined"
    return out
