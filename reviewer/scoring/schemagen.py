"""The SchemaBench scorer: schema-constrained generation (paper 003; FORMATS.md section 4).

An output passes when (1) it parses: the first "```json\\n...\\n```" block, or
the whole text, through ``json.loads``; (2) it validates against the
model-facing schema (``item.schema``), retrying once after SchemaBench's
type conversion; (3) the converted object validates against
``payload["verify_schema"]`` when the item has one (Custom and Escape items:
the verify schema carries the ``pattern``/``const`` that checks the custom
format or the special token). The first note is the official outcome in the
benchmark's own words ("ParserError: Failed to load the pred. ...",
"ValidationError: ..."); further notes name the JSON path of the failing node.

Faithful-mode quirks, reproduced on purpose:

* **strict fence**: only a lower-case "```json" followed by a newline, and a
  newline before the closing fence, count; "```JSON" or "```json{...}```"
  makes the whole text the candidate (and it fails to parse);
* **NaN/Infinity** literals parse (Python's json) and pass "number";
* **formats** are not asserted ("format": "email" accepts anything);
* the conversion retry's own quirks (see ``schemagen_coerce``);
* **special token**: only the verify schema checks it; an Escape item without
  one passes on parse + schema alone.

Fixed mode changes: fences in any case with or without newlines; the fixed
conversion (missing/extra keys kept, nothing truncated); an item with a
special token but no verify schema must carry the token as some string value.
In both modes ``token_found`` tells whether the token appears as a value.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from typing import Any

from reviewer.errors import json_path
from reviewer.scoring.base import Mode, ScoreResult, ScoringItem, ScoringOutput
from reviewer.scoring.registry import register_scorer
from reviewer.scoring.schema_check import check
from reviewer.scoring.schemagen_coerce import faithful_coerce, fixed_coerce

_OFFICIAL_FENCE = re.compile(r"```json\n(.*?)\n```", re.DOTALL)
_FIXED_FENCE = re.compile(r"```json\s*(.*?)\s*```", re.DOTALL | re.IGNORECASE)
SUBSETS = ("complex", "custom", "escape")


def parse_output(text: Any, mode: Mode = "faithful") -> Any:
    """The output's JSON value; raises ValueError/TypeError as json.loads / re do."""
    fence = _FIXED_FENCE if mode == "fixed" else _OFFICIAL_FENCE
    found = fence.search(text)
    return json.loads(found.group(1) if found else text)


def find_token(value: Any, token: str, path: tuple = ()) -> str | None:
    """The JSON path of the first string value equal to ``token``, or None."""
    if isinstance(value, str):
        return json_path(path) if value == token else None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        found = find_token(child, token, (*path, key))
        if found:
            return found
    return None


def _schema_obj(schema: Any) -> Any:
    return json.loads(schema) if isinstance(schema, str) else schema


def _fail(official: str, notes: list[str], stage: str, **metrics) -> ScoreResult:
    base = {"parsed": False, "schema_valid": False, "verified": None, "valid": False}
    base.update(metrics)
    return ScoreResult(base, "valid", False, notes=[official, f"failed at: {stage}", *notes])


@register_scorer
class SchemaGenScorer:
    name = "schemagen"
    kind = "schema_gen"

    def score(self, item: ScoringItem, output: ScoringOutput, mode: Mode = "faithful") -> ScoreResult:
        payload = item.payload or {}
        token = payload.get("special_token")
        try:
            pred = parse_output(output.text, mode)
        except (ValueError, TypeError) as exc:
            return _fail(f"ParserError: Failed to load the pred. {exc}", [], "parse")
        token_at = find_token(pred, token) if token else None
        token_metric = {"token_found": token_at is not None} if token else {}

        notes: list[str] = []
        first = check(pred, item.schema)
        if first is not None:
            notes.append(f"schema: {first.describe()}; retrying after type conversion")
            try:
                schema = _schema_obj(item.schema)
                pred = fixed_coerce(pred, schema) if mode == "fixed" else faithful_coerce(pred, schema)
            except Exception as exc:  # noqa: BLE001 - the original turns any failure into a ValidationError
                return _fail(f"ValidationError: Failed to validate the pred aginst the schema. {exc}",
                             [*notes, f"type conversion failed: {type(exc).__name__}: {exc}"
                              + (" (the original's conversion needs every property the schema lists)"
                                 if isinstance(exc, KeyError) else "")],
                             "schema", parsed=True, **token_metric)
            second = check(pred, item.schema)
            if second is not None:
                return _fail(f"ValidationError: Failed to validate the pred aginst the schema. {second.message}",
                             [*notes, f"after conversion: {second.describe()}"], "schema", parsed=True,
                             **token_metric)
            notes.append("valid only after type conversion")

        verified = None
        verify_schema = payload.get("verify_schema")
        if verify_schema is not None:
            failure = check(pred, verify_schema)
            verified = failure is None
            if failure is not None:
                return _fail(f"ValidationError: {failure.message}", [*notes, f"verify schema: {failure.describe()}"],
                             "verify", parsed=True, schema_valid=True, verified=False, **token_metric)
        elif token and mode == "fixed":
            verified = token_at is not None
            if not verified:
                return _fail("ValidationError: the special token is not in the output",
                             [*notes, f"fixed mode: no string value equals the special token {token!r}"],
                             "verify", parsed=True, schema_valid=True, verified=False, **token_metric)
        if token and token_at:
            notes.append(f"special token found at {token_at}")
        metrics = {"parsed": True, "schema_valid": True, "verified": verified, "valid": True, **token_metric}
        return ScoreResult(metrics, "valid", True, notes=["True", *notes])

    def aggregate(self, pairs: list[tuple[ScoringItem, ScoreResult]]) -> dict[str, Any]:
        """Accuracy per subset ("complex", "custom", "escape", others as found) and ``overall``.

        ``overall`` is the mean of the Complex, Custom and Escape accuracies
        (each subset weighs the same, whatever its size), over those present;
        ``overall_subsets`` lists which were.
        """
        by_subset: dict[str, list[bool]] = defaultdict(list)
        for item, res in pairs:
            if res.skipped:
                continue
            by_subset[subset_of(item)].append(bool(res.metrics.get("valid")))
        subsets = {name: {"samples": len(v), "valid": sum(v), "accuracy": sum(v) / len(v)}
                   for name, v in sorted(by_subset.items())}
        present = [s for s in SUBSETS if s in subsets]
        overall = sum(subsets[s]["accuracy"] for s in present) / len(present) if present else None
        return {"by_subset": subsets, "overall": overall, "overall_subsets": present}


def subset_of(item: ScoringItem) -> str:
    return str((item.payload or {}).get("subset") or item.category or "complex").lower()
