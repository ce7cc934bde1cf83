"""Small rating sets the agreement tests build themselves."""

from __future__ import annotations

import random

import numpy as np

from reviewer.agreement.model import Rating

RUBRIC_OK = {
    "schema_conformance": True,
    "content_faithfulness": True,
    "cross_field_consistency": True,
    "ambiguity": "low",
    "difficulty": "medium",
}


def rating(item: str, annotator: str, verdict: str | None = "pass", **kw) -> Rating:
    """A rating with a complete, all-good rubric unless overridden (rubric keys may be passed flat)."""
    rubric = dict(RUBRIC_OK)
    for key in list(kw):
        if key in RUBRIC_OK:
            rubric[key] = kw.pop(key)
    return Rating(item, annotator, verdict, rubric, **kw)


def verdict_ratings(rows: list[tuple], annotators=("a", "b"), strata=None) -> list[Rating]:
    """One item per row, the row giving each annotator's verdict (None = that annotator did not rate)."""
    out = []
    for i, row in enumerate(rows):
        for who, verdict in zip(annotators, row):
            if verdict is not None:
                out.append(rating(f"item{i}", who, verdict, strata=dict(strata or {})))
    return out


def random_review(n_items: int, annotators=("a", "b"), seed: int = 0, missing: float = 0.0) -> list[Rating]:
    """A noisy but correlated review over every field, with strata and error tags."""
    rnd = random.Random(seed)
    verdicts = ["pass", "fix", "reject"]
    levels = ["low", "medium", "high"]
    out = []
    for i in range(n_items):
        truth = rnd.choices(verdicts, [0.6, 0.3, 0.1])[0]
        level = rnd.randrange(3)
        strata = {"category": rnd.choice(["EXTRACTIVE", "FILTERING"]), "difficulty": rnd.choice(["Medium", "Hard"])}
        for who in annotators:
            if rnd.random() < missing:
                continue
            verdict = truth if rnd.random() < 0.8 else rnd.choice(verdicts)
            rubric = {
                "schema_conformance": rnd.random() < 0.8,
                "content_faithfulness": verdict == "pass" or rnd.random() < 0.3,
                "cross_field_consistency": rnd.random() < 0.9,
                "ambiguity": levels[min(2, max(0, level + rnd.choice([-1, 0, 0, 1])))],
                "difficulty": strata["difficulty"].lower() if rnd.random() < 0.8 else "hard",
            }
            tags = [t for t in ("missing_field", "wrong_type") if verdict != "pass" and rnd.random() < 0.5]
            out.append(Rating(f"item{i}", who, verdict, rubric, tags, strata=strata))
    return out


def labels_matrix(rng: np.random.Generator, n_items: int, n_raters: int, k: int, agree: float, missing: float = 0.0):
    """items x raters integer labels (NaN for missing) that agree with a hidden truth at rate ``agree``."""
    truth = rng.choice(k, size=n_items, p=np.linspace(2, 1, k) / np.linspace(2, 1, k).sum())
    labels = np.where(rng.random((n_items, n_raters)) < agree, truth[:, None], rng.integers(0, k, (n_items, n_raters)))
    labels = labels.astype(float)
    labels[rng.random((n_items, n_raters)) < missing] = np.nan
    return labels
