"""A synthetic dual-annotation review and the item-index bootstrap, for agreement tests and the bench.

``synthetic_review`` is the one generator of review-shaped ratings that
``bench/agreement_bench.py`` times and ``tests/agreement`` pin report hashes
on: changing a single draw in it changes those hashes, so extend it only with
parameters whose defaults keep the draws as they are.

``index_resampled_weights`` is the textbook bootstrap the report used before
issue 14's multinomial draws: draw item indices with replacement and count
the drawn items' patterns. It is the reference the tests compare the report's
intervals with, and the "previous implementation" the bench times.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from reviewer.agreement.bootstrap import joint_patterns
from reviewer.agreement.coefficients import Profile
from reviewer.agreement.model import Rating

TAGS = ("missing_field", "wrong_type", "hallucination", "bad_nesting", "unit_error", "wrong_id")


def synthetic_review(n_items: int, seed: int = 1, annotators=("ann", "bob"), share: float = 1.0) -> list[Rating]:
    """Annotators who agree on most verdicts, with rubric, tags, fixes and four strata.

    The first two annotators rate every item; each further one rates an item
    with probability ``share`` (so annotator pairs share different items).
    """
    rnd = random.Random(seed)
    out = []
    for i in range(n_items):
        strata = {
            "category": rnd.choice(["EXTRACTIVE", "FILTERING", "AGGREGATION"]),
            "difficulty": rnd.choice(["Medium", "Hard"]),
            "domain": rnd.choice(["finance", "sports", "travel", "health"]),
            "dataset": "bench",
        }
        truth = rnd.choices(["pass", "fix", "reject"], [0.7, 0.2, 0.1])[0]
        for j, who in enumerate(annotators):
            if j >= 2 and rnd.random() > share:
                continue
            verdict = truth if rnd.random() < 0.85 else rnd.choice(["pass", "fix", "reject"])
            rubric = {
                "schema_conformance": rnd.random() < 0.9,
                "content_faithfulness": rnd.random() < 0.9,
                "cross_field_consistency": rnd.random() < 0.95,
                "ambiguity": rnd.choice(["low", "low", "medium", "high"]),
                "difficulty": rnd.choice(["medium", "hard"]),
            }
            tags = [t for t in TAGS if rnd.random() < 0.05]
            fixed = verdict == "fix"
            patch = [{"op": "replace", "path": f"/f{rnd.randrange(3)}", "value": 1}] if fixed else None
            out.append(Rating(f"i{i}", who, verdict, rubric, tags, {"f": 1} if fixed else None, patch, strata))
    return out


def index_resampled_weights(
    profiles: Sequence[Profile], items: np.ndarray | None, n_resamples: int, rng: np.random.Generator
) -> list[np.ndarray]:
    """Per profile, the pattern counts of ``n_resamples`` resamples drawn as item indices.

    Same contract as ``reviewer.agreement.bootstrap.resampled_weights`` (one
    draw of items shared by every profile), computed the direct way: n uniform
    item indices per resample, each mapped to its joint pattern and counted.
    This is the report's bootstrap before issue 14 (main at 13a0d5a), draw for draw.
    """
    inverses = [p.inverse if items is None else p.inverse[items] for p in profiles]
    n = len(inverses[0]) if inverses else 0
    widths = [p.n_patterns for p in profiles]
    out = np.zeros((n_resamples, sum(widths)), dtype=np.float64)
    if n and n_resamples:
        joint, members = joint_patterns(inverses, widths)
        step = max(1, min(256, 2**21 // n))
        for start in range(0, n_resamples, step):
            block = min(step, n_resamples - start)
            drawn = rng.integers(0, n, size=(block, n), dtype=np.uint32)
            keys = np.take(joint, drawn)
            counts = np.stack([np.bincount(row, minlength=len(members)) for row in keys])
            out[start : start + block] = counts @ members.astype(np.float64)
    return np.split(out, np.cumsum(widths)[:-1], axis=1)
