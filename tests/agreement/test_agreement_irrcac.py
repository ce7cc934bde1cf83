"""Coefficients and analytic standard errors against irrCAC (Gwet's own package) with missing, skewed ratings.

irrCAC is called with digits=20 (its default rounds to 5 digits) and with the
table's full category list (AC1 and Brennan-Prediger depend on how many
categories are allowed, not how many were used).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from reviewer.agreement import analytic as A
from reviewer.agreement import coefficients as C
from reviewer.agreement.table import MISSING, RatingTable

irrcac_raw = pytest.importorskip("irrCAC.raw")

N_TABLES = 240
TOL = 1e-9


def generated_tables(n_tables: int = N_TABLES, seed: int = 13):
    """Tables irrCAC and the app both define: >= 2 rated items, one pairable, >= 2 categories, every rater rates.

    Missing rates up to 60% and category shares from a Dirichlet with small
    concentration (skewed: one category often holds > 90% of the ratings).
    """
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n_tables:
        n, r, k = int(rng.integers(6, 80)), int(rng.integers(2, 7)), int(rng.integers(2, 6))
        shares = rng.dirichlet(np.full(k, rng.choice([0.1, 0.3, 1.0, 5.0])))
        codes = rng.choice(k, size=(n, r), p=shares).astype(np.int8)
        # some items are easy (everyone agrees), so agreement is not just chance
        easy = rng.random(n) < rng.uniform(0, 0.8)
        codes[easy] = codes[easy, :1]
        codes[rng.random((n, r)) < rng.choice([0.0, 0.1, 0.3, 0.6])] = MISSING
        present = codes != MISSING
        if (present.sum(axis=1) >= 2).sum() < 1 or present.any(axis=1).sum() < 2 or not present.any(axis=0).all():
            continue
        if len(np.unique(codes[present.sum(axis=1) >= 2][present[present.sum(axis=1) >= 2]])) < 2:
            continue  # one category only: 0/0 (the app says undefined; irrCAC returns rounding noise or raises)
        out.append((codes, k))
    return out


def _profile(codes: np.ndarray, k: int) -> C.Profile:
    table = RatingTable("v", tuple(f"c{c}" for c in range(k)), False, tuple(f"a{j}" for j in range(codes.shape[1])),
                        tuple(str(i) for i in range(len(codes))), codes)
    return C.profile(table)


def _irrcac(codes: np.ndarray, k: int):
    frame = pd.DataFrame(np.where(codes == MISSING, np.nan, codes.astype(float)))
    return irrcac_raw.CAC(frame, categories=[float(c) for c in range(k)], digits=20)


# app coefficient, its analytic SE, irrCAC's method
PAIRS = [
    ("gwet_ac1", C.gwet_ac1, A.gwet_ac1_se, "gwet"),
    ("fleiss_kappa_irrcac", C.fleiss_kappa_irrcac, A.fleiss_kappa_irrcac_se, "fleiss"),
    ("conger_kappa", C.conger_kappa, A.conger_kappa_se, "conger"),
    ("pabak", C.pabak, A.pabak_se, "bp"),
    ("krippendorff_alpha", C.krippendorff_alpha, A.krippendorff_alpha_se, "krippendorff"),
]


def compare_all(tables) -> dict[str, list[int]]:
    """Per coefficient: [compared, equal value, equal SE, equal interval]."""
    figures = {name: [0, 0, 0, 0] for name, *_ in PAIRS} | {"cohen_kappa_irrcac": [0, 0, 0, 0]}
    for codes, k in tables:
        prof, cac = _profile(codes, k), _irrcac(codes, k)
        w = prof.item_weights()
        pairs = PAIRS + ([("cohen_kappa_irrcac", C.cohen_kappa_irrcac, A.cohen_kappa_irrcac_se, "conger")]
                         if codes.shape[1] == 2 else [])
        for name, fn, se_fn, method in pairs:
            ours, analytic = float(fn(prof, w)), se_fn(prof, w)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est = getattr(cac, method)()["est"]
            except ZeroDivisionError:  # irrCAC's variance over one item (alpha uses pairable items only)
                assert analytic is None, name
                continue
            row = figures[name]
            row[0] += 1
            row[1] += abs(ours - est["coefficient_value"]) <= TOL
            row[2] += analytic is not None and abs(analytic.se - est["se"]) <= TOL
            # irrCAC's interval uses scipy's t quantile, which is off by up to ~1e-8 at few degrees of
            # freedom (its own cdf says so); ours is exact to double precision. Compare with that known
            # difference taken out.
            n = w @ (prof.pairable if method == "krippendorff" else prof.rated)
            q_gap = abs(A.t_quantile(0.975, n - 1) - stats.t.ppf(0.975, n - 1)) * (analytic.se if analytic else 0)
            low, high = est["confidence_interval"]
            row[3] += analytic is not None and abs(analytic.low - low) <= TOL + q_gap and abs(
                analytic.high - high) <= TOL + q_gap
    return figures


def test_generated_tables_are_many_missing_and_skewed():
    tables = generated_tables()
    assert len(tables) >= 200
    with_missing = sum((codes == MISSING).any() for codes, _ in tables)
    skewed = sum(np.bincount(codes[codes != MISSING], minlength=k).max() / (codes != MISSING).sum() > 0.8
                 for codes, k in tables)
    assert with_missing >= 150 and skewed >= 40
    assert sum(codes.shape[1] == 2 for codes, _ in tables) >= 30


def test_coefficients_and_standard_errors_equal_irrcac_on_every_table():
    figures = compare_all(generated_tables())
    for name, (compared, value, se, interval) in figures.items():
        assert compared >= 30, name
        assert (value, se, interval) == (compared, compared, compared), (name, figures[name])


def test_old_conventions_differ_with_missing_ratings_and_are_kept_under_their_names():
    """The current Fleiss/Cohen (pooled shares / items both rated) stay; irrCAC's sit beside them."""
    differ_fleiss = differ_cohen = 0
    for codes, k in generated_tables(60, seed=5):
        prof = _profile(codes, k)
        w = prof.item_weights()
        differ_fleiss += abs(float(C.fleiss_kappa(prof, w)) - float(C.fleiss_kappa_irrcac(prof, w))) > 1e-6
        if codes.shape[1] == 2:
            differ_cohen += abs(float(C.cohen_kappa(prof, w)) - float(C.cohen_kappa_irrcac(prof, w))) > 1e-6
    assert differ_fleiss > 20 and differ_cohen > 3
    assert C.LABELS["fleiss_kappa_irrcac"] != C.LABELS["fleiss_kappa"]
    assert C.LABELS["conger_kappa"] == "Conger's kappa"


def test_complete_data_conventions_agree():
    codes, k = next((c, k) for c, k in generated_tables(50, seed=3) if not (c == MISSING).any())
    prof = _profile(codes, k)
    w = prof.item_weights()
    assert float(C.fleiss_kappa(prof, w)) == pytest.approx(float(C.fleiss_kappa_irrcac(prof, w)), abs=1e-12)


@pytest.mark.parametrize("df", [1, 2, 3, 5, 9, 30, 200, 5000])
def test_t_quantile_is_accurate_where_scipy_ppf_is_not(df):
    """scipy's own cdf at ppf(0.975, 7) misses 0.975 by 2e-11; ours by less than 1e-13 (1e-15 at small df)."""
    q = A.t_quantile(0.975, df)
    assert stats.t.cdf(q, df) == pytest.approx(0.975, abs=1e-15 if df < 100 else 1e-13)
    assert q == pytest.approx(stats.t.ppf(0.975, df), rel=1e-8)
    assert A.t_cdf(-q, df) == pytest.approx(0.025, abs=1e-15 if df < 100 else 1e-13)


def test_undefined_coefficient_has_no_standard_error():
    codes = np.array([[0, 0], [0, 0], [0, MISSING]], dtype=np.int8)
    prof = _profile(codes, 2)
    assert math.isnan(float(C.fleiss_kappa_irrcac(prof, prof.item_weights())))
    assert A.fleiss_kappa_irrcac_se(prof, prof.item_weights()) is None


def test_report_with_missing_ratings_shows_irrcac_figures_in_every_format():
    """What `reviewer agree` prints (render_text), the CSV and the JSON carry irrCAC's values and SEs."""
    import json

    from reviewer.agreement.render import render_csv, render_json, render_text
    from reviewer.agreement.report import build_report
    from reviewer.agreement.table import build_rating_set

    from .factories import random_review

    ratings = random_review(70, annotators=("a", "b", "c"), seed=4, missing=0.3)
    report = build_report(ratings, bootstrap=50, seed=1)
    table = build_rating_set(ratings).tables["verdict"]
    assert (table.codes == MISSING).any()
    frame = pd.DataFrame(np.where(table.codes == MISSING, np.nan, table.codes.astype(float)))
    cac = irrcac_raw.CAC(frame, categories=[float(c) for c in range(len(table.categories))], digits=20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = {"gwet_ac1": cac.gwet()["est"], "fleiss_kappa_irrcac": cac.fleiss()["est"],
                    "conger_kappa": cac.conger()["est"]}
    verdict = report.overall["verdict"]
    for coef, est in expected.items():
        assert verdict[coef].value == pytest.approx(est["coefficient_value"], abs=TOL)
        assert verdict[coef].se == pytest.approx(est["se"], abs=TOL)
        assert verdict[coef].low is not None  # the bootstrap interval stays beside the analytic one
    assert "cohen_kappa_irrcac" not in verdict  # three annotators: Conger's kappa is the irrCAC figure
    text = render_text(report)
    assert "Analytic standard errors (irrCAC)" in text
    ac1_line = next(line for line in text.splitlines() if line.startswith("verdict") and "Gwet's AC1" in line)
    assert f"{verdict['gwet_ac1'].se:.4f}" in ac1_line and f"{verdict['gwet_ac1'].se_low:.3f}" in ac1_line
    assert "Conger's kappa" in text and "Fleiss' kappa (irrCAC)" in text
    header, *rows = render_csv(report).splitlines()
    assert header.endswith(",se,se_ci_low,se_ci_high")
    assert all(len(r.split(",")) >= 13 for r in rows if '"' not in r)
    data = json.loads(render_json(report))
    assert data["overall"]["verdict"]["conger_kappa"]["se"] == pytest.approx(expected["conger_kappa"]["se"], abs=TOL)
