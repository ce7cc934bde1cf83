"""The agreement report keeps its figures through issue 14's speed work.

Per fixture (reviewer.testing.agreement.synthetic_review), ``figures``: a hash of the
report with the bootstrap interval fields (low, high, ci_note) left out and every float
rounded to 9 decimal places, as computed by the implementation before that work
(main at cc3b3e9). Point estimates, analytic standard errors, breakdowns,
distributions, fixes and disagreements must not move by more than rounding.

Why rounded: the exact bits of a float sum or product depend on the processor
(OpenBLAS picks its kernels per CPU; numpy its SIMD loops). The hashes of the exact
reports, pinned on one machine, failed on an AMD EPYC machine on which the
implementation at cc3b3e9 and the current one still agree byte for byte. Measured there
with OpenBLAS's other kernels (OPENBLAS_CORETYPE=Sandybridge, Prescott): 339 figures of one
fixture moved, by at most ~2e-15; 9 decimal places are far above that noise (a figure
straddles a rounding boundary with odds of about 1e-6) and far below any real change. Ten
significant digits were not enough: a figure near zero moved in its 13th.

The bootstrap intervals are checked for what a user relies on: the same seed gives
the same report, byte for byte, on one machine; another seed gives other intervals
(their distribution is checked against index resampling in
tests/agreement/test_agreement_multinomial.py).

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
        "15e22b7898df8bc0934d89faf0f83e76a75e0b35761ef0ce4891517dbb64a5bf",
    ),
    "two_annotators_20000_items_50_resamples": (
        dict(n_items=20000, seed=7), dict(bootstrap=50, seed=3),
        "26c8d3f4b72c504854bb160abb584a33e5c46efe2e67e3d8632f1ffbef68a40b",
    ),
    "three_annotators_sharing_some_items": (
        dict(n_items=2000, seed=11, annotators=("ann", "bob", "cid"), share=0.6), dict(bootstrap=100, seed=5),
        "ebb8e6bc5371ed5f13913eabd1d26d9b380b1ccfa592a634a2ab5875b57a0495",
    ),
}
INTERVAL_FIELDS = ("low", "high", "ci_note")


def without_intervals(value):
    if isinstance(value, dict):
        return {k: without_intervals(v) for k, v in value.items() if k not in INTERVAL_FIELDS}
    if isinstance(value, list):
        return [without_intervals(v) for v in value]
    return value


def rounded(value, places: int = 9):
    """Every float rounded to ``places`` decimal places (see the module docstring)."""
    if isinstance(value, float):
        return round(value, places)
    if isinstance(value, dict):
        return {k: rounded(v, places) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded(v, places) for v in value]
    return value


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def figures_hash(report) -> str:
    return sha256(json.dumps(rounded(without_intervals(report_to_dict(report))), sort_keys=True))


@pytest.mark.parametrize("name", list(FIXTURES))
def test_report_is_identical_to_the_previous_implementation(name):
    review_args, report_args, figures = FIXTURES[name]
    assert figures_hash(build_report(review(**review_args), **report_args)) == figures


def _intervals(value, path=""):
    """``{path: (low, high)}`` of every interval in a report dict."""
    out = {}
    if isinstance(value, dict):
        if "low" in value and "high" in value:
            out[path] = (value["low"], value["high"])
        for k, v in value.items():
            out.update(_intervals(v, f"{path}/{k}"))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.update(_intervals(v, f"{path}/{i}"))
    return out


def test_the_same_seed_gives_the_same_report_and_another_seed_other_intervals():
    review_args, report_args, _ = FIXTURES["three_annotators_sharing_some_items"]
    first = build_report(review(**review_args), **report_args)
    again = build_report(review(**review_args), **report_args)
    other = build_report(review(**review_args), **{**report_args, "seed": report_args["seed"] + 1})
    assert render_json(first) == render_json(again)
    ours, theirs = _intervals(report_to_dict(first)), _intervals(report_to_dict(other))
    assert ours.keys() == theirs.keys() and len(ours) > 50
    assert sum(ours[k] != theirs[k] for k in ours) > len(ours) // 2
