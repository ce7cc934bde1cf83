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
    # Item row and annotator column of each rating, in the order the ratings came: figures
    # that list things "in order of first appearance" read that order from here.
    rating_rows: np.ndarray | None = None
    rating_cols: np.ndarray | None = None


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

    # Column by column rather than rating by rating: one list comprehension per
    # variable and one fancy assignment, instead of ~15 numpy scalar writes per rating.
    rows = np.array([item_index[r.item_id] for r in ratings], dtype=np.intp)
    cols = np.array([rater_index[r.annotator] for r in ratings], dtype=np.intp)
    rated = np.zeros(shape, dtype=bool)
    rated[rows, cols] = True

    def fill(name: str, values: list[int]) -> None:
        column = np.array(values, dtype=np.int8)
        given = column != MISSING
        codes[name][rows[given], cols[given]] = column[given]

    yes_no = {None: MISSING, False: 0, True: 1}
    for name in BOOL_RUBRIC_FIELDS:
        fill(name, [yes_no[r.rubric.get(name)] for r in ratings])
    for name in ("ambiguity", "difficulty"):
        lookup = {None: MISSING, **lookups[name]}
        fill(name, [lookup[r.rubric.get(name)] for r in ratings])
    finished = [k for k, r in enumerate(ratings) if r.verdict is not None]
    verdict_lookup = {None: MISSING, **lookups["verdict"]}
    fill("verdict", [verdict_lookup[r.verdict] for r in ratings])
    fill(ANY_ERROR, [MISSING if r.verdict is None else int(bool(r.error_tags)) for r in ratings])
    for name, group in perspectives.items():
        fill(
            PERSPECTIVE_PREFIX + name,
            [MISSING if r.verdict is None else int(any(t in group for t in r.error_tags)) for r in ratings],
        )
    tag_codes[:, rows[finished], cols[finished]] = 0
    for k in finished:
        for t in ratings[k].error_tags:
            tag_codes[tag_index[t], rows[k], cols[k]] = 1

    ids = tuple(item_index)
    tables = {name: RatingTable(name, cats, ordinal, annotators, ids, codes[name]) for name, cats, ordinal in specs}
    return RatingSet(ids, annotators, tuple(strata), rated, tables, tags, rows, cols)
