"""The DeepJSONEval scorer (paper 001; shared/FORMATS.md section 2).

Per record: ``format`` (the output parses and validates against the item's
schema), ``detailed`` (the hierarchical key-matching score) and ``strict``
(deep equality with the gold); any parse or validation failure gives 0, 0, 0.
The first note is the official scorer's own "Notes" text.

Faithful-mode quirks, reproduced on purpose:

* **last fence**: the JSON is the text after the LAST "```json" up to the
  next "```" (the whole text when there is no fence); "```JSON" is not a fence.
* **Python equality**: strict uses ``==``, so 1 == 1.0 == True; detailed
  compares scalars the same way.
* **null gold scores 0**: a gold ``null`` falls through to "other types" in
  the detailed score and earns 0 even when the prediction is null too.
* **unhashable list elements**: a list of primitives is scored as a set
  (Jaccard); a list holding lists (or mixing objects and primitives) makes
  the original raise TypeError and stop the whole run. Here the record's
  detailed score is 0 with a note saying so.
* **duplicates and order**: lists of primitives lose order and duplicates
  (sets); lists of objects are compared index by index, divided by the longer length.

Fixed mode changes: a "```JSON" fence (any case) is accepted; strict and
detailed are type-aware (True is not 1; 1 still equals 1.0); a null gold
matches a null prediction; lists with unhashable elements are compared as
multisets of canonical JSON instead of crashing.
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from typing import Any

from reviewer.kinds import difficulty_from_depth
from reviewer.scoring.base import Mode, ScoreResult, ScoringItem, ScoringOutput
from reviewer.scoring.registry import register_scorer
from reviewer.scoring.schema_check import SchemaFailure, check

_FIXED_FENCE = re.compile(r"```json", re.IGNORECASE)

# The official "Notes" column texts (typos included, they are what users see in the files).
NOTE_NO_FENCE = "No markdown style JSON Pattern found"
NOTE_BAD_JSON = "Not a invalid JSON"
NOTE_BAD_SCHEMA = "JSON output doesn't match the schema"
NOTE_SCORED = "Give score in 3 criteria"


class _Unhashable(TypeError):
    pass


def extract_json_text(text: Any, mode: Mode = "faithful") -> str | None:
    """The candidate JSON text of an output, or None when the output is not text."""
    if not isinstance(text, str):
        return None  # the original's str.split on a NaN/None cell raises; it reports "no fence"
    if mode == "fixed":
        parts = _FIXED_FENCE.split(text)
        return parts[-1].split("```")[0]
    return text.split("```json")[-1].split("```")[0]


def detailed_score(gold: Any, pred: Any, mode: Mode = "faithful") -> float:
    """The recursive hierarchical key-matching score of ``pred`` against ``gold`` (0..1).

    Raises ``TypeError`` in faithful mode where the original raises (a list of
    primitives holding unhashable values).
    """
    if mode == "fixed":
        return _fixed_compare(gold, pred)
    return _faithful_compare(gold, pred)


def _faithful_compare(answer: Any, out: Any) -> float:
    if isinstance(answer, (str, bool, int, float)):
        return 1 if answer == out else 0
    if isinstance(answer, list):
        if not answer:
            return 1 if isinstance(out, list) and not out else 0
        if all(isinstance(a, dict) for a in answer):
            if not isinstance(out, list) or not all(isinstance(o, dict) for o in out):
                return 0
            longest = max(len(answer), len(out))
            return sum(_faithful_compare(a, o) for a, o in zip(answer, out)) / longest
        if not isinstance(out, list):
            return 0
        try:
            a_set, o_set = set(answer), set(out)
        except TypeError as exc:
            raise _Unhashable(str(exc)) from None
        union = a_set | o_set
        return len(a_set & o_set) / len(union) if union else 1
    if isinstance(answer, dict):
        if not isinstance(out, dict):
            return 0
        if not answer:
            return 1 if not out else 0
        keys = set(answer) | set(out)
        return sum(_faithful_compare(answer[k], out[k]) for k in answer if k in out) / len(keys)
    return 0  # None (JSON null) and anything else


def _same_scalar(a: Any, b: Any) -> bool:
    """Type-aware equality: bools only equal bools; ints and floats compare by value."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))
    return type(a) is type(b) and a == b


def _canonical(value: Any) -> str:
    """A hashable key with fixed-mode equality: bools apart from numbers, 1 == 1.0."""
    def norm(v):
        if isinstance(v, bool) or v is None or isinstance(v, str):
            return v
        if isinstance(v, float) and v.is_integer():
            return int(v)
        if isinstance(v, list):
            return [norm(x) for x in v]
        if isinstance(v, dict):
            return {k: norm(x) for k, x in v.items()}
        return v
    return json.dumps(norm(value), sort_keys=True, ensure_ascii=False)


def _fixed_compare(answer: Any, out: Any) -> float:
    if answer is None:
        return 1 if out is None else 0
    if isinstance(answer, (str, bool, int, float)):
        return 1 if _same_scalar(answer, out) else 0
    if isinstance(answer, list):
        if not answer:
            return 1 if isinstance(out, list) and not out else 0
        if not isinstance(out, list):
            return 0
        if all(isinstance(a, dict) for a in answer):
            if not all(isinstance(o, dict) for o in out):
                return 0
            return sum(_fixed_compare(a, o) for a, o in zip(answer, out)) / max(len(answer), len(out))
        a_set, o_set = {_canonical(a) for a in answer}, {_canonical(o) for o in out}
        return len(a_set & o_set) / len(a_set | o_set)
    if isinstance(answer, dict):
        if not isinstance(out, dict):
            return 0
        if not answer:
            return 1 if not out else 0
        keys = set(answer) | set(out)
        return sum(_fixed_compare(answer[k], out[k]) for k in answer if k in out) / len(keys)
    return 0


def strict_equal(gold: Any, pred: Any, mode: Mode = "faithful") -> bool:
    """Deep equality: Python ``==`` (faithful) or type-aware, 1 == 1.0 but True != 1 (fixed)."""
    if mode == "faithful":
        return pred == gold
    return _canonical(gold) == _canonical(pred)


def _zero(note: str, extra: list[str] | None = None) -> ScoreResult:
    return ScoreResult({"format": 0, "detailed": 0, "strict": 0}, "strict", False, notes=[note, *(extra or [])])


@register_scorer
class DeepJsonScorer:
    name = "deepjson"
    kind = "extraction"

    def score(self, item: ScoringItem, output: ScoringOutput, mode: Mode = "faithful") -> ScoreResult:
        raw = extract_json_text(output.text, mode)
        if raw is None:
            return _zero(NOTE_NO_FENCE, ["the model output is not text"])
        try:
            pred = json.loads(raw)
        except ValueError as exc:
            return _zero(NOTE_BAD_JSON, [f"JSON parse error: {exc}"])
        failure = check(pred, item.schema)
        if failure is not None:
            return _zero(NOTE_BAD_SCHEMA, [failure.describe()])
        notes = [NOTE_SCORED]
        try:
            detailed = detailed_score(item.gold, pred, mode)
        except _Unhashable as exc:
            detailed = 0
            notes.append(f"unhashable-list quirk: the original raises TypeError ({exc}) and stops the run; "
                         "detailed scored 0 here (fixed mode compares such lists properly)")
        strict = 1 if strict_equal(item.gold, pred, mode) else 0
        if mode == "faithful" and strict and not strict_equal(item.gold, pred, "fixed"):
            notes.append("Python-equality quirk: equal only because 1 == 1.0 == True")
        return ScoreResult({"format": 1, "detailed": detailed, "strict": strict}, "strict", bool(strict), notes=notes)

    def aggregate(self, pairs: list[tuple[ScoringItem, ScoreResult]]) -> dict[str, Any]:
        """Mean format / detailed / strict: ``overall``, ``by_difficulty`` (Medium/Hard), ``by_category``;
        and ``gold_fails_schema``: the items whose gold fails its own schema (so even a
        perfect answer scores 0 on them), each ``{record_id, path, message}``."""
        groups: dict[tuple[str, str], list[ScoreResult]] = defaultdict(list)
        for item, res in pairs:
            if res.skipped:
                continue
            groups[("overall", "")].append(res)
            groups[("by_difficulty", difficulty_from_depth(item.depth) or "?")].append(res)
            groups[("by_category", item.category or "?")].append(res)
        out: dict[str, Any] = {"overall": _means([]), "by_difficulty": {}, "by_category": {}}
        for (level, key), results in sorted(groups.items()):
            if level == "overall":
                out["overall"] = _means(results)
            else:
                out[level][key] = _means(results)
        items = list({item.record_id: item for item, _ in pairs}.values())
        out["gold_fails_schema"] = [
            {"record_id": item.record_id, "path": f.path, "message": f.message}
            for item, f in gold_schema_failures(items)
        ]
        return out


def _means(results: list[ScoreResult]) -> dict[str, Any]:
    n = len(results)
    out: dict[str, Any] = {"samples": n}
    for metric in ("format", "detailed", "strict"):
        out[metric] = sum(r.metrics[metric] for r in results) / n if n else None
    return out


def gold_schema_failures(items: list[ScoringItem]) -> list[tuple[ScoringItem, SchemaFailure]]:
    """Items whose gold object does not validate against the item's own schema.

    DeepJSONEval ships 12 such golds (all Hard): a model that reproduces the
    gold exactly scores 0 on them. The failure names the offending node's path.
    """
    out = []
    for item in items:
        failure = check(item.gold, item.schema)
        if failure is not None:
            out.append((item, failure))
    return out
