"""Representative disagreements: verdict disagreements first, then the items whose annotators
disagree on the most rubric fields (issue 16: a verdict disagreement with an identical rubric
used to be left out)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reviewer.agreement.model import BOOL_RUBRIC_FIELDS
from reviewer.agreement.table import MISSING, RatingSet

RUBRIC_FIELDS: tuple[str, ...] = (*BOOL_RUBRIC_FIELDS, "ambiguity", "difficulty")


@dataclass
class Disagreement:
    """One item: the rubric fields its annotators disagree on, with each annotator's value."""

    item_id: str
    n_fields: int
    fields: dict[str, dict[str, str]]  # field -> annotator -> value
    verdicts: dict[str, str]  # annotator -> verdict (finished ratings only)


def _disagrees(codes: np.ndarray) -> np.ndarray:
    """Per item: two or more values given and not all equal."""
    given = codes != MISSING
    high = np.where(given, codes, -1).max(axis=1, initial=-1)
    low = np.where(given, codes, 127).min(axis=1, initial=127)
    return (given.sum(axis=1) >= 2) & (high != low)


def representative_disagreements(rating_set: RatingSet, limit: int = 10) -> list[Disagreement]:
    """Up to ``limit`` items: those whose verdicts differ first, then by most disagreeing
    rubric fields, then in item order. An item is listed when its verdicts or any rubric
    field differ."""
    tables = rating_set.tables
    if not rating_set.item_ids:
        return []
    per_field = np.stack([_disagrees(tables[f].codes) for f in RUBRIC_FIELDS], axis=1)
    n_fields = per_field.sum(axis=1)
    verdict_differs = _disagrees(tables["verdict"].codes)
    # lexsort: last key is primary; negate to sort descending, index keeps it stable.
    order = np.lexsort((np.arange(len(n_fields)), -n_fields, ~verdict_differs))
    out = []
    for i in order[:limit]:
        if n_fields[i] == 0 and not verdict_differs[i]:
            break
        fields = {}
        for f, differs in zip(RUBRIC_FIELDS, per_field[i]):
            if differs:
                fields[f] = _values(rating_set, f, i)
        out.append(Disagreement(rating_set.item_ids[i], int(n_fields[i]), fields, _values(rating_set, "verdict", i)))
    return out


def _values(rating_set: RatingSet, name: str, item: int) -> dict[str, str]:
    table = rating_set.tables[name]
    return {a: table.categories[c] for a, c in zip(table.annotators, table.codes[item]) if c != MISSING}
