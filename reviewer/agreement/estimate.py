"""Point estimates with bootstrap intervals, never NaN: undefined is None plus a reason."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from reviewer.agreement.analytic import ANALYTIC
from reviewer.agreement.bootstrap import percentile_intervals, resampled_weights
from reviewer.agreement.coefficients import (
    Coefficient,
    Profile,
    coefficients_for,
    pairable_items,
    undefined_reason,
)
from reviewer.agreement.table import ANY_ERROR, PERSPECTIVE_PREFIX, TAG_PREFIX, RatingTable


@dataclass
class Estimate:
    """One coefficient over one group of items.

    ``value`` is None exactly when the coefficient is undefined, and then
    ``reason`` says why. ``low``/``high`` bound the 95% bootstrap interval;
    they are None when no bootstrap ran or too few resamples were defined,
    and ``ci_note`` says so (or how many resamples were left out).
    ``se`` / ``se_low`` / ``se_high``: irrCAC's analytic standard error and
    95% t interval (reviewer.agreement.analytic), for the coefficients irrCAC
    computes (AC1, PABAK = Brennan-Prediger, nominal Krippendorff's alpha,
    Fleiss, Conger and Cohen in irrCAC's convention); None for the others.
    """

    value: float | None
    n_items: int
    reason: str | None = None
    low: float | None = None
    high: float | None = None
    ci_note: str | None = None
    se: float | None = None
    se_low: float | None = None
    se_high: float | None = None


NO_INTERVAL = "no interval: the value is undefined"

# variable name -> coefficient name -> estimate
GroupStats = dict[str, dict[str, Estimate]]


def is_error_variable(name: str) -> bool:
    return name == ANY_ERROR or name.startswith((TAG_PREFIX, PERSPECTIVE_PREFIX))


def estimate_group(
    tables: dict[str, RatingTable],
    profiles: dict[str, Profile],
    items: np.ndarray | None = None,
    n_resamples: int = 0,
    rng: np.random.Generator | None = None,
) -> GroupStats:
    """Every coefficient of every variable over ``items`` (all items when None).

    With ``n_resamples`` > 0 (and ``rng``), adds percentile intervals from a
    bootstrap over the same items. The coefficients of one variable share its
    resamples; each variable draws its own, one after the other from ``rng``
    (so a seed still fixes every interval). That gives every interval the very
    distribution a shared draw of items would: an interval is the percentiles
    of one coefficient of one variable, a function of that variable's pattern
    counts alone, and those counts are Multinomial(n, the variable's pattern
    shares) whether they are drawn alone or as margins of one joint draw. Only
    a figure combining variables needs them drawn together (``estimate_mean``
    does), and drawing each variable alone costs ~60 binomials a resample
    instead of one per joint pattern (25k at 100k items).
    """
    names = list(tables)
    if n_resamples and rng is not None:
        boot = [resampled_weights([profiles[n]], items, n_resamples, rng)[0] for n in names]
    else:
        boot = [None] * len(names)
    out: GroupStats = {}
    for name, boot_w in zip(names, boot):
        table, prof = tables[name], profiles[name]
        w = prof.item_weights(items)
        n_items = int(pairable_items(prof, w))
        stats = out[name] = {}
        defined = []  # (estimate, its resampled values or None)
        for coef, fn in coefficients_for(table, is_error_variable(name)).items():
            value = float(fn(prof, w))
            if not math.isfinite(value):
                reason = undefined_reason(coef, prof, w, table.categories)
                stats[coef] = Estimate(None, n_items, reason, ci_note=NO_INTERVAL)
                continue
            stats[coef] = est = _with_analytic(Estimate(value, n_items), coef, prof, w)
            defined.append((est, None if boot_w is None else fn(prof, boot_w)))
        _with_intervals(defined)
    return out


def _with_analytic(est: Estimate, coef: str, prof: Profile, w: np.ndarray) -> Estimate:
    """Attach irrCAC's analytic standard error and t interval, where irrCAC defines one."""
    fn = ANALYTIC.get(coef)
    result = fn(prof, w) if fn is not None else None
    if result is not None and math.isfinite(result.se):
        est.se, est.se_low, est.se_high = result.se, result.low, result.high
    return est


def _with_intervals(pairs: list[tuple[Estimate, np.ndarray | None]]) -> None:
    """Attach to each estimate the percentile interval of its resampled values (None: no bootstrap ran).

    The percentiles of all of them are taken in one pass (``percentile_intervals``)."""
    drawn = [(est, resampled) for est, resampled in pairs if resampled is not None]
    intervals = percentile_intervals(np.stack([r for _, r in drawn])) if drawn else []
    for est, resampled in pairs:
        if resampled is None:
            est.ci_note = "no bootstrap"
    for (est, resampled), (low, high, undefined) in zip(drawn, intervals):
        est.low, est.high = low, high
        if est.low is None:
            est.ci_note = f"no interval: only {len(resampled) - undefined} of {len(resampled)} resamples defined"
        elif undefined:
            est.ci_note = f"{undefined} of {len(resampled)} resamples undefined and left out"


def estimate_mean(
    fn: Coefficient,
    profiles: list[Profile],
    n_resamples: int = 0,
    rng: np.random.Generator | None = None,
) -> Estimate:
    """The mean of one coefficient over several (at least one) variables of the same items.

    This is how NesTools forms its final agreement: p averaged over the
    call-chain and the query checks. The interval resamples items once for
    all the variables, so it reflects their correlation. None (with a reason)
    when the coefficient is undefined for any of them.
    """
    n_items = int(pairable_items(profiles[0], profiles[0].item_weights()))
    values = [float(fn(p, p.item_weights())) for p in profiles]
    if not all(math.isfinite(v) for v in values):
        return Estimate(None, n_items, "undefined for at least one of the variables", ci_note=NO_INTERVAL)
    means = None
    if n_resamples and rng is not None:
        boot = resampled_weights(profiles, None, n_resamples, rng)
        means = np.mean([fn(p, w) for p, w in zip(profiles, boot)], axis=0)
    est = Estimate(sum(values) / len(values), n_items)
    _with_intervals([(est, means)])
    return est
