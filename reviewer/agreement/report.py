"""The curation report: every agreement figure of one dual-annotation review.

``build_report`` is the one entry point; renderers in ``render`` and
``html_report`` only format what it computed.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from reviewer.agreement.bootstrap import rng_for
from reviewer.agreement.breakdown import PairBreakdown, by_pair, by_stratum
from reviewer.agreement.coefficients import profile, unanimous_agreement
from reviewer.agreement.disagreements import Disagreement, representative_disagreements
from reviewer.agreement.distributions import (
    DifficultyCorrections,
    Distribution,
    TagCount,
    ambiguity_distribution,
    difficulty_corrections,
    error_tag_counts,
    verdict_distribution,
)
from reviewer.agreement.estimate import Estimate, GroupStats, estimate_group, estimate_mean
from reviewer.agreement.fixes import FixAgreement, fix_agreement
from reviewer.agreement.model import Rating, validate_perspectives, validate_ratings
from reviewer.agreement.skew import skew_warnings
from reviewer.agreement.table import PERSPECTIVE_PREFIX, build_rating_set
from reviewer.errors import ReviewerError
from reviewer.jobs import JobContext, silent


@dataclass
class Report:
    """Everything the curation report shows; plain data, JSON-serialisable via ``report_to_dict``."""

    n_items: int
    n_ratings: int
    annotators: list[str]
    n_resamples: int
    seed: int
    variables: dict[str, str]  # variable name -> categories joined, for readers of the tables
    overall: GroupStats
    by_stratum: dict[str, dict[str, GroupStats]]
    by_pair: dict[str, PairBreakdown]
    warnings: list[str]
    verdicts: Distribution
    ambiguity: Distribution
    difficulty: DifficultyCorrections
    error_tags: list[TagCount]
    disagreements: list[Disagreement]
    fixes: FixAgreement
    notes: list[str] = field(default_factory=list)
    # NesTools' final agreement: p averaged over the perspectives, when some were given.
    perspectives: dict[str, list[str]] = field(default_factory=dict)
    nestools_final: Estimate | None = None


def build_report(
    ratings: Iterable[Rating],
    bootstrap: int = 1000,
    seed: int = 0,
    ctx: JobContext | None = None,
    perspectives: Mapping[str, Iterable[str]] | None = None,
) -> Report:
    """Validate the ratings and compute the whole report.

    ``bootstrap`` resamples of the items give 95% percentile intervals (0
    skips them); the same ``seed`` gives the same intervals. ``perspectives``
    (name -> error tags, e.g. {"call chain": [...], "query": [...]}) adds an
    error/no-error variable per perspective and NesTools' final agreement, p
    averaged over them (paper 004, A.4). Raises ``InputError`` for a bad
    rating (see ``validate_ratings``), ``ReviewerError`` for a negative
    ``bootstrap`` or ``seed``; honours ``ctx`` cancellation between steps.
    """
    for name, value in (("bootstrap", bootstrap), ("seed", seed)):
        if not isinstance(value, int) or value < 0:
            raise ReviewerError(f"{name} must be a whole number, 0 or more; got {value!r}")
    ctx = ctx or silent()
    steps = 5
    ctx.progress(0, steps, "checking ratings")
    ratings = validate_ratings(ratings)
    groups = validate_perspectives(perspectives)
    rating_set = build_rating_set(ratings, groups)
    profiles = {n: profile(t) for n, t in rating_set.tables.items()}
    ctx.check_cancelled()
    ctx.progress(1, steps, "overall agreement")
    overall = estimate_group(rating_set.tables, profiles, None, bootstrap, rng_for(seed, "overall"))
    final = None
    if groups:
        final = estimate_mean(
            unanimous_agreement,
            [profiles[PERSPECTIVE_PREFIX + name] for name in groups],
            bootstrap,
            rng_for(seed, "perspectives"),
        )
    ctx.check_cancelled()
    ctx.progress(2, steps, "agreement per stratum")
    strata = by_stratum(rating_set, profiles, overall, bootstrap, seed)
    ctx.check_cancelled()
    ctx.progress(3, steps, "agreement per annotator pair")
    pairs = by_pair(rating_set, overall, bootstrap, seed)
    ctx.check_cancelled()
    ctx.progress(4, steps, "distributions and fixes")
    notes = []
    if len(rating_set.annotators) > 2:
        notes.append(
            f"{len(rating_set.annotators)} annotators: Cohen's kappa is given per pair; "
            "the overall figures use Fleiss' kappa, Krippendorff's alpha and Gwet's AC1."
        )
    if bootstrap:
        notes.append(f"Intervals: 95% percentile bootstrap over items, {bootstrap} resamples, seed {seed}.")
    report = Report(
        n_items=len(rating_set.item_ids),
        n_ratings=len(ratings),
        annotators=list(rating_set.annotators),
        n_resamples=bootstrap,
        seed=seed,
        variables={n: " / ".join(t.categories) for n, t in rating_set.tables.items()},
        overall=overall,
        by_stratum=strata,
        by_pair=pairs,
        warnings=skew_warnings(overall, rating_set.tables),
        verdicts=verdict_distribution(rating_set),
        ambiguity=ambiguity_distribution(rating_set),
        difficulty=difficulty_corrections(rating_set),
        error_tags=error_tag_counts(rating_set),
        disagreements=representative_disagreements(rating_set),
        fixes=fix_agreement(ratings),
        notes=notes,
        perspectives={name: sorted(tags) for name, tags in groups.items()},
        nestools_final=final,
    )
    ctx.progress(steps, steps, "done")
    return report


def report_to_dict(report: Report) -> dict[str, Any]:
    """The report as JSON-ready data; raises ValueError if a NaN or infinity slipped in."""
    data = dataclasses.asdict(report)
    _check_finite(data, "$")
    return data


def _check_finite(value: Any, where: str) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{where} is {value}: undefined values must be None with a reason")
    if isinstance(value, dict):
        for k, v in value.items():
            _check_finite(v, f"{where}.{k}")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_finite(v, f"{where}[{i}]")
