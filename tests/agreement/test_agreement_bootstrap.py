"""Bootstrap intervals: reproducible, honest about undefined resamples, and right per resample."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from reviewer.agreement import build_report, render_json
from reviewer.agreement import coefficients as C
from reviewer.agreement.bootstrap import percentile_interval, percentile_intervals, resampled_weights, rng_for
from reviewer.agreement.estimate import estimate_group
from reviewer.agreement.table import RatingTable

from .factories import labels_matrix, random_review, verdict_ratings


def test_same_seed_same_report_other_seed_other_intervals():
    ratings = random_review(120, seed=3)
    first = render_json(build_report(ratings, bootstrap=200, seed=7))
    again = render_json(build_report(random_review(120, seed=3), bootstrap=200, seed=7))
    assert first == again
    other = build_report(random_review(120, seed=3), bootstrap=200, seed=8)
    same = build_report(random_review(120, seed=3), bootstrap=200, seed=7)
    a, b = same.overall["verdict"]["cohen_kappa"], other.overall["verdict"]["cohen_kappa"]
    assert a.value == b.value
    assert (a.low, a.high) != (b.low, b.high)


def test_interval_brackets_the_estimate_and_narrows_with_more_items():
    small = build_report(random_review(60, seed=1), bootstrap=300).overall["verdict"]["cohen_kappa"]
    large = build_report(random_review(2000, seed=1), bootstrap=300).overall["verdict"]["cohen_kappa"]
    for est in (small, large):
        assert est.low <= est.value <= est.high
    assert (small.high - small.low) > 2 * (large.high - large.low)


def test_each_resample_is_a_resample_of_items_and_scores_like_scikit_learn():
    labels = labels_matrix(np.random.default_rng(5), 80, 2, 3, 0.6)
    cats = ["0", "1", "2"]
    table = RatingTable.from_labels([[cats[int(v)] for v in row] for row in labels], cats)
    prof = C.profile(table)
    patterns = prof.patterns
    (weights,) = resampled_weights([prof], None, 25, np.random.default_rng(0))
    kappas = C.cohen_kappa(prof, weights)
    for row, kappa in zip(weights, kappas):
        assert row.sum() == 80 and np.all(row == np.round(row))
        a = np.repeat(patterns[:, 0], row.astype(int))
        b = np.repeat(patterns[:, 1], row.astype(int))
        assert kappa == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)


def test_resamples_where_kappa_is_undefined_are_left_out_and_counted():
    # One disagreement among 40 agreeing 'pass' items: resamples missing it have one category only.
    ratings = verdict_ratings([("pass", "pass")] * 40 + [("pass", "fix")])
    est = build_report(ratings, bootstrap=200, seed=1).overall["verdict"]["cohen_kappa"]
    assert est.value == pytest.approx(0.0)
    assert est.ci_note is not None and "of 200 resamples undefined and left out" in est.ci_note
    undefined = int(est.ci_note.split()[0])
    assert 0 < undefined < 200


def test_groups_draw_independently_but_reproducibly():
    labels = labels_matrix(np.random.default_rng(2), 100, 2, 2, 0.7)
    table = RatingTable.from_labels([[str(int(v)) for v in row] for row in labels], ["0", "1"])
    tables, profiles = {"v": table}, {"v": C.profile(table)}
    one = estimate_group(tables, profiles, None, 100, rng_for(0, "a"))["v"]["gwet_ac1"]
    two = estimate_group(tables, profiles, None, 100, rng_for(0, "a"))["v"]["gwet_ac1"]
    other = estimate_group(tables, profiles, None, 100, rng_for(0, "b"))["v"]["gwet_ac1"]
    assert (one.low, one.high) == (two.low, two.high)
    assert (one.low, one.high) != (other.low, other.high)


def test_no_bootstrap_means_no_interval_and_says_so():
    est = build_report(random_review(30), bootstrap=0).overall["verdict"]["fleiss_kappa"]
    assert est.value is not None and est.low is None and est.high is None
    assert est.ci_note == "no bootstrap"


def test_intervals_of_many_rows_equal_one_row_at_a_time_to_the_last_bit():
    """The report takes all of a variable's intervals in one pass; every end must be the very
    float np.percentile gives for that row alone (percentile_interval: the pinned reports
    were made with it)."""
    rng = np.random.default_rng(4)
    checked = 0
    for n in (2, 3, 7, 40, 999, 1000, 4000):
        for trial in range(60):
            rows = rng.normal(size=(6, n)) * 10.0 ** rng.integers(-6, 6)
            if trial % 3 == 0:
                rows = np.round(rows, 1)  # ties, as coefficients of few items have
            rows[1, rng.integers(0, n)] = np.nan  # an undefined resample
            rows[2] = np.nan  # every resample undefined
            for row, got in zip(rows, percentile_intervals(rows)):
                assert got == percentile_interval(row)
                checked += got[0] is not None
    assert checked > 1500
    assert percentile_interval(np.array([1.0, np.nan, 3.0])) == (1.05, 2.95, 1)
