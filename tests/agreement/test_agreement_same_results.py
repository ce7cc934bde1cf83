"""The agreement report gives the very same figures after issue 14's speed work.

The hashes below are of ``render_json(build_report(...))`` computed by the
implementation before that work (main at cc3b3e9) on the fixtures built here;
the bootstrap's counting, the distributions and the breakdowns were rewritten
for speed since, and must not move a single digit: same draws, same counts,
same intervals. Fixtures: two annotators with strata, rubric, tags, fixes and
two perspectives; and three annotators who share only some items (so every
pair bootstraps its own items).
"""

from __future__ import annotations

import hashlib
import random

import pytest

from reviewer.agreement import build_report, render_json
from reviewer.agreement.model import Rating

TAGS = ("missing_field", "wrong_type", "hallucination", "bad_nesting", "unit_error", "wrong_id")


def review(n_items: int, seed: int, annotators=("ann", "bob"), share: float = 1.0) -> list[Rating]:
    """Annotators who agree on most verdicts, with rubric, tags, fixes and four strata.

    Written out here rather than imported from bench/agreement_bench.py (whose
    generator it follows): the hashes hold only while this exact generator does,
    and the bench is free to change its own."""
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


FIXTURES = {
    "two_annotators_3000_items_200_resamples": (
        dict(n_items=3000, seed=7), dict(bootstrap=200, seed=3, perspectives={"call": TAGS[:3], "query": TAGS[3:]}),
        "7377e0b1e87a966489b0df86a3ddaddb36f0b86e0f0f18a10a7034b42efa5bd0",
    ),
    "two_annotators_20000_items_50_resamples": (
        dict(n_items=20000, seed=7), dict(bootstrap=50, seed=3), "7d9547ac5d3b97cf2da3c5b57b47a96383f2fae28970a0c70dd762136e4ae004",
    ),
    "three_annotators_sharing_some_items": (
        dict(n_items=2000, seed=11, annotators=("ann", "bob", "cid"), share=0.6), dict(bootstrap=100, seed=5),
        "b794d20ece68ebb5f046a754e567e407ce4a0c6a9c74989222f586aaacfd8583",
    ),
}


@pytest.mark.parametrize("name", list(FIXTURES))
def test_report_is_identical_to_the_previous_implementation(name):
    review_args, report_args, expected = FIXTURES[name]
    text = render_json(build_report(review(**review_args), **report_args))
    assert hashlib.sha256(text.encode()).hexdigest() == expected
