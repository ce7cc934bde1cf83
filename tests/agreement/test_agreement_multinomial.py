"""The report's multinomial bootstrap gives the intervals of the textbook item-index bootstrap.

Issue 14 replaced drawing n item indices per resample with drawing the
pattern counts from Multinomial(n, pattern shares) -- the same distribution,
so the intervals must agree with those of index resampling up to Monte Carlo
error. Checked on a review shaped like a real one (two annotators, rubric,
tags, strata; reviewer.testing.agreement), overall and in a stratum group, for
every coefficient of every variable, and for the perspectives' mean (the one
figure whose variables must share their resamples). The same check rejects a
bootstrap of the wrong size, so it can fail.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from reviewer.agreement import coefficients as C
from reviewer.agreement.bootstrap import rng_for
from reviewer.agreement.breakdown import stratum_groups
from reviewer.agreement.estimate import estimate_group, estimate_mean, is_error_variable
from reviewer.agreement.model import validate_perspectives, validate_ratings
from reviewer.agreement.table import PERSPECTIVE_PREFIX, build_rating_set
from reviewer.testing.agreement import TAGS, index_resampled_weights, synthetic_review

RESAMPLES = 4000
TAIL = 0.025
PERSPECTIVES = {"call": TAGS[:3], "query": TAGS[3:]}


@pytest.fixture(scope="module")
def review():
    ratings = validate_ratings(synthetic_review(3000, seed=21))
    rating_set = build_rating_set(ratings, validate_perspectives(PERSPECTIVES))
    profiles = {n: C.profile(t) for n, t in rating_set.tables.items()}
    return rating_set, profiles


def within_monte_carlo_error(value: float, reference: np.ndarray, q: float) -> bool:
    """Could ``value``, the q-quantile of another bootstrap of as many resamples, come from
    the distribution ``reference`` was drawn from?

    A sample's q-quantile sits at a rank of the distribution that is off by a
    binomial error of sd sqrt(B q (1 - q)); two independent samples' quantiles
    differ by sqrt(2) of that. So ``value`` must fall between the reference's
    order statistics 4.5 * sqrt(2) such standard deviations of rank either side
    of q (a false alarm about once in 150,000 comparisons). Working in ranks
    keeps the check right for coefficients that take few distinct values.
    """
    values = np.sort(reference[np.isfinite(reference)])
    b = len(values)
    reach = 4.5 * math.sqrt(2) * math.sqrt(b * q * (1 - q))
    low = values[max(0, int(math.floor(q * b - reach)))]
    high = values[min(b - 1, int(math.ceil(q * b + reach)))]
    return low - 1e-12 <= value <= high + 1e-12


def mismatches(rating_set, profiles, items, reference_weights) -> tuple[int, int]:
    """(coefficient ends outside Monte Carlo error, ends compared): the report's intervals
    over ``items`` against percentiles of index-resampled values."""
    report = estimate_group(rating_set.tables, profiles, items, RESAMPLES, rng_for(1, "report"))
    names = list(rating_set.tables)
    bad = total = 0
    for name, weights in zip(names, reference_weights):
        prof = profiles[name]
        for coef, fn in C.coefficients_for(rating_set.tables[name], is_error_variable(name)).items():
            est = report[name][coef]
            if est.low is None:
                continue
            reference = fn(prof, weights)
            for mine, q in ((est.low, TAIL), (est.high, 1 - TAIL)):
                total += 1
                bad += not within_monte_carlo_error(mine, reference, q)
    return bad, total


@pytest.mark.parametrize("group", ["overall", "domain=finance"])
def test_intervals_match_index_resampling_within_monte_carlo_error(review, group):
    rating_set, profiles = review
    items = None if group == "overall" else stratum_groups(rating_set)["domain"]["finance"]
    prof_list = [profiles[n] for n in rating_set.tables]
    reference = index_resampled_weights(prof_list, items, RESAMPLES, rng_for(2, "reference"))
    bad, total = mismatches(rating_set, profiles, items, reference)
    assert total > 150  # every variable's coefficients were compared, both ends
    assert bad == 0


def test_the_check_rejects_a_bootstrap_of_the_wrong_size(review):
    """Resampling half as many items widens every interval by about sqrt(2): most ends must fail."""
    rating_set, profiles = review
    items = stratum_groups(rating_set)["domain"]["finance"]
    half = np.random.default_rng(3).choice(items, size=len(items) // 2, replace=False)
    prof_list = [profiles[n] for n in rating_set.tables]
    # Index resampling of only half the items, rescaled to the group's size: the counts' mean
    # is right but their spread is sqrt(2) too wide, as a bootstrap of the wrong size would be.
    wrong = [2 * w for w in index_resampled_weights(prof_list, half, RESAMPLES, rng_for(2, "reference"))]
    bad, total = mismatches(rating_set, profiles, items, wrong)
    assert bad > total / 2


def test_perspective_mean_resamples_its_variables_together(review):
    rating_set, profiles = review
    chosen = [profiles[PERSPECTIVE_PREFIX + name] for name in PERSPECTIVES]
    est = estimate_mean(C.unanimous_agreement, chosen, RESAMPLES, rng_for(1, "perspectives"))
    weights = index_resampled_weights(chosen, None, RESAMPLES, rng_for(2, "reference"))
    reference = np.mean([C.unanimous_agreement(p, w) for p, w in zip(chosen, weights)], axis=0)
    for mine, q in ((est.low, TAIL), (est.high, 1 - TAIL)):
        assert within_monte_carlo_error(mine, reference, q)
