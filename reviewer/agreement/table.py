"""Ratings as code matrices: one ``RatingTable`` per rated variable.

A table holds, for one variable (the verdict, one rubric field, the presence
of one error tag), an items x annotators matrix of category codes, -1 where
an annotator gave no value. Every coefficient is computed from such a
matrix, so the statistics never look at ``Rating`` records again.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from reviewer.agreement.model import (
    AMBIGUITY_LEVELS,
    BOOL_RUBRIC_FIELDS,
    DIFFICULTY_LEVELS,
    VERDICTS,
    Rating,
)

MISSING = -1
YES_NO = ("no", "yes")
ABSENT_PRESENT = ("absent", "present")
ANY_ERROR = "any_error"  # no TAG_PREFIX: a tag may be called "any"
TAG_PREFIX = "error:"
PERSPECTIVE_PREFIX = "perspective:"


@dataclass(frozen=True)
class RatingTable:
    """Category codes of one variable: ``codes[i, j]`` is annotator j's code for item i.

    ``categories`` lists every allowed value (also those nobody used: Gwet's
    AC1 and PABAK depend on how many there are); ``ordinal`` says their order
    is meaningful.
    """

    name: str
    categories: tuple[str, ...]
    ordinal: bool
    annotators: tuple[str, ...]
    item_ids: tuple[str, ...]
    codes: np.ndarray  # (items, annotators) int8, MISSING where absent

    @classmethod
    def from_labels(
        cls,
        rows: Sequence[Sequence[str | None]],
        categories: Sequence[str],
        *,
        ordinal: bool = False,
        name: str = "labels",
        annotators: Sequence[str] | None = None,
    ) -> "RatingTable":
        """A table from items x annotators labels (None = missing).

        Raises ValueError for a label outside ``categories``.
        """
        categories = tuple(categories)
        index = {c: k for k, c in enumerate(categories)}
        width = len(rows[0]) if rows else len(annotators or ())
        codes = np.full((len(rows), width), MISSING, dtype=np.int8)
        for i, row in enumerate(rows):
            if len(row) != width:
                raise ValueError(f"row {i} has {len(row)} labels, expected {width}")
            for j, label in enumerate(row):
                if label is None:
                    continue
                if label not in index:
                    raise ValueError(f"row {i}, annotator {j}: {label!r} is not one of {categories}")
                codes[i, j] = index[label]
        names = tuple(annotators) if annotators is not None else tuple(f"r{j + 1}" for j in range(width))
        ids = tuple(str(i) for i in range(len(rows)))
        return cls(name, categories, ordinal, names, ids, codes)

    def subset(self, items: np.ndarray | None = None, annotators: Sequence[int] | None = None) -> "RatingTable":
        """The same variable restricted to some item rows and/or annotator columns."""
        codes = self.codes
        ids = self.item_ids
        names = self.annotators
        if items is not None:
            codes = codes[items]
            ids = tuple(ids[i] for i in items)
        if annotators is not None:
            codes = codes[:, list(annotators)]
            names = tuple(names[j] for j in annotators)
        return RatingTable(self.name, self.categories, self.ordinal, names, ids, codes)


@dataclass(frozen=True)
class RatingSet:
    """All variables of one batch of ratings, over a shared item and annotator order."""

    item_ids: tuple[str, ...]
    annotators: tuple[str, ...]
    strata: tuple[dict[str, str], ...]  # per item
    rated: np.ndarray  # (items, annotators) bool: a rating record exists
    tables: dict[str, RatingTable]
    tags: tuple[str, ...]  # every error tag used, sorted


def variable_label(name: str) -> str:
    """How a variable is named in reports."""
    if name == ANY_ERROR:
        return "any error tag"
    if name.startswith(TAG_PREFIX):
        return f"error tag '{name[len(TAG_PREFIX) :]}'"
    if name.startswith(PERSPECTIVE_PREFIX):
        return f"errors in '{name[len(PERSPECTIVE_PREFIX) :]}'"
    return name.replace("_", " ")


def build_rating_set(ratings: Sequence[Rating], perspectives: Mapping[str, Collection[str]] | None = None) -> RatingSet:
    """Arrange validated ratings into one table per variable.

    Items keep their first-seen order; annotators are sorted. Variables: the
    verdict, each rubric field, "any_error" (any tag at all), one
    "perspective:<name>" per entry of ``perspectives`` (any tag of that
    group, e.g. NesTools' call-chain and query checks) and "error:<tag>" for
    every tag anyone used (presence or absence on each finished rating).
    """
    perspectives = dict(perspectives or {})
    item_index: dict[str, int] = {}
    strata: list[dict[str, str]] = []
    for r in ratings:
        if r.item_id not in item_index:
            item_index[r.item_id] = len(item_index)
            strata.append(r.strata)
    annotators = tuple(sorted({r.annotator for r in ratings}))
    rater_index = {a: j for j, a in enumerate(annotators)}
    tags = tuple(sorted({t for r in ratings if r.verdict is not None for t in r.error_tags}))
    shape = (len(item_index), len(annotators))

    specs: list[tuple[str, tuple[str, ...], bool]] = [("verdict", VERDICTS, False)]
    specs += [(f, YES_NO, False) for f in BOOL_RUBRIC_FIELDS]
    specs += [("ambiguity", AMBIGUITY_LEVELS, True), ("difficulty", DIFFICULTY_LEVELS, False)]
    specs += [(ANY_ERROR, ABSENT_PRESENT, False)]
    specs += [(PERSPECTIVE_PREFIX + name, ABSENT_PRESENT, False) for name in perspectives]
    specs += [(TAG_PREFIX + t, ABSENT_PRESENT, False) for t in tags]
    codes = {name: np.full(shape, MISSING, dtype=np.int8) for name, _, _ in specs if not name.startswith(TAG_PREFIX)}
    # One block for all tags, so that a finished rating marks every tag absent in one step.
    tag_codes = np.full((len(tags), *shape), MISSING, dtype=np.int8)
    tag_index = {t: k for k, t in enumerate(tags)}
    codes.update({TAG_PREFIX + t: tag_codes[k] for t, k in tag_index.items()})
    lookups = {name: {c: k for k, c in enumerate(cats)} for name, cats, _ in specs}

    rated = np.zeros(shape, dtype=bool)
    for r in ratings:
        i, j = item_index[r.item_id], rater_index[r.annotator]
        rated[i, j] = True
        for name in BOOL_RUBRIC_FIELDS:
            value = r.rubric.get(name)
            if value is not None:
                codes[name][i, j] = int(value)
        for name in ("ambiguity", "difficulty"):
            value = r.rubric.get(name)
            if value is not None:
                codes[name][i, j] = lookups[name][value]
        if r.verdict is None:
            continue
        codes["verdict"][i, j] = lookups["verdict"][r.verdict]
        codes[ANY_ERROR][i, j] = int(bool(r.error_tags))
        for name, group in perspectives.items():
            codes[PERSPECTIVE_PREFIX + name][i, j] = int(any(t in group for t in r.error_tags))
        tag_codes[:, i, j] = 0
        for t in r.error_tags:
            tag_codes[tag_index[t], i, j] = 1

    ids = tuple(item_index)
    tables = {name: RatingTable(name, cats, ordinal, annotators, ids, codes[name]) for name, cats, ordinal in specs}
    return RatingSet(ids, annotators, tuple(strata), rated, tables, tags)
