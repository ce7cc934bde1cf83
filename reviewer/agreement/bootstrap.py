"""Bootstrap over items: seeded, reproducible and independent of the number of items.

A resample draws as many items as there are, with replacement; all that the
coefficients need of it is how many times each rating *pattern* was drawn.
Those counts are multinomial: drawing n items uniformly with replacement and
counting them by pattern gives Multinomial(n, p) with p the patterns' shares
of the items -- exactly, not approximately (each draw lands on a pattern
independently with its share as probability; n independent categorical draws
counted are the multinomial by definition). So we draw the counts directly
with ``Generator.multinomial``: the cost grows with the number of patterns
and resamples, not with the number of items (the draws of item indices it
replaces cost 4 * 10^8 random numbers for a 100k-item report).

Which counts are drawn jointly: ``resampled_weights`` draws one multinomial
over the *joint* patterns of the profiles it is given (an item's pattern in
each of them at once), so the profiles share one resample of the items --
needed where a figure combines variables (NesTools' mean over perspectives).
``estimate_group`` draws each variable on its own (see there): every figure
it reports is one variable's, and a variable's counts have the same
distribution either way, while the joint patterns of a review's 13 or more variables are
nearly as many as the items.

Reproducible: the same seed gives the same counts on every machine running
the same NumPy version (Generator.multinomial is C code over the PCG64
stream). One caveat the old integer draws did not have: its binomial
sampler uses the C library's exp and log, so a platform whose libm rounds
differently could in principle change a draw; the report hashes pinned in
tests/agreement/test_agreement_same_results.py would show it.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np

from reviewer.agreement.coefficients import Profile

CONFIDENCE = 0.95


def rng_for(seed: int, label: str) -> np.random.Generator:
    """An independent, reproducible generator per group (``hash()`` is salted; crc32 is not)."""
    return np.random.default_rng([seed, zlib.crc32(label.encode("utf-8"))])


def resampled_weights(
    profiles: Sequence[Profile],
    items: np.ndarray | None,
    n_resamples: int,
    rng: np.random.Generator,
) -> list[np.ndarray]:
    """Per profile, the pattern counts of each resample: arrays of shape (n_resamples, patterns).

    One resample of the items is shared by all ``profiles`` (their joint
    pattern counts are drawn). ``items`` restricts resampling to those item
    indices (a breakdown group). Each row sums to the number of items.
    """
    inverses = [p.inverse if items is None else p.inverse[items] for p in profiles]
    n = len(inverses[0]) if inverses else 0
    widths = [p.n_patterns for p in profiles]
    if not (n and n_resamples):
        return [np.zeros((n_resamples, w)) for w in widths]
    if len(profiles) == 1:  # a profile's patterns are already its joint patterns
        return [_multinomial(np.bincount(inverses[0], minlength=widths[0]), n, n_resamples, rng)]
    joint, members = joint_patterns(inverses, widths)
    counts = _multinomial(np.bincount(joint, minlength=len(members)), n, n_resamples, rng)
    # float64 products of whole counts are exact far beyond any review's size.
    out = counts @ members.astype(np.float64)
    return np.split(out, np.cumsum(widths)[:-1], axis=1)


def _multinomial(observed: np.ndarray, n: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """``n_resamples`` draws of Multinomial(n, observed / n), as float64 (rows sum to n exactly)."""
    return rng.multinomial(n, observed / n, size=n_resamples).astype(np.float64)


def joint_patterns(inverses: Sequence[np.ndarray], widths: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Each item's *joint* pattern (its pattern in every variable at once) and what each joint pattern is.

    Returns ``(joint, members)``: ``joint[i]`` indexes the joint pattern of item i;
    ``members`` (joint patterns x sum of widths) is the one-hot of the variables'
    patterns each joint pattern stands for. A resample's pattern counts are then
    its joint-pattern counts times ``members``.
    """
    n = len(inverses[0])
    joint = np.zeros(n, dtype=np.int64)
    size = 1
    for inv, width in zip(inverses, widths):
        if size * width >= 2**62:  # compact before the mixed-radix key would overflow
            _, joint = np.unique(joint, return_inverse=True)
            joint = joint.reshape(-1).astype(np.int64)
            size = int(joint.max()) + 1
        joint = joint * width + inv
        size *= width
    _, first, joint = np.unique(joint, return_index=True, return_inverse=True)
    joint = joint.reshape(-1)
    members = np.zeros((len(first), sum(widths)), dtype=np.float32)
    rows = np.arange(len(first))
    offset = 0
    for inv, width in zip(inverses, widths):
        members[rows, offset + inv[first]] = 1.0
        offset += width
    return joint.astype(np.int64), members


_TAIL = (1.0 - CONFIDENCE) / 2 * 100  # percent


def percentile_interval(values: np.ndarray) -> tuple[float | None, float | None, int]:
    """The central CONFIDENCE percentile interval of the finite values, and how many were undefined."""
    finite = values[np.isfinite(values)]
    undefined = len(values) - len(finite)
    if len(finite) < 2:
        return None, None, undefined
    low, high = np.percentile(finite, [_TAIL, 100 - _TAIL])
    return float(low), float(high), undefined


def percentile_intervals(rows: np.ndarray) -> list[tuple[float | None, float | None, int]]:
    """``percentile_interval`` of every row of a 2-D array, to the last bit, in one pass.

    A report takes ~1,100 intervals, and np.percentile's per-call overhead was
    a fifth of a breakdown group's time; its 2-D form (axis=1) rounds some
    values one unit in the last place differently from the 1-D form the
    pinned reports were computed with. So rows whose values are all finite
    (nearly all) are sorted at once and interpolated here exactly as
    np.percentile's 1-D "linear" method does: virtual index (n - 1) * q,
    a + (b - a) * g below g = 0.5 and b - (b - a) * (1 - g) from it on
    (tests/agreement/test_agreement_bootstrap.py compares them bit for bit).
    Other rows go through ``percentile_interval``.
    """
    rows = np.asarray(rows, dtype=np.float64)
    out: list[tuple[float | None, float | None, int]] = [(None, None, 0)] * len(rows)
    n = rows.shape[1] if rows.ndim == 2 else 0
    finite = np.isfinite(rows).all(axis=1) if n >= 2 else np.zeros(len(rows), dtype=bool)
    for i in np.flatnonzero(~finite):
        out[i] = percentile_interval(rows[i])
    if finite.any():
        ordered = np.sort(rows[finite], axis=1)
        virtual = (n - 1) * np.true_divide(np.array([_TAIL, 100 - _TAIL]), 100)
        below = np.floor(virtual).astype(np.intp)
        gamma = virtual - below
        a, b = ordered[:, below], ordered[:, np.minimum(below + 1, n - 1)]
        diff = b - a
        ends = np.where(gamma >= 0.5, b - diff * (1 - gamma), a + diff * gamma)
        for i, (low, high) in zip(np.flatnonzero(finite).tolist(), ends.tolist()):
            out[i] = (low, high, 0)
    return out
