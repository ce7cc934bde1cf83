"""The agreement report keeps its figures through issue 14's speed work.

Two hashes per fixture (reviewer.testing.agreement.synthetic_review):

- ``figures``: the report with the bootstrap interval fields (low, high,
  ci_note) left out, as computed by the implementation before that work (main
  at cc3b3e9). Point estimates, analytic standard errors, breakdowns,
  distributions, fixes and disagreements must not move a single digit.
- ``report``: the whole ``render_json`` output of the current implementation,
  so that the intervals stay reproducible (same seed, same report). It was
  last re-pinned when the bootstrap began drawing each resample's pattern
  counts from a multinomial instead of drawing item indices (issue 14): the
  same distribution (tests/agreement/test_agreement_multinomial.py checks the
  intervals against index resampling within Monte Carlo error), other draws.

Fixtures: two annotators with strata, rubric, tags, fixes and two
perspectives; and three annotators who share only some items (so every pair
bootstraps its own items).
"""

from __future__ import annotations

import hashlib
import json

import pytest

from reviewer.agreement import build_report, render_json, report_to_dict
from reviewer.testing.agreement import TAGS
from reviewer.testing.agreement import synthetic_review as review

FIXTURES = {
    "two_annotators_3000_items_200_resamples": (
        dict(n_items=3000, seed=7), dict(bootstrap=200, seed=3, perspectives={"call": TAGS[:3], "query": TAGS[3:]}),
        "c7a403e7373345cb9573852c294afc49608e44161f802bd5406a5b60f8563aa6",
        "0488f525fcf649a49a05fc705fdf70e6dbda577cc3b3ee42a077fd8a1f1c1cd8",
    ),
    "two_annotators_20000_items_50_resamples": (
        dict(n_items=20000, seed=7), dict(bootstrap=50, seed=3),
        "265005f966240613eae821d3673fb26b9ba80032ab9dc589604249b0b9881e52",
        "2a021b593494d4eb61844479de3c0e11a0b02dd0dfb0be5f83cab0123e051834",
    ),
    "three_annotators_sharing_some_items": (
        dict(n_items=2000, seed=11, annotators=("ann", "bob", "cid"), share=0.6), dict(bootstrap=100, seed=5),
        "3c3ec896d682fa3e428c11cb1d1e738cc36ff1d2f6db796431388f53feecde20",
        "1797e1b62ba34091fd4982655d1e6acd2adab8438744a046bc6d26ff79ca0744",
    ),
}
INTERVAL_FIELDS = ("low", "high", "ci_note")


def without_intervals(value):
    if isinstance(value, dict):
        return {k: without_intervals(v) for k, v in value.items() if k not in INTERVAL_FIELDS}
    if isinstance(value, list):
        return [without_intervals(v) for v in value]
    return value


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize("name", list(FIXTURES))
def test_report_is_identical_to_the_previous_implementation(name):
    review_args, report_args, figures, whole = FIXTURES[name]
    report = build_report(review(**review_args), **report_args)
    assert sha256(json.dumps(without_intervals(report_to_dict(report)), sort_keys=True)) == figures
    assert sha256(render_json(report)) == whole
