"""What the annotators said: verdict and ambiguity distributions, difficulty
corrections and error tag counts (the figures paper 001, Appendix D reports).

All are counted from the rating set's code tables (``reviewer.agreement.table``)
with array operations, not rating by rating: a review holds ~10^5 ratings and
a Python loop over them costs ~0.1-0.6 s per figure. Where a figure lists
things in order of first appearance (difficulty transitions, consensus
corrections), that order is the order of the ratings as given
(``RatingSet.rating_rows``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from reviewer.agreement.model import AMBIGUITY_LEVELS, DIFFICULTY_LEVELS, VERDICTS
from reviewer.agreement.table import MISSING, TAG_PREFIX, RatingSet


@dataclass
class Distribution:
    """Counts of each category, over all ratings and per annotator (ratings without a value left out)."""

    categories: tuple[str, ...]
    overall: dict[str, int]
    per_annotator: dict[str, dict[str, int]]

    def share(self, category: str, annotator: str | None = None) -> float | None:
        """The category's share of the counted ratings, or None when there are none."""
        counts = self.overall if annotator is None else self.per_annotator[annotator]
        total = sum(counts.values())
        return counts[category] / total if total else None


def distribution(rating_set: RatingSet, variable: str) -> Distribution:
    """Counts of ``variable``'s categories overall and per annotator (every annotator listed, sorted)."""
    table = rating_set.tables[variable]
    k = len(table.categories)
    per = {}
    for j, annotator in enumerate(table.annotators):
        column = table.codes[:, j]
        counts = np.bincount(column[column != MISSING].astype(np.intp), minlength=k)
        per[annotator] = {c: int(n) for c, n in zip(table.categories, counts)}
    overall = {c: sum(p[c] for p in per.values()) for c in table.categories}
    return Distribution(table.categories, overall, per)


def verdict_distribution(rating_set: RatingSet) -> Distribution:
    """Pass/fix/reject counts."""
    assert rating_set.tables["verdict"].categories == VERDICTS
    return distribution(rating_set, "verdict")


def ambiguity_distribution(rating_set: RatingSet) -> Distribution:
    """Low/medium/high ambiguity counts."""
    assert rating_set.tables["ambiguity"].categories == AMBIGUITY_LEVELS
    return distribution(rating_set, "ambiguity")


@dataclass
class DifficultyCorrections:
    """Annotators' difficulty tags against each item's original difficulty (``strata["difficulty"]``).

    ``transitions[original][tagged]`` counts ratings. ``consensus`` maps items
    whose annotators (two or more) all chose the same tag, different from the
    original, to that tag: the corrections an adjudicator will most likely keep.
    Originals, tags within them and consensus items come in order of first appearance.
    """

    transitions: dict[str, dict[str, int]] = field(default_factory=dict)
    n_tagged: int = 0
    n_corrected: int = 0
    n_without_original: int = 0
    per_annotator: dict[str, dict[str, int]] = field(default_factory=dict)  # tagged, corrected
    consensus: dict[str, str] = field(default_factory=dict)


def difficulty_corrections(rating_set: RatingSet) -> DifficultyCorrections:
    out = DifficultyCorrections()
    rows, cols = rating_set.rating_rows, rating_set.rating_cols
    levels = DIFFICULTY_LEVELS
    n_levels = len(levels)
    tagged = rating_set.tables["difficulty"].codes[rows, cols].astype(np.intp)  # per rating, in order
    originals: dict[str, int] = {}  # lower-cased original -> index ("" = none)
    original_of_item = np.array(
        [originals.setdefault((s.get("difficulty") or "").lower(), len(originals)) for s in rating_set.strata],
        dtype=np.intp,
    )
    names = list(originals)
    has_original = np.array([bool(n) for n in names], dtype=bool)[original_of_item[rows]]
    is_tagged = tagged != MISSING
    out.n_without_original = int((is_tagged & ~has_original).sum())
    chosen = np.flatnonzero(is_tagged & has_original)  # rating positions, in order
    item, tag, annotator = rows[chosen], tagged[chosen], cols[chosen]
    original = original_of_item[item]
    # same[o, t]: tag t is original o (a tag is a lower-case level; an original may be anything).
    same = np.array([[name == level for level in levels] for name in names], dtype=bool).reshape(-1, n_levels)
    corrected = ~same[original, tag]
    out.n_tagged, out.n_corrected = len(chosen), int(corrected.sum())
    pair = original * n_levels + tag
    pairs, first = np.unique(pair, return_index=True)
    counts = np.bincount(pair, minlength=len(names) * n_levels)
    for p in pairs[np.argsort(first, kind="stable")]:  # first-seen order, originals and tags within them
        o, t = divmod(int(p), n_levels)
        out.transitions.setdefault(names[o], {})[levels[t]] = int(counts[p])
    n_annotators = len(rating_set.annotators)
    per_tagged = np.bincount(annotator, minlength=n_annotators)
    per_corrected = np.bincount(annotator[corrected], minlength=n_annotators)
    out.per_annotator = {
        a: {"tagged": int(per_tagged[j]), "corrected": int(per_corrected[j])}
        for j, a in enumerate(rating_set.annotators)
        if per_tagged[j]
    }
    # Consensus: items with two or more tags, all the same, not the original.
    n_items = len(rating_set.item_ids)
    by_level = np.bincount(item * n_levels + tag, minlength=n_items * n_levels).reshape(n_items, n_levels)
    total, top = by_level.sum(axis=1), by_level.argmax(axis=1)
    agreed = (total >= 2) & (by_level.max(axis=1) == total)
    agreed &= ~same[original_of_item, top]
    seen, first_of_item = np.unique(item, return_index=True)
    for i in seen[np.argsort(first_of_item, kind="stable")]:
        if agreed[i]:
            out.consensus[rating_set.item_ids[i]] = levels[top[i]]
    return out


@dataclass
class TagCount:
    tag: str
    n_ratings: int  # ratings carrying the tag
    n_items: int  # items at least one annotator tagged


def error_tag_counts(rating_set: RatingSet) -> list[TagCount]:
    """Error tags of finished ratings, most frequent first (ties by name)."""
    counts = []
    for tag in rating_set.tags:
        present = rating_set.tables[TAG_PREFIX + tag].codes == 1
        counts.append(TagCount(tag, int(present.sum()), int(present.any(axis=1).sum())))
    return sorted(counts, key=lambda c: (-c.n_ratings, c.tag))
