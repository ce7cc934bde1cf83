"""Bootstrap over items: seeded, reproducible and vectorised.

A resample draws as many items as there are, with replacement. Instead of
recomputing each coefficient per resample, we count how often each rating
pattern occurs in each resample -- one bincount of the drawn items' joint
patterns (their pattern in every variable at once; there are few), times a
one-hot of what each joint pattern stands for (all variables side by side) --
and hand those counts to the vectorised coefficients. All variables of one group share the
same resampled items, as a bootstrap of the whole review should.
"""

from __future__ import annotations

import contextlib
import zlib
from collections.abc import Sequence

import numpy as np

try:  # Listed as a runtime dependency; without it the bootstrap is only slower.
    from threadpoolctl import threadpool_limits
except ImportError:  # pragma: no cover
    threadpool_limits = None

from reviewer.agreement.coefficients import Profile

# Resamples drawn per block, at most BLOCK and at most MAX_DRAWS indices
# (16 MB of int64) at once. The block depends only on the number of items,
# so the same seed gives the same draws on every machine.
BLOCK = 256
MAX_DRAWS = 2**21
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

    ``items`` restricts resampling to those item indices (a breakdown group).
    """
    inverses = [p.inverse if items is None else p.inverse[items] for p in profiles]
    n = len(inverses[0]) if inverses else 0
    widths = [p.n_patterns for p in profiles]
    out = np.zeros((n_resamples, sum(widths)), dtype=np.float32)
    if n and n_resamples:
        joint, members = joint_patterns(inverses, widths)
        with _single_threaded_blas():
            _fill(out, joint, members, n, n_resamples, rng)
    splits = np.cumsum(widths)[:-1]
    return [part.astype(np.float64) for part in np.split(out, splits, axis=1)]


def joint_patterns(inverses: Sequence[np.ndarray], widths: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Each item's *joint* pattern (its pattern in every variable at once) and what each joint pattern is.

    Returns ``(joint, members)``: ``joint[i]`` indexes the joint pattern of item i;
    ``members`` (joint patterns x sum of widths) is the one-hot of the variables'
    patterns each joint pattern stands for. A resample's pattern counts are then
    its joint-pattern counts times ``members`` -- a review has far fewer joint
    patterns than items, so counting them is much cheaper than counting items.
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
    if 2 * len(first) > n:  # nearly every item its own pattern (small groups): count items directly
        first = joint = np.arange(n)
    members = np.zeros((len(first), sum(widths)), dtype=np.float32)
    rows = np.arange(len(first))
    offset = 0
    for inv, width in zip(inverses, widths):
        members[rows, offset + inv[first]] = 1.0
        offset += width
    return joint.astype(np.int64), members


def _single_threaded_blas():
    """The products here are small; on a busy 2-core machine a multi-threaded
    BLAS spends more time waking its threads than multiplying (measured
    0.15 s single-threaded against 0.4-2 s for the same bootstrap)."""
    return threadpool_limits(1, user_api="blas") if threadpool_limits else contextlib.nullcontext()


def _fill(
    out: np.ndarray,
    joint: np.ndarray,
    members: np.ndarray,
    n: int,
    n_resamples: int,
    rng: np.random.Generator,
) -> None:
    """Write each resample's pattern counts into ``out``, one block of resamples at a time.

    The draws (item indices, uniform with replacement) are the same as ever for
    a seed; each drawn item is mapped to its joint pattern and the joint patterns
    counted in one bincount per block, so nothing per item is multiplied.
    """
    n_joint = len(members)
    step = max(1, min(BLOCK, MAX_DRAWS // n))
    # The joint pattern of each item in the narrowest integer type that holds it (the
    # gather below moves a quarter of int64's bytes), and each resample's row counted
    # on its own (no offset pass): the same counts, 7% less CPU for the 9 stratum
    # groups of a 100k review (2.36 s against 2.54 s, median of 2).
    joint = joint.astype(_narrowest(n_joint))
    counts = np.empty((step, n_joint), dtype=np.int64)
    for start in range(0, n_resamples, step):
        block = min(step, n_resamples - start)
        # uint32 draws are the very same numbers as the default int64 ones, drawn faster.
        drawn = rng.integers(0, n, size=(block, n), dtype=np.uint32)
        keys = np.take(joint, drawn)
        for row in range(block):
            counts[row] = np.bincount(keys[row], minlength=n_joint)
        # float32 counts are exact up to 2**24 items, far beyond a review's size.
        out[start : start + block] = counts[:block].astype(np.float32) @ members


def _narrowest(n_values: int) -> type:
    """The smallest unsigned integer type holding 0 .. n_values - 1."""
    for kind in (np.uint8, np.uint16, np.uint32):
        if n_values <= np.iinfo(kind).max + 1:
            return kind
    return np.int64


def percentile_interval(values: np.ndarray) -> tuple[float | None, float | None, int]:
    """The central CONFIDENCE percentile interval of the finite values, and how many were undefined."""
    finite = values[np.isfinite(values)]
    undefined = len(values) - len(finite)
    if len(finite) < 2:
        return None, None, undefined
    tail = (1.0 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(finite, [tail, 100 - tail])
    return float(low), float(high), undefined
