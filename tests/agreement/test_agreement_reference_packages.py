"""Coefficients against scikit-learn, statsmodels and krippendorff on generated data."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa

from reviewer.agreement import coefficients as C
from reviewer.agreement.table import RatingTable

from .factories import labels_matrix

CASES = [(seed, k, agree) for seed in range(4) for k in (2, 3, 5) for agree in (0.3, 0.7, 0.95)]


def _table(labels: np.ndarray, k: int, ordinal: bool = False) -> RatingTable:
    cats = [str(c) for c in range(k)]
    rows = [[None if np.isnan(v) else cats[int(v)] for v in row] for row in labels]
    return RatingTable.from_labels(rows, cats, ordinal=ordinal)


def _value(table: RatingTable, fn) -> float:
    p = C.profile(table)
    return float(fn(p, p.item_weights()))


@pytest.mark.parametrize("seed,k,agree", CASES)
def test_cohen_matches_scikit_learn_and_statsmodels(seed, k, agree):
    labels = labels_matrix(np.random.default_rng(seed), 150, 2, k, agree)
    table = _table(labels, k)
    ours = _value(table, C.cohen_kappa)
    assert ours == pytest.approx(cohen_kappa_score(labels[:, 0], labels[:, 1]), abs=1e-12)
    contingency = np.zeros((k, k))
    np.add.at(contingency, (labels[:, 0].astype(int), labels[:, 1].astype(int)), 1)
    assert ours == pytest.approx(cohens_kappa(contingency).kappa, abs=1e-12)
    assert _value(table, C.percent_agreement) == pytest.approx(np.mean(labels[:, 0] == labels[:, 1]))


@pytest.mark.parametrize("seed", range(4))
def test_cohen_with_missing_annotations_uses_items_both_rated(seed):
    labels = labels_matrix(np.random.default_rng(seed), 200, 2, 3, 0.7, missing=0.2)
    both = ~np.isnan(labels).any(axis=1)
    expected = cohen_kappa_score(labels[both, 0], labels[both, 1])
    assert _value(_table(labels, 3), C.cohen_kappa) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed,k,agree", CASES)
@pytest.mark.parametrize("raters", [2, 3, 5, 40])  # 40 raters: too wide for the fast pattern keys
def test_fleiss_matches_statsmodels(seed, k, agree, raters):
    labels = labels_matrix(np.random.default_rng(seed), 120, raters, k, agree)
    counts, _ = aggregate_raters(labels.astype(int), n_cat=k)
    assert _value(_table(labels, k), C.fleiss_kappa) == pytest.approx(fleiss_kappa(counts), abs=1e-12)


@pytest.mark.parametrize("seed,k,agree", CASES)
@pytest.mark.parametrize("missing", [0.0, 0.3])
def test_krippendorff_matches_the_krippendorff_package(seed, k, agree, missing):
    labels = labels_matrix(np.random.default_rng(seed), 100, 4, k, agree, missing=missing)
    table = _table(labels, k, ordinal=True)
    data = labels.T  # the package wants raters x units, NaN for missing
    for level, fn in (("nominal", C.krippendorff_alpha), ("ordinal", C.krippendorff_alpha_ordinal)):
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level, value_domain=list(range(k)))
        assert _value(table, fn) == pytest.approx(expected, abs=1e-9), level


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
def test_single_category_is_undefined_where_the_references_are_nan_or_refuse():
    labels = np.zeros((30, 2))
    table = _table(labels, 2)
    assert np.isnan(cohen_kappa_score(labels[:, 0], labels[:, 1], labels=[0.0, 1.0]))
    assert np.isnan(_value(table, C.cohen_kappa))
    with pytest.raises(ValueError):
        krippendorff.alpha(reliability_data=labels.T, level_of_measurement="nominal")
    assert np.isnan(_value(table, C.krippendorff_alpha))
    # Agreement itself is perfect, and the prevalence-free coefficients say so.
    assert _value(table, C.percent_agreement) == 1.0
    assert _value(table, C.gwet_ac1) == 1.0
    assert _value(table, C.pabak) == 1.0
