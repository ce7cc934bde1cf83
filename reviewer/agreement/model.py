"""The input seam of the agreement statistics: one plain record per rating.

The store turns its annotation rows into ``Rating`` records; nothing here
touches the database. ``validate_ratings`` checks a batch once, up front, so
that every later step can trust the values (the rubric follows paper 001,
Appendix D; the error tags follow paper 004, Appendix A.4).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reviewer.errors import InputError, json_path

VERDICTS: tuple[str, ...] = ("pass", "fix", "reject")
BOOL_RUBRIC_FIELDS: tuple[str, ...] = (
    "schema_conformance",
    "content_faithfulness",
    "cross_field_consistency",
)
# Ordered from least to most ambiguous: Krippendorff's ordinal alpha relies on this order.
AMBIGUITY_LEVELS: tuple[str, ...] = ("low", "medium", "high")
DIFFICULTY_LEVELS: tuple[str, ...] = ("medium", "hard")


@dataclass
class Rating:
    """One annotator's review of one item.

    ``verdict`` is "pass" | "fix" | "reject", or None while the review is not
    finished; an unfinished rating counts as missing for the verdict, the
    error tags and the fix (an empty tag list cannot be told from "not looked
    at yet"), while any rubric field it already carries is used.
    ``rubric`` holds ``schema_conformance``, ``content_faithfulness``,
    ``cross_field_consistency`` (bool), ``ambiguity`` ("low" | "medium" |
    "high") and ``difficulty`` ("medium" | "hard"); an absent or None field is
    missing. Unknown rubric keys are ignored. ``fix`` is the gold the annotator
    proposes (meaningful when the verdict is "fix"); ``patch`` is the RFC 6902
    operation list that turns the original gold into it. ``strata`` names the
    groups the item belongs to (task type/category, difficulty, domain,
    dataset); every rating of one item must carry the same strata.
    """

    item_id: str
    annotator: str
    verdict: str | None
    rubric: dict = field(default_factory=dict)
    error_tags: list[str] = field(default_factory=list)
    fix: Any | None = None
    patch: list | None = None
    strata: dict[str, str] = field(default_factory=dict)


def _where(index: int, rating: Rating) -> str:
    return f"rating {index} (item {rating.item_id!r}, annotator {rating.annotator!r})"


def _fail(index: int, rating: Rating, parts: Sequence[Any], message: str) -> None:
    raise InputError(None, f"{_where(index, rating)}, {json_path(parts)}", message)


def _normalise_level(index: int, rating: Rating, key: str, levels: tuple[str, ...]) -> None:
    value = rating.rubric.get(key)
    if value is None:
        return
    if not isinstance(value, str) or value.lower() not in levels:
        _fail(index, rating, ["rubric", key], f"expected one of {', '.join(levels)}, got {value!r}")
    rating.rubric[key] = value.lower()


def validate_ratings(ratings: Iterable[Rating]) -> list[Rating]:
    """Check every rating and return them as a list.

    Normalises the case of verdicts and rubric levels in place ("Hard" becomes
    "hard"). Raises ``InputError`` naming the rating and the JSON path of the
    first bad value: an unknown verdict or level, a non-bool yes/no field, a
    tag that is not a string, a malformed patch, two ratings of one item by
    one annotator, or two ratings of one item that disagree on its strata.
    """
    out = list(ratings)
    # Item ids seen per annotator, not (item, annotator) tuples: 2 * 10^5 tuples would be
    # container objects the cyclic garbage collector walks, and their allocation alone sets
    # off a full collection (~0.4 s) in the middle of a 100k-item report.
    seen: dict[str, set[str]] = {}
    strata_of: dict[str, dict[str, str]] = {}
    # A review holds ~10^5 ratings: each check below has a fast path for the
    # ordinary value (an exact str/bool/list, already lower case) and falls
    # back to the full check, with its message, only for anything else.
    verdicts, ambiguity, difficulty = VERDICTS, AMBIGUITY_LEVELS, DIFFICULTY_LEVELS
    checked = None  # the last strata object checked (the ratings of an item usually share one)
    for i, r in enumerate(out):
        item_id, annotator = r.item_id, r.annotator
        if type(item_id) is not str or not item_id:
            if not isinstance(item_id, str) or not item_id:
                _fail(i, r, ["item_id"], "item_id must be a non-empty string")
        if type(annotator) is not str or not annotator:
            if not isinstance(annotator, str) or not annotator:
                _fail(i, r, ["annotator"], "annotator must be a non-empty string")
        rated = seen.get(annotator)
        if rated is None:
            rated = seen[annotator] = set()
        elif item_id in rated:
            _fail(i, r, [], "a second rating of this item by the same annotator")
        rated.add(item_id)
        verdict = r.verdict
        if verdict is not None and not (type(verdict) is str and verdict in verdicts):
            if not isinstance(verdict, str) or verdict.lower() not in VERDICTS:
                _fail(i, r, ["verdict"], f"expected one of {', '.join(VERDICTS)}, got {verdict!r}")
            r.verdict = verdict.lower()
        rubric = r.rubric
        if not isinstance(rubric, dict):
            _fail(i, r, ["rubric"], f"rubric must be an object, got {type(rubric).__name__}")
        for name in BOOL_RUBRIC_FIELDS:
            value = rubric.get(name)
            if value is not None and value is not True and value is not False:
                _fail(i, r, ["rubric", name], f"expected true or false, got {value!r}")
        value = rubric.get("ambiguity")
        if value is not None and not (type(value) is str and value in ambiguity):
            _normalise_level(i, r, "ambiguity", AMBIGUITY_LEVELS)
        value = rubric.get("difficulty")
        if value is not None and not (type(value) is str and value in difficulty):
            _normalise_level(i, r, "difficulty", DIFFICULTY_LEVELS)
        tags = r.error_tags
        if type(tags) is not list and not isinstance(tags, (list, tuple)):
            _fail(i, r, ["error_tags"], "error_tags must be a list of strings")
        for j, tag in enumerate(tags):
            if not isinstance(tag, str) or not tag:
                _fail(i, r, ["error_tags", j], f"expected a non-empty string, got {tag!r}")
        if r.patch is not None:
            _validate_patch(i, r)
        strata = r.strata
        first = strata_of.setdefault(item_id, strata)
        if first is strata and checked is strata:
            continue  # the very object the previous rating carried, checked then
        if not isinstance(strata, dict):
            _fail(i, r, ["strata"], "strata must be an object of strings")
        for name, value in strata.items():
            if value is not None and type(value) is not str and not isinstance(value, str):
                _fail(i, r, ["strata", name], f"expected a string, got {value!r}")
        if first is not strata and first != strata:
            _fail(i, r, ["strata"], f"differs from another rating of the same item ({first!r})")
        checked = strata
    return out


def _validate_patch(index: int, rating: Rating) -> None:
    if rating.patch is None:
        return
    if not isinstance(rating.patch, list):
        _fail(index, rating, ["patch"], "patch must be a list of RFC 6902 operations")
    for j, op in enumerate(rating.patch):
        if not isinstance(op, dict):
            _fail(index, rating, ["patch", j], "an operation must be an object")
        for key in ("op", "path"):
            if not isinstance(op.get(key), str):
                _fail(index, rating, ["patch", j, key], f"missing or not a string: {op.get(key)!r}")
        if op["op"] in ("move", "copy") and not isinstance(op.get("from"), str):
            _fail(index, rating, ["patch", j, "from"], f"a {op['op']} operation needs a string 'from'")


def validate_perspectives(perspectives: Mapping[str, Iterable[str]] | None) -> dict[str, frozenset[str]]:
    """Check NesTools-style perspectives: a name to the error tags that belong to it.

    Paper 004 averages its agreement over two perspectives (the call chain
    and the query); which tags belong to which is the project's choice.
    Raises ``InputError`` for an empty name or a tag that is not a string.
    """
    out: dict[str, frozenset[str]] = {}
    if perspectives is None:
        return out
    if not isinstance(perspectives, Mapping):
        raise InputError(None, "perspectives", "expected a mapping of name to error tags")
    for name, tags in perspectives.items():
        if not isinstance(name, str) or not name:
            raise InputError(None, "perspectives", f"a perspective needs a non-empty name, got {name!r}")
        if isinstance(tags, str) or not all(isinstance(t, str) and t for t in tags):
            raise InputError(None, f"perspectives[{name!r}]", "expected a list of error tag names")
        out[name] = frozenset(tags)
    return out
