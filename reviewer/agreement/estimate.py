"""Point estimates with bootstrap intervals, never NaN: undefined is None plus a reason."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from reviewer.agreement.bootstrap import percentile_interval, resampled_weights
from reviewer.agreement.coefficients import Profile, coefficients_for, pairable_items, undefined_reason
from reviewer.agreement.table import ANY_ERROR, TAG_PREFIX, RatingTable


@dataclass
class Estimate:
    """One coefficient over one group of items.

    ``value`` is None exactly when the coefficient is undefined, and then
    ``reason`` says why. ``low``/``high`` bound the 95% bootstrap interval;
    they are None when no bootstrap ran or too few resamples were defined,
    and ``ci_note`` says so (or how many resamples were left out).
    """

    value: float | None
    n_items: int
    reason: str | None = None
    low: float | None = None
    high: float | None = None
    ci_note: str | None = None


# variable name -> coefficient name -> estimate
GroupStats = dict[str, dict[str, Estimate]]


def is_error_variable(name: str) -> bool:
    return name == ANY_ERROR or name.startswith(TAG_PREFIX)


def estimate_group(
    tables: dict[str, RatingTable],
    profiles: dict[str, Profile],
    items: np.ndarray | None = None,
    n_resamples: int = 0,
    rng: np.random.Generator | None = None,
) -> GroupStats:
    """Every coefficient of every variable over ``items`` (all items when None).

    With ``n_resamples`` > 0 (and ``rng``), adds percentile intervals from a
    bootstrap over the same items, shared by all variables.
    """
    names = list(tables)
    boot = (
        resampled_weights([profiles[n] for n in names], items, n_resamples, rng)
        if n_resamples and rng is not None
        else [None] * len(names)
    )
    out: GroupStats = {}
    for name, boot_w in zip(names, boot):
        table, prof = tables[name], profiles[name]
        w = prof.item_weights(items)
        n_items = int(pairable_items(prof, w))
        stats = out[name] = {}
        for coef, fn in coefficients_for(table, is_error_variable(name)).items():
            value = float(fn(prof, w))
            if not math.isfinite(value):
                reason = undefined_reason(coef, prof, w, table.categories)
                stats[coef] = Estimate(None, n_items, reason, ci_note="no interval: the value is undefined")
                continue
            est = stats[coef] = Estimate(value, n_items)
            if boot_w is None:
                est.ci_note = "no bootstrap"
                continue
            est.low, est.high, undefined = percentile_interval(fn(prof, boot_w))
            if est.low is None:
                est.ci_note = f"no interval: only {n_resamples - undefined} of {n_resamples} resamples defined"
            elif undefined:
                est.ci_note = f"{undefined} of {n_resamples} resamples undefined and left out"
    return out
