"""BFCL v3 scorer (kind ``function_call``): AST checking against possible answers.

Item fields read: ``gold`` (the possible-answer ``ground_truth`` list, one
``{function: {param: [allowed values]}}`` per expected call),
``payload["functions"]`` (the function schemas), ``category`` (the BFCL test
category: simple, multiple, parallel, parallel_multiple, live_*, irrelevance...).
The answer is read by reviewer.scoring.bfcl_decode; the checks are
reviewer.scoring.bfcl_checker (see there for every rule and fixed-mode change).

Relevance categories: "irrelevance" passes when the answer holds no call (or
cannot be read as one), "relevance" when it holds at least one. The Java,
JavaScript, multi-turn, executable (exec, rest), sql and chatable categories
need BFCL's type converters, execution or state checkers and are not scored
(skipped, with a note).

Per output: ``accuracy`` (1 or 0, primary), ``calls`` (how many were read)
and, in the notes, BFCL's error type and message. ``aggregate`` gives the
accuracy over all scored outputs, per category, and the unweighted mean of
the category accuracies.
"""

from __future__ import annotations

from typing import Any

from reviewer.scoring.base import Mode, ScoreResult, ScoringItem, ScoringOutput
from reviewer.scoring.bfcl_checker import check_calls, undot_names
from reviewer.scoring.bfcl_decode import DecodeError, decode
from reviewer.scoring.registry import register_scorer

# Categories BFCL scores with other checkers (type converters, execution, state).
UNSUPPORTED = ("java", "javascript", "multi_turn", "exec", "rest", "sql", "chatable")


def _result(valid: bool, calls: int | None, notes: list[str]) -> ScoreResult:
    return ScoreResult(
        metrics={"accuracy": 1 if valid else 0, "calls": calls}, primary="accuracy", passed=valid, notes=notes
    )


@register_scorer
class BfclScorer:
    name = "bfcl"
    kind = "function_call"

    def score(self, item: ScoringItem, output: ScoringOutput, mode: Mode = "faithful") -> ScoreResult:
        fixed = mode == "fixed"
        category = (item.category or "simple").lower()
        if any(category == u or category.startswith(u + "_") for u in UNSUPPORTED):
            return ScoreResult({}, "accuracy", None, skipped=True,
                               notes=[f"category {category!r} needs BFCL's {category.split('_')[0]} checker, which reviewer "
                                      "does not implement; not scored"])
        if output.status == "error":
            return _result(False, None, ["the model call failed"])
        notes = [f"mode: {mode}"]
        try:
            calls = decode(output.text, output.extra)
        except DecodeError as exc:
            calls, problem = None, str(exc)
        else:
            problem = None

        if "irrelevance" in category:
            valid = not calls
            notes.append("no call made, as expected" if valid else f"made {len(calls)} call(s) where none fits")
            return _result(valid, len(calls) if calls else 0, notes)
        if "relevance" in category:
            valid = bool(calls)
            notes.append("made a call, as expected" if valid else "made no call where one was expected")
            return _result(valid, len(calls) if calls else 0, notes)
        if calls is None:
            notes.append(f"the answer could not be read as function calls: {problem}")
            return _result(False, None, notes)

        functions = (item.payload or {}).get("functions") or []
        if fixed:
            calls = undot_names(calls, functions)
        answers = item.gold if isinstance(item.gold, list) else []
        check = check_calls(functions, calls, answers, category, fixed=fixed)
        if not check.valid:
            notes.append(f"{check.error_type}: " + " ".join(str(e) for e in check.errors))
        return _result(check.valid, len(calls), notes)

    def aggregate(self, pairs: list[tuple[ScoringItem, ScoreResult]]) -> dict[str, Any]:
        """``accuracy`` over scored outputs, ``by_category`` {category: {accuracy, items}},
        ``category_mean`` (unweighted mean over categories) and ``skipped``."""
        by_category: dict[str, list[int]] = {}
        skipped = 0
        for item, result in pairs:
            if result.skipped:
                skipped += 1
                continue
            by_category.setdefault(item.category or "simple", []).append(result.metrics["accuracy"])
        scores = [s for values in by_category.values() for s in values]
        categories = {
            c: {"accuracy": sum(v) / len(v), "items": len(v)} for c, v in sorted(by_category.items())
        }
        return {
            "items": len(scores),
            "skipped": skipped,
            "accuracy": sum(scores) / len(scores) if scores else None,
            "by_category": categories,
            "category_mean": (
                sum(c["accuracy"] for c in categories.values()) / len(categories) if categories else None
            ),
        }


SCORER = BfclScorer()
