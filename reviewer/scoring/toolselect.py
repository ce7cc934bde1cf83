"""Tool-selection scorer (paper 002, Natural Language Tools), kind ``tool_select``.

An item lists tools (``payload["tools"]``: name + description) and the gold is
the sorted list of tools that should be selected (maybe empty). A trial
passes iff the selected set equals the gold set exactly: no partial credit,
an extra or a missing tool fails (paper 002 §3.1).

Two answer styles are read:
- NLT: after the model's "Thinking:", one line per tool ``Name -- YES`` or
  ``Name -- NO``, ending "Assessment finished." (Appendix A). The last line
  for a tool wins; a tool without a line counts as NO.
- Structured: an OpenAI-style tool_calls list in ``output.extra["tool_calls"]``
  or as JSON text; function names are matched to tool names ignoring case,
  a "check_" prefix and punctuation ("check_safety_call" is "Safety Call").
``output.extra["approach"]`` ("nlt" / "structured") forces the style; without
it, NLT lines win, then tool calls; text with neither selects nothing.

The paper publishes no scorer code, so faithful mode follows its description
of a regex/string-matching parser literally: a tool line must start with the
tool name and use a dash separator (-, --, – or —). Fixed mode ("lenient
lines") also reads lines wrapped in Markdown (bullets, **bold**, `code`) and
a ":" separator, which models often produce for the same decision.

``aggregate`` gives accuracy over all trials, per-replication accuracies
(``extra["replication"]``), their variance and standard deviation (the
paper's stability figures), and per-category accuracy.
"""

from __future__ import annotations

import json
import re
import statistics
from typing import Any

from reviewer.scoring.base import Mode, ScoreResult, ScoringItem, ScoringOutput
from reviewer.scoring.bfcl_decode import DecodeError, decode_structured
from reviewer.scoring.registry import register_scorer

FINISHED = "assessment finished"
_STRICT_SEPARATOR = r"\s*(?:--|-|–|—)\s*"
_LENIENT_SEPARATOR = r"\s*(?:--|-|–|—|:)\s*"
_MARKUP = re.compile(r"[*_`#>]+")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


def tool_key(name: str) -> str:
    """Name used to match tools: lowercase words joined by "_", without a "check_" prefix."""
    key = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    return key.removeprefix("check_")


def parse_nlt(text: str, tools: list[str], lenient: bool = False) -> tuple[dict[str, bool], bool]:
    """Per tool, True for YES / False for NO, from the tool lines that were found;
    and whether the answer ends with "Assessment finished."."""
    separator = _LENIENT_SEPARATOR if lenient else _STRICT_SEPARATOR
    patterns = {
        tool: re.compile(rf"^{re.escape(tool)}{separator}(yes|no)\b", re.IGNORECASE) for tool in tools
    }
    decisions: dict[str, bool] = {}
    for raw_line in text.splitlines():
        line = raw_line.strip()
        if lenient:
            line = _MARKUP.sub("", _BULLET.sub("", line)).strip()
        for tool, pattern in patterns.items():
            match = pattern.match(line)
            if match:
                decisions[tool] = match.group(1).lower() == "yes"
    finished = text.strip().rstrip(".").lower().endswith(FINISHED)
    return decisions, finished


def _tool_call_names(output: ScoringOutput) -> list[str] | None:
    """Function names of a structured answer, or None when there is no tool-call data."""
    calls = output.extra.get("tool_calls")
    if calls is None and isinstance(output.text, str):
        text = output.text.strip()
        if text.startswith(("[", "{")):
            try:
                parsed = json.loads(text)
            except ValueError:
                return None
            calls = parsed.get("tool_calls", parsed) if isinstance(parsed, dict) else parsed
    if calls is None:
        return None
    try:
        return [next(iter(call)) for call in decode_structured(calls)] if calls else []
    except DecodeError:
        return None


def selected_tools(item_tools: list[str], output: ScoringOutput, lenient: bool) -> tuple[set[str] | None, list[str]]:
    """(selected tool names, notes); None when the answer could not be read."""
    approach = str(output.extra.get("approach") or "").lower()
    notes: list[str] = []
    text = output.text if isinstance(output.text, str) else ""
    if approach != "structured":
        decisions, finished = parse_nlt(text, item_tools, lenient)
        if decisions or approach == "nlt":
            if not decisions:
                return None, ["no 'Tool -- YES/NO' line found"]
            missing = [t for t in item_tools if t not in decisions]
            if missing:
                notes.append(f"no line for {', '.join(missing)} (read as NO)")
            if not finished:
                notes.append('does not end with "Assessment finished."')
            return {t for t, yes in decisions.items() if yes}, notes
    names = _tool_call_names(output)
    if names is None:
        if approach == "structured" and text.strip().startswith(("[", "{")):
            return None, ["the tool calls could not be read"]
        return set(), ["no tool call and no YES/NO lines: read as selecting no tool"]
    by_key = {tool_key(t): t for t in item_tools}
    chosen = set()
    for name in names:
        tool = by_key.get(tool_key(name))
        if tool is None:
            notes.append(f"called {name!r}, which is not one of the item's tools")
            tool = name
        chosen.add(tool)
    return chosen, notes


@register_scorer
class ToolSelectScorer:
    name = "toolselect"
    kind = "tool_select"

    def score(self, item: ScoringItem, output: ScoringOutput, mode: Mode = "faithful") -> ScoreResult:
        tools = [t["name"] for t in (item.payload or {}).get("tools", []) if isinstance(t, dict) and "name" in t]
        gold = set(item.gold or [])
        if output.status == "error":
            return ScoreResult({}, "exact_match", None, skipped=True,
                               notes=["the model call failed: excluded, as the paper retries such trials"])
        replication = output.extra.get("replication", 0)
        chosen, notes = selected_tools(tools, output, lenient=mode == "fixed")
        if chosen is None:
            metrics = {"exact_match": 0, "parsed": False, "selected": None, "replication": replication}
            return ScoreResult(metrics, "exact_match", False, notes=[f"mode: {mode}", *notes])
        exact = chosen == gold
        if not exact:
            extra, missing = sorted(chosen - gold), sorted(gold - chosen)
            notes.append(f"extra: {extra or 'none'}; missing: {missing or 'none'}")
        metrics = {"exact_match": int(exact), "parsed": True, "selected": len(chosen),
                   "extra": len(chosen - gold), "missing": len(gold - chosen), "replication": replication}
        return ScoreResult(metrics, "exact_match", exact, notes=[f"mode: {mode}", *notes])

    def aggregate(self, pairs: list[tuple[ScoringItem, ScoreResult]]) -> dict[str, Any]:
        """``accuracy`` over trials; ``by_replication`` {replication: accuracy};
        ``variance`` / ``sd`` of those accuracies (population, ddof=0) and
        ``variance_sample`` (ddof=1); ``by_category``; ``consistent_items``: share
        of items whose replications all agree. ``score`` copies each output's
        ``extra["replication"]`` (default 0) into ``metrics["replication"]``."""
        trials = [(item, result) for item, result in pairs if not result.skipped]
        out: dict[str, Any] = {"trials": len(trials), "skipped": len(pairs) - len(trials)}
        if not trials:
            out["accuracy"] = None
            return out
        out["accuracy"] = sum(r.metrics["exact_match"] for _, r in trials) / len(trials)
        by_rep: dict[Any, list[int]] = {}
        by_cat: dict[str, list[int]] = {}
        by_item: dict[str, set[int]] = {}
        for item, result in trials:
            value = result.metrics["exact_match"]
            by_rep.setdefault(result.metrics.get("replication", 0), []).append(value)
            by_cat.setdefault(item.category or "all", []).append(value)
            by_item.setdefault(item.record_id, set()).add(value)
        rep_acc = {rep: sum(v) / len(v) for rep, v in sorted(by_rep.items())}
        values = list(rep_acc.values())
        out["by_replication"] = rep_acc
        out["variance"] = statistics.pvariance(values)
        out["sd"] = statistics.pstdev(values)
        out["variance_sample"] = statistics.variance(values) if len(values) > 1 else None
        out["by_category"] = {c: sum(v) / len(v) for c, v in sorted(by_cat.items())}
        out["consistent_items"] = sum(1 for s in by_item.values() if len(s) == 1) / len(by_item)
        return out


SCORER = ToolSelectScorer()
