"""Agreement coefficients, computed from item weights so that they vectorise.

An item's contribution to every coefficient depends only on its *pattern*:
the tuple of codes its annotators gave. ``profile`` reduces a table to its
distinct patterns and their sufficient statistics; each coefficient then takes
a weight array ``w`` of shape (..., patterns) -- how many times each pattern
is counted -- and returns shape (...). The point estimate uses the observed
pattern counts; the bootstrap passes one row of counts per resample and gets
every resample's value in a single array operation.

Undefined values (no item rated twice, a single category used by everyone)
come back as NaN here; ``reviewer.agreement.estimate`` turns them into None
with a reason before anything is shown.

Conventions (stated because the literature varies):
- Only items with at least two ratings ("pairable" items) count.
- Percent agreement is the share of agreeing annotator pairs within an item,
  averaged over items (for two annotators: the share of items they agree on).
- Fleiss' kappa with a varying number of annotators per item uses each item's
  pairwise agreement and category proportions over all pairable ratings
  (equal to Fleiss 1971 when every item has the same number of ratings).
  ``fleiss_kappa_irrcac`` is irrCAC's convention beside it: chance agreement
  from the category shares of each item averaged over EVERY rated item (items
  with a single rating included). Both agree on complete data.
- Gwet's AC1 and PABAK use the number of *allowed* categories, not the
  number observed; AC1's category shares pi_c are each item's shares averaged
  over every rated item, as irrCAC (Gwet's package) computes them; agreement
  p_a over items with two or more ratings.
- Cohen's kappa is over the items both annotators rated (marginals from those
  items). ``cohen_kappa_irrcac`` is irrCAC's convention for two annotators with
  missing ratings: Conger's kappa, each annotator's marginals over every item
  they rated. ``conger_kappa`` is Conger (1980) for any number of annotators.
- Krippendorff's alpha follows Krippendorff (2011), coincidence matrix
  method; the ordinal metric uses the category order of the table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from reviewer.agreement.table import MISSING, RatingTable

# 1 - expected agreement below this is treated as zero: floating sums of
# proportions that are exactly 1 in theory can miss it by a few ulps.
_EPS = 1e-12


@dataclass(frozen=True)
class Profile:
    """The distinct rating patterns of one table and what each contributes."""

    n_categories: int
    ordinal: bool
    n_annotators: int
    patterns: np.ndarray  # (P, annotators) the distinct code rows
    inverse: np.ndarray  # (items,) pattern index of every item
    counts: np.ndarray  # (P, k) annotators choosing each category
    pairable: np.ndarray  # (P,) 1.0 where the pattern has two or more ratings
    pair_agreement: np.ndarray  # (P,) share of agreeing annotator pairs (0 if unpairable)
    unanimous: np.ndarray  # (P,) 1.0 where pairable and all ratings equal
    coincidence: np.ndarray  # (P, k*k) Krippendorff's coincidences of one item
    cohen_cells: np.ndarray | None  # (P, k*k) one-hot joint cell, only for two annotators
    rated: np.ndarray | None = None  # (P,) 1.0 where the pattern has at least one rating
    shares: np.ndarray | None = None  # (P, k) each category's share of the pattern's ratings (0 if unrated)
    annotator_cells: np.ndarray | None = None  # (P, annotators*k) one-hot of each annotator's code

    @property
    def n_patterns(self) -> int:
        return len(self.pairable)

    def item_weights(self, items: np.ndarray | None = None) -> np.ndarray:
        """Pattern counts over all items, or over the given item indices."""
        inv = self.inverse if items is None else self.inverse[items]
        return np.bincount(inv, minlength=self.n_patterns).astype(np.float64)


def distinct_rows(codes: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a code matrix and each row's index among them.

    Rows are read as numbers in base k + 1 when they fit in 62 bits: a
    1-D ``np.unique`` is an order of magnitude faster than ``axis=0``.
    """
    n_items, width = codes.shape
    if not n_items:
        return np.zeros((0, width), codes.dtype), np.zeros(0, np.intp)
    if width and width * np.log2(k + 1) < 62:
        keys = (codes.astype(np.int64) + 1) @ ((k + 1) ** np.arange(width, dtype=np.int64))
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        return codes[first], inverse.reshape(-1)
    patterns, inverse = np.unique(codes, axis=0, return_inverse=True)
    return patterns, inverse.reshape(-1)


def profile(table: RatingTable) -> Profile:
    """Reduce a table to its distinct patterns (cheap: there are few)."""
    k = len(table.categories)
    n_annotators = table.codes.shape[1]
    patterns, inverse = distinct_rows(table.codes, k)
    present = patterns != MISSING
    counts = np.stack([(patterns == c).sum(axis=1) for c in range(k)], axis=1).astype(np.float64)
    raters = present.sum(axis=1).astype(np.float64)
    pairable = (raters >= 2).astype(np.float64)
    pairs = raters * (raters - 1)
    safe_pairs = np.where(pairable > 0, pairs, 1.0)
    pair_agreement = pairable * (counts * (counts - 1)).sum(axis=1) / safe_pairs
    unanimous = pairable * (counts.max(axis=1, initial=0) == raters)
    # Krippendorff: each ordered pair of values within a unit adds 1/(m_u - 1).
    outer = counts[:, :, None] * counts[:, None, :] - np.eye(k)[None] * counts[:, :, None]
    coincidence = (pairable / np.where(pairable > 0, raters - 1, 1.0))[:, None, None] * outer
    cohen = None
    if n_annotators == 2:
        both = present.all(axis=1)
        cell = np.where(both, patterns[:, 0].astype(np.intp) * k + patterns[:, 1], 0)
        cohen = np.zeros((len(patterns), k * k))
        cohen[np.arange(len(patterns)), cell] = both
    rated = (raters >= 1).astype(np.float64)
    shares = counts / np.where(raters > 0, raters, 1.0)[:, None]
    annotator_cells = (patterns[:, :, None] == np.arange(k)[None, None, :]).astype(np.float64)
    return Profile(
        n_categories=k,
        ordinal=table.ordinal,
        n_annotators=n_annotators,
        patterns=patterns,
        inverse=inverse,
        counts=counts,
        pairable=pairable,
        pair_agreement=pair_agreement,
        unanimous=unanimous.astype(np.float64),
        coincidence=coincidence.reshape(len(patterns), k * k),
        cohen_cells=cohen,
        rated=rated,
        shares=shares,
        annotator_cells=annotator_cells.reshape(len(patterns), n_annotators * k),
    )


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, NaN where den is (numerically) zero."""
    num, den = np.broadcast_arrays(np.asarray(num, float), np.asarray(den, float))
    out = np.full(num.shape, np.nan)
    ok = np.abs(den) > _EPS
    np.divide(num, den, out=out, where=ok)
    return out


def _chance_corrected(observed: np.ndarray, expected: np.ndarray) -> np.ndarray:
    return _ratio(observed - expected, 1.0 - expected)


def pairable_items(p: Profile, w: np.ndarray) -> np.ndarray:
    """How many items have two or more ratings."""
    return w @ p.pairable


def percent_agreement(p: Profile, w: np.ndarray) -> np.ndarray:
    """Mean share of agreeing annotator pairs per item (raw agreement)."""
    return _ratio(w @ p.pair_agreement, pairable_items(p, w))


def unanimous_agreement(p: Profile, w: np.ndarray) -> np.ndarray:
    """NesTools' p = (N_T + N_F) / N (paper 004, Appendix A.4).

    Over an error/no-error variable, N_T counts items every annotator found
    error-free, N_F items every annotator found erroneous, N the items rated
    by at least two annotators. With two annotators it equals percent agreement.
    """
    return _ratio(w @ p.unanimous, pairable_items(p, w))


def pabak(p: Profile, w: np.ndarray) -> np.ndarray:
    """Prevalence- and bias-adjusted kappa, (k * p_o - 1) / (k - 1) for k allowed categories."""
    k = p.n_categories
    return (k * percent_agreement(p, w) - 1.0) / (k - 1)


def cohen_kappa(p: Profile, w: np.ndarray) -> np.ndarray:
    """Cohen's kappa of exactly two annotators over the items both rated."""
    if p.cohen_cells is None:
        return np.full(np.shape(w)[:-1], np.nan)
    k = p.n_categories
    table = (w @ p.cohen_cells).reshape(*np.shape(w)[:-1], k, k)
    n = table.sum(axis=(-1, -2))
    observed = _ratio(np.trace(table, axis1=-2, axis2=-1), n)
    rows = _ratio(table.sum(axis=-1), n[..., None])
    cols = _ratio(table.sum(axis=-2), n[..., None])
    return _chance_corrected(observed, (rows * cols).sum(axis=-1))


def category_shares(p: Profile, w: np.ndarray) -> np.ndarray:
    """Share of each category among all ratings of pairable items, shape (..., k)."""
    per_category = w @ (p.counts * p.pairable[:, None])
    return _ratio(per_category, per_category.sum(axis=-1, keepdims=True))


def fleiss_kappa(p: Profile, w: np.ndarray) -> np.ndarray:
    """Fleiss' kappa (1971), generalised to a varying number of ratings per item."""
    expected = (category_shares(p, w) ** 2).sum(axis=-1)
    return _chance_corrected(percent_agreement(p, w), expected)


def rated_items(p: Profile, w: np.ndarray) -> np.ndarray:
    """How many items have at least one rating."""
    return w @ p.rated


def mean_item_shares(p: Profile, w: np.ndarray) -> np.ndarray:
    """pi_c: each item's category shares averaged over every rated item (irrCAC), shape (..., k)."""
    return _ratio(w @ p.shares, rated_items(p, w)[..., None])


def gwet_ac1(p: Profile, w: np.ndarray) -> np.ndarray:
    """Gwet's AC1 as irrCAC computes it: chance agreement sum(pi_c (1 - pi_c)) / (k - 1).

    pi_c = ``mean_item_shares`` (over every rated item, single ratings included);
    p_a = percent agreement over items with two or more ratings.
    """
    k = p.n_categories
    pi = mean_item_shares(p, w)
    expected = (pi * (1.0 - pi)).sum(axis=-1) / (k - 1)
    return _chance_corrected(percent_agreement(p, w), expected)


def fleiss_kappa_irrcac(p: Profile, w: np.ndarray) -> np.ndarray:
    """Fleiss' kappa in irrCAC's convention: chance agreement sum(pi_c^2), pi_c = ``mean_item_shares``."""
    expected = (mean_item_shares(p, w) ** 2).sum(axis=-1)
    return _chance_corrected(percent_agreement(p, w), expected)


def annotator_shares(p: Profile, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(p_gk, active)``: each annotator's category shares over the items they rated, shape (..., r, k),
    and which annotators rated anything (an annotator without ratings has no shares and is left out)."""
    r, k = p.n_annotators, p.n_categories
    cells = (w @ p.annotator_cells).reshape(*np.shape(w)[:-1], r, k)
    n_g = cells.sum(axis=-1)
    active = n_g > 0
    shares = cells / np.where(active, n_g, 1.0)[..., None]
    return shares, active


def conger_chance(p: Profile, w: np.ndarray) -> np.ndarray:
    """Conger's chance agreement sum_k (pbar_k^2 - s2_k / r) over the r annotators with ratings, as irrCAC
    computes it (pbar_k the mean of p_gk over annotators, s2_k its sample variance); the mean of the
    Cohen-type chance agreements of every annotator pair."""
    shares, active = annotator_shares(p, w)
    r = active.sum(axis=-1).astype(np.float64)[..., None]
    safe_r = np.where(r > 1, r, np.nan)
    pbar = shares.sum(axis=-2) / safe_r
    s2 = ((shares**2).sum(axis=-2) - safe_r * pbar**2) / (safe_r - 1)
    return (pbar**2 - s2 / safe_r).sum(axis=-1)


def conger_kappa(p: Profile, w: np.ndarray) -> np.ndarray:
    """Conger's kappa (1980): Fleiss' p_a, chance agreement averaged over Cohen-type annotator pairs."""
    return _chance_corrected(percent_agreement(p, w), conger_chance(p, w))


def cohen_kappa_irrcac(p: Profile, w: np.ndarray) -> np.ndarray:
    """Cohen's kappa in irrCAC's convention for two annotators with missing ratings (Conger's kappa with r = 2):
    p_a over the items both rated, each annotator's marginals over every item they rated."""
    if p.n_annotators != 2:
        return np.full(np.shape(w)[:-1], np.nan)
    return conger_kappa(p, w)


def _ordinal_distance(marginals: np.ndarray) -> np.ndarray:
    """Krippendorff's ordinal delta^2: (sum of n_g from c to k - (n_c + n_k) / 2)^2."""
    cum = np.cumsum(marginals, axis=-1)
    between = cum[..., None, :] - cum[..., :, None]
    half = (marginals[..., :, None] - marginals[..., None, :]) / 2.0
    return (between + half) ** 2


def krippendorff_alpha(p: Profile, w: np.ndarray, metric: str = "nominal") -> np.ndarray:
    """Krippendorff's alpha, 1 - D_o / D_e, with "nominal" or "ordinal" distances."""
    k = p.n_categories
    o = (w @ p.coincidence).reshape(*np.shape(w)[:-1], k, k)
    marginals = o.sum(axis=-1)
    total = marginals.sum(axis=-1)
    if metric == "nominal":
        delta = np.broadcast_to(1.0 - np.eye(k), o.shape)
    elif metric == "ordinal":
        delta = _ordinal_distance(marginals)
    else:
        raise ValueError(f"unknown metric {metric!r}: use 'nominal' or 'ordinal'")
    observed = (o * delta).sum(axis=(-1, -2))
    expected = (marginals[..., :, None] * marginals[..., None, :] * delta).sum(axis=(-1, -2))
    return 1.0 - _ratio((total - 1.0) * observed, expected)


def krippendorff_alpha_ordinal(p: Profile, w: np.ndarray) -> np.ndarray:
    return krippendorff_alpha(p, w, "ordinal")


Coefficient = Callable[[Profile, np.ndarray], np.ndarray]

# Names as they appear in reports, in display order.
LABELS: dict[str, str] = {
    "percent_agreement": "percent agreement",
    "cohen_kappa": "Cohen's kappa",
    "cohen_kappa_irrcac": "Cohen's kappa (irrCAC = Conger's)",
    "fleiss_kappa": "Fleiss' kappa",
    "fleiss_kappa_irrcac": "Fleiss' kappa (irrCAC)",
    "conger_kappa": "Conger's kappa",
    "krippendorff_alpha": "Krippendorff's alpha (nominal)",
    "krippendorff_alpha_ordinal": "Krippendorff's alpha (ordinal)",
    "gwet_ac1": "Gwet's AC1",
    "pabak": "PABAK",
    "nestools_p": "p = (N_T + N_F) / N",
}

_FUNCTIONS: dict[str, Coefficient] = {
    "percent_agreement": percent_agreement,
    "cohen_kappa": cohen_kappa,
    "cohen_kappa_irrcac": cohen_kappa_irrcac,
    "fleiss_kappa": fleiss_kappa,
    "fleiss_kappa_irrcac": fleiss_kappa_irrcac,
    "conger_kappa": conger_kappa,
    "krippendorff_alpha": krippendorff_alpha,
    "krippendorff_alpha_ordinal": krippendorff_alpha_ordinal,
    "gwet_ac1": gwet_ac1,
    "pabak": pabak,
    "nestools_p": unanimous_agreement,
}


def coefficients_for(table: RatingTable, error_variable: bool = False) -> dict[str, Coefficient]:
    """The coefficients reported for a variable, in display order.

    The ordinal alpha only for ordinal variables; irrCAC's Cohen convention
    for two annotators, Conger's kappa (its generalisation) for more; paper 004's p only for
    error/no-error variables, where it is the statistic the paper publishes.
    """
    names = [n for n in LABELS if n != "krippendorff_alpha_ordinal" or table.ordinal]
    if table.codes.shape[1] != 2:  # irrCAC's Cohen convention is Conger's kappa, shown under its own name
        names.remove("cohen_kappa_irrcac")
    else:  # with two annotators Conger's kappa is irrCAC's Cohen's kappa: one column, not two equal ones
        names.remove("conger_kappa")
    if not error_variable:
        names.remove("nestools_p")
    return {n: _FUNCTIONS[n] for n in names}


def undefined_reason(name: str, p: Profile, w: np.ndarray, categories: tuple[str, ...]) -> str:
    """Why coefficient ``name`` is undefined at the (1-D) weights ``w``."""
    n = float(pairable_items(p, w))
    if n == 0:
        return "no item was rated by two annotators"
    if name in ("cohen_kappa", "cohen_kappa_irrcac") and p.n_annotators != 2:
        return (
            f"Cohen's kappa compares exactly two annotators, here there are {p.n_annotators}; "
            "see Fleiss' kappa and the per-pair breakdown"
        )
    used = np.flatnonzero(w @ (p.counts * p.pairable[:, None]))
    if len(used) == 1:
        return (
            f"every rating is {categories[used[0]]!r}: with one category chance agreement is 1, "
            "so the coefficient is 0/0"
        )
    return "undefined for these ratings"
