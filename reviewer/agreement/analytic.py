"""Analytic standard errors and t intervals of agreement coefficients, as irrCAC computes them.

Gwet's linearisation (Gwet 2008; Handbook of Inter-Rater Reliability, ch. 5):
each rated item i gets a value c_i whose mean is the coefficient, corrected
for the estimated chance agreement; the variance is
``sum_i (c_i - coef)^2 / (n (n - 1))`` over the n items with at least one
rating (an infinite population: irrCAC's default ``N = inf``); the interval is
``coef +- t_{n-1, 0.975} * se`` with the upper end capped at 1, as irrCAC does.
A zero standard error is 1e-15 in irrCAC; here it is 0 and the interval is the
point. Transcribed from irrCAC 0.4.4 ``irrCAC/raw.py`` (identity weights:
the nominal coefficients this app reports), checked against it in
tests/agreement/test_agreement_irrcac.py.

Every function takes a Profile and 1-D pattern weights and returns the
coefficient's (se, low, high), or None where the coefficient is undefined.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from reviewer.agreement.coefficients import (
    Profile,
    annotator_shares,
    conger_chance,
    mean_item_shares,
    percent_agreement,
    rated_items,
)

CONFIDENCE = 0.95


@dataclass(frozen=True)
class Analytic:
    se: float
    low: float
    high: float


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the regularised incomplete beta function (Lentz's method)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """Student's t distribution function."""
    tail = 0.5 * _betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


@functools.lru_cache(maxsize=256)
def t_quantile(p: float, df: float) -> float:
    """Student's t quantile by bisection on ``t_cdf`` (to double precision).

    Cached: a report asks for the same (p, df) once per coefficient and
    variable -- every variable of a group has the same number of items --
    and each bisection costs ~10 ms.
    """
    lo, hi = -1.0, 1.0
    while t_cdf(lo, df) > p:
        lo *= 2.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-15 * max(1.0, abs(mid)):
            break
    return (lo + hi) / 2.0


def _interval(coef: float, item_values: np.ndarray, w: np.ndarray, n: float) -> Analytic | None:
    """irrCAC's variance of a linearised coefficient and its t interval (df n - 1)."""
    if n < 2 or not math.isfinite(coef):
        return None
    var = float(w @ (item_values - coef) ** 2) / (n * (n - 1))
    se = math.sqrt(var)
    half = t_quantile(0.5 + CONFIDENCE / 2.0, n - 1) * se
    return Analytic(se, coef - half, min(1.0, coef + half))


def _common(p: Profile, w: np.ndarray):
    """n (rated items), n2 (pairable items), each pattern's p_a,i and the pairable indicator."""
    n = float(rated_items(p, w))
    n2 = float(p.pairable @ w)
    return n, n2, p.pair_agreement, p.pairable


def _linearised(p: Profile, w: np.ndarray, coef: float, pe: float, pe_items: np.ndarray) -> Analytic | None:
    n, n2, pa_i, pairable = _common(p, w)
    if n2 == 0 or not math.isfinite(pe) or abs(1.0 - pe) < 1e-12:
        return None
    c_i = (n / n2) * (pa_i - pe * pairable) / (1.0 - pe)
    c_ix = c_i - 2.0 * (1.0 - coef) * (pe_items - pe) / (1.0 - pe)
    # items without ratings are not items for irrCAC (it drops them first)
    return _interval(coef, np.where(p.rated > 0, c_ix, coef), w, n)


def gwet_ac1_se(p: Profile, w: np.ndarray) -> Analytic | None:
    """irrCAC ``CAC.gwet()`` (identity weights): pe_i = sum_k r_ik (1 - pi_k) / (r_i (q - 1))."""
    q = p.n_categories
    pi = mean_item_shares(p, w)
    pe = float((pi * (1.0 - pi)).sum() / (q - 1))
    pa = float(percent_agreement(p, w))
    coef = (pa - pe) / (1.0 - pe) if abs(1.0 - pe) > 1e-12 else math.nan
    pe_items = (p.shares @ (1.0 - pi)) / (q - 1)
    return _linearised(p, w, coef, pe, pe_items)


def fleiss_kappa_irrcac_se(p: Profile, w: np.ndarray) -> Analytic | None:
    """irrCAC ``CAC.fleiss()`` (identity weights): pe_i = sum_k r_ik pi_k / r_i."""
    pi = mean_item_shares(p, w)
    pe = float((pi**2).sum())
    pa = float(percent_agreement(p, w))
    coef = (pa - pe) / (1.0 - pe) if abs(1.0 - pe) > 1e-12 else math.nan
    return _linearised(p, w, coef, pe, p.shares @ pi)


def pabak_se(p: Profile, w: np.ndarray) -> Analytic | None:
    """irrCAC ``CAC.bp()`` (Brennan-Prediger = PABAK, pe = 1/q): no chance-agreement term per item."""
    q = p.n_categories
    pe = 1.0 / q
    coef = (float(percent_agreement(p, w)) - pe) / (1.0 - pe)
    n, n2, pa_i, pairable = _common(p, w)
    if n2 == 0:
        return None
    c_i = (n / n2) * (pa_i - pe * pairable) / (1.0 - pe)
    return _interval(coef, np.where(p.rated > 0, c_i, coef), w, n)


def conger_kappa_se(p: Profile, w: np.ndarray) -> Analytic | None:
    """irrCAC ``CAC.conger()`` (identity weights), over the annotators who rated anything.

    lambda_ig = sum_k (n / n_g) (delta_igk - (e_ig - n_g / n) p_gk) (sum_h p_hk - p_gk),
    pe_i = sum_g lambda_ig / (r (r - 1)); e_ig = 1 where annotator g rated item i.
    """
    shares, active = annotator_shares(p, w)
    shares, r = shares[active], int(active.sum())
    if r < 2:
        return None
    pe = float(conger_chance(p, w))
    pa = float(percent_agreement(p, w))
    coef = (pa - pe) / (1.0 - pe) if abs(1.0 - pe) > 1e-12 else math.nan
    n = float(rated_items(p, w))
    k = p.n_categories
    cells = p.annotator_cells.reshape(len(w), p.n_annotators, k)[:, active, :]  # delta_igk, (P, r, k)
    rated_by = cells.sum(axis=-1)  # e_ig
    n_g = w @ rated_by  # (r,)
    totals = shares.sum(axis=0)  # sum_h p_hk, (k,)
    lam = (n / n_g)[None, :, None] * (cells - (rated_by - n_g / n)[:, :, None] * shares[None]) \
        * (totals[None, None, :] - shares[None])
    pe_items = lam.sum(axis=(1, 2)) / (r * (r - 1))
    return _linearised(p, w, coef, pe, pe_items)


def krippendorff_alpha_se(p: Profile, w: np.ndarray) -> Analytic | None:
    """irrCAC ``CAC.krippendorff()`` (identity weights: the nominal alpha), over items with two or more ratings.

    With rbar the mean number of ratings: pa' = mean_i sum_k r_ik (r_ik - 1) / (rbar (r_i - 1)),
    pi_k = mean_i r_ik / rbar, pe = sum pi_k^2; the linearised values use alpha' = (pa' - pe) / (1 - pe).
    """
    keep = (p.pairable > 0) & (w > 0)
    wk, counts = w[keep], p.counts[keep]
    n = float(wk.sum())
    if n < 2:
        return None
    r_i = counts.sum(axis=1)
    r_mean = float(wk @ r_i) / n
    eps = 1.0 / float(wk @ r_i)
    sum_q = (counts * (counts - 1.0)).sum(axis=1)
    pa_prime = float(wk @ (sum_q / (r_mean * (r_i - 1.0)))) / n
    pa = (1.0 - eps) * pa_prime + eps
    pi = (wk @ counts) / (n * r_mean)
    pe = float((pi**2).sum())
    if abs(1.0 - pe) < 1e-12:
        return None
    alpha, alpha_prime = (pa - pe) / (1.0 - pe), (pa_prime - pe) / (1.0 - pe)
    pa_i = sum_q / (r_mean * (r_i - 1.0)) - pa * (r_i - r_mean) / r_mean
    k_i = (pa_i - pe) / (1.0 - pe)
    pe_i = (counts @ pi) / r_mean - pe * (r_i - r_mean) / r_mean
    k_ix = k_i - 2.0 * (1.0 - alpha_prime) * (pe_i - pe) / (1.0 - pe)
    se = math.sqrt(float(wk @ (k_ix - alpha_prime) ** 2) / (n * (n - 1)))
    half = t_quantile(0.5 + CONFIDENCE / 2.0, n - 1) * se
    return Analytic(se, alpha - half, min(1.0, alpha + half))


def cohen_kappa_irrcac_se(p: Profile, w: np.ndarray) -> Analytic | None:
    return conger_kappa_se(p, w) if p.n_annotators == 2 else None


ANALYTIC = {
    "gwet_ac1": gwet_ac1_se,
    "fleiss_kappa_irrcac": fleiss_kappa_irrcac_se,
    "conger_kappa": conger_kappa_se,
    "cohen_kappa_irrcac": cohen_kappa_irrcac_se,
    "pabak": pabak_se,
    "krippendorff_alpha": krippendorff_alpha_se,
}
