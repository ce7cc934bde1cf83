"""Generated document pairs of a known size and known differences.

Used by the tests and ``bench/diff_bench.py`` to exercise the diff on
realistic, filings-like documents without shipping large data files.
"""

from __future__ import annotations

import random
from typing import Any

_FORMS = ("10-K", "10-Q", "8-K", "S-1", "DEF 14A")
_TAGS = ("tech", "energy", "retail", "health", "finance", "industrial")
_ITEMS = ("revenue", "netIncome", "assets", "liabilities", "equity")


def _record(i: int, rng: random.Random) -> dict:
    return {
        "accessionNumber": f"0000{i:06d}-24-{rng.randint(0, 99999):06d}",
        "form type": rng.choice(_FORMS),
        "filed": f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        "amended": rng.random() < 0.1,
        "company": {
            "name": f"Company {i} Holdings",
            "cik": rng.randint(1000, 999999),
            "address": {"street": f"{rng.randint(1, 999)} Main Street", "city": "Springfield", "zip": f"{rng.randint(10000, 99999)}"},
        },
        "financials": [
            {"item": item, "value": round(rng.uniform(-1e6, 1e6), 2), "unit": "USD", "audited": rng.random() < 0.5}
            for item in _ITEMS
        ],
        "tags": [rng.choice(_TAGS) for _ in range(4)],
        "summary": " ".join(rng.choice(("revenue", "growth", "risk", "segment", "quarter", "outlook", "cash")) for _ in range(60)),
        "ratios": {"pe": round(rng.uniform(5, 40), 3), "pb": round(rng.uniform(0.5, 8), 3), "roe": None},
    }


def filings_document(records: int = 3000, seed: int = 0) -> dict:
    """A filings-like document: ``records`` nested records, about 1.7 KB of
    pretty-printed JSON each (3,000 records ~ 5 MB, 60 ~ 100 KB)."""
    rng = random.Random(seed)
    return {"source": "synthetic filings", "seed": seed, "filings": [_record(i, rng) for i in range(records)]}


def nested_document(depth: int, leaf: Any) -> Any:
    """``leaf`` under ``depth`` levels of alternating objects and one-element
    lists-in-objects: a document deeper than Python's recursion limit."""
    value = leaf
    for level in range(depth):
        value = {"level": level, "child": [value]} if level % 2 else {"child": value}
    return value


def leaves(value: Any, path: tuple = ()) -> list[tuple[tuple, Any]]:
    """(path, value) of every scalar leaf, in document order (iterative: any depth)."""
    out = []
    stack = [(value, path)]
    while stack:
        v, p = stack.pop()
        if type(v) is dict:
            stack.extend((c, p + (k,)) for k, c in reversed(list(v.items())))
        elif type(v) is list:
            stack.extend((c, p + (k,)) for k, c in reversed(list(enumerate(v))))
        else:
            out.append((p, v))
    return out


def change_values(document: Any, count: int, seed: int = 1) -> list[tuple]:
    """Change ``count`` distinct non-null scalar leaves of ``document`` in place,
    keeping each one's JSON type (so each is exactly one ``changed``); returns
    the changed paths in document order."""
    candidates = [path for path, v in leaves(document) if v is not None]
    rng = random.Random(seed)
    paths = [candidates[k] for k in sorted(rng.sample(range(len(candidates)), count))]
    for path in paths:
        parent = document
        for part in path[:-1]:
            parent = parent[part]
        old = parent[path[-1]]
        if type(old) is bool:
            new = not old
        elif type(old) in (int, float):
            new = old + 1
        else:
            new = old + " (edited)"
        parent[path[-1]] = new
    return paths


def filings_pair(records: int = 3000, changes: int = 20, seed: int = 0) -> tuple[dict, dict, list[tuple]]:
    """(left, right, changed paths): two independently built equal documents,
    the right one with ``changes`` scalar values changed."""
    left = filings_document(records, seed)
    right = filings_document(records, seed)
    return left, right, change_values(right, changes, seed + 1)
