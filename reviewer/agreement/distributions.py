"""What the annotators said: verdict and ambiguity distributions, difficulty
corrections and error tag counts (the figures paper 001, Appendix D reports)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from reviewer.agreement.model import AMBIGUITY_LEVELS, VERDICTS, Rating


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


def distribution(ratings: list[Rating], categories: tuple[str, ...], value_of) -> Distribution:
    """Count ``value_of(rating)`` (None = not given) overall and per annotator."""
    overall = dict.fromkeys(categories, 0)
    per: dict[str, dict[str, int]] = {}
    for r in ratings:
        counts = per.setdefault(r.annotator, dict.fromkeys(categories, 0))
        value = value_of(r)
        if value is not None:
            overall[value] += 1
            counts[value] += 1
    return Distribution(categories, overall, dict(sorted(per.items())))


def verdict_distribution(ratings: list[Rating]) -> Distribution:
    """Pass/fix/reject counts."""
    return distribution(ratings, VERDICTS, lambda r: r.verdict)


def ambiguity_distribution(ratings: list[Rating]) -> Distribution:
    """Low/medium/high ambiguity counts."""
    return distribution(ratings, AMBIGUITY_LEVELS, lambda r: r.rubric.get("ambiguity"))


@dataclass
class DifficultyCorrections:
    """Annotators' difficulty tags against each item's original difficulty (``strata["difficulty"]``).

    ``transitions[original][tagged]`` counts ratings. ``consensus`` maps items
    whose annotators (two or more) all chose the same tag, different from the
    original, to that tag: the corrections an adjudicator will most likely keep.
    """

    transitions: dict[str, dict[str, int]] = field(default_factory=dict)
    n_tagged: int = 0
    n_corrected: int = 0
    n_without_original: int = 0
    per_annotator: dict[str, dict[str, int]] = field(default_factory=dict)  # tagged, corrected
    consensus: dict[str, str] = field(default_factory=dict)


def difficulty_corrections(ratings: list[Rating]) -> DifficultyCorrections:
    out = DifficultyCorrections()
    tags_of: dict[str, list[str]] = {}
    original_of: dict[str, str] = {}
    for r in ratings:
        tagged = r.rubric.get("difficulty")
        if tagged is None:
            continue
        original = (r.strata.get("difficulty") or "").lower()
        if not original:
            out.n_without_original += 1
            continue
        out.n_tagged += 1
        row = out.transitions.setdefault(original, {})
        row[tagged] = row.get(tagged, 0) + 1
        mine = out.per_annotator.setdefault(r.annotator, {"tagged": 0, "corrected": 0})
        mine["tagged"] += 1
        if tagged != original:
            out.n_corrected += 1
            mine["corrected"] += 1
        tags_of.setdefault(r.item_id, []).append(tagged)
        original_of[r.item_id] = original
    for item_id, tags in tags_of.items():
        if len(tags) >= 2 and len(set(tags)) == 1 and tags[0] != original_of[item_id]:
            out.consensus[item_id] = tags[0]
    out.per_annotator = dict(sorted(out.per_annotator.items()))
    return out


@dataclass
class TagCount:
    tag: str
    n_ratings: int  # ratings carrying the tag
    n_items: int  # items at least one annotator tagged


def error_tag_counts(ratings: list[Rating]) -> list[TagCount]:
    """Error tags of finished ratings, most frequent first (ties by name)."""
    per_rating: Counter[str] = Counter()
    items: dict[str, set[str]] = {}
    for r in ratings:
        if r.verdict is None:
            continue
        for tag in set(r.error_tags):
            per_rating[tag] += 1
            items.setdefault(tag, set()).add(r.item_id)
    ordered = sorted(per_rating, key=lambda t: (-per_rating[t], t))
    return [TagCount(t, per_rating[t], len(items[t])) for t in ordered]
