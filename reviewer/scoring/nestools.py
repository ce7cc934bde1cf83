"""NesTools scorer (paper 004): nested tool-call chains, kind ``call_chain``.

Per output: Selection, Order, Parameter and Nested P/R/F1 counts, format
validity, tree pass and the parameter error analysis of §5.5.2; over a run:
micro-averaged P/R/F1 and the official breakdowns by nesting depth
("depth1", "depth2", "depth345") and nesting structure. The rules are in
reviewer.scoring.nestools_match; parsing in nestools_parse; value similarity
(ROUGE-L, date normalisation) in nestools_similarity.

Item fields read: ``gold`` (the gold calls), ``payload["apis"]`` and
``payload["api_ids"]`` (api_id of each api by position), the task text from
``payload["task"]`` or ``raw["task"]`` (for the error analysis).

Faithful mode quirks kept (the official script's behaviour):
- api ids compare with Python ``==``: "9031" never matches 9031;
- a gold call's api_id is looked up by api name (a name listed twice takes the
  last id);
- depth groups use the official substring depth (reviewer.scoring.nestools_shape);
- parameter errors count a wrong nested value twice: as a nested error and as
  a non-nested "others" error;
- parsing reads only from the first "[" to the last "]";
- the main table leaves out items deeper than 5 (none in the released test set).
Fixed mode changes exactly these: "id as text" (ids compared as normalised
text), "exact depth" (reviewer.callgraph depth), "nested errors once",
"first parsable list" (a fallback parse when the official slice fails) and
"all depths" (the main table covers every item).
Both modes skip outputs whose call failed (status "error", the official -1).
"""

from __future__ import annotations

from typing import Any

from reviewer import callgraph
from reviewer.scoring import nestools_shape as shape
from reviewer.scoring.base import Mode, ScoreResult, ScoringItem, ScoringOutput
from reviewer.scoring.nestools_aggregate import DIMENSIONS, prf, summarise
from reviewer.scoring.nestools_match import ItemCounts, ParamErrors, match_item
from reviewer.scoring.nestools_parse import parse_calls
from reviewer.scoring.registry import register_scorer

FIXES = ("id as text", "exact depth", "nested errors once", "first parsable list", "all depths")


class GoldError(ValueError):
    """The item's gold chain cannot be scored (the message says where)."""


def gold_api_ids(item: ScoringItem) -> list[Any]:
    """api_id of each gold call, found by name in the item's api list (last listing wins)."""
    apis = item.payload.get("apis") or item.raw.get("api") or []
    ids = item.payload.get("api_ids") or []
    by_name = {}
    for index, api in enumerate(apis):
        if isinstance(api, dict) and "api_name" in api:
            by_name[api["api_name"]] = ids[index] if index < len(ids) else None
    out = []
    for index, call in enumerate(item.gold or []):
        name = call.get("api_name") if isinstance(call, dict) else None
        if name not in by_name:
            raise GoldError(f"$.gold[{index}].api_name {name!r} is not in the item's api list")
        out.append(by_name[name])
    return out


def _check_gold(gold: Any) -> list[dict]:
    if not isinstance(gold, list):
        raise GoldError("$.gold is not a list of calls")
    for index, call in enumerate(gold):
        if not isinstance(call, dict) or not isinstance(call.get("parameters"), dict):
            raise GoldError(f"$.gold[{index}] is not a call with a parameters object")
    return gold


def _skipped(note: str) -> ScoreResult:
    return ScoreResult(metrics={}, primary="average", passed=None, skipped=True, notes=[note])


@register_scorer
class NesToolsScorer:
    name = "nestools"
    kind = "call_chain"

    def score(self, item: ScoringItem, output: ScoringOutput, mode: Mode = "faithful") -> ScoreResult:
        fixed = mode == "fixed"
        if output.status == "error" or output.text == -1 or output.prediction == -1:
            return _skipped("the call failed (response -1): skipped, as the official script does")
        try:
            gold = _check_gold(item.gold)
            ids = gold_api_ids(item)
        except GoldError as exc:
            return _skipped(f"record {item.record_id!r}: {exc}; not scored")
        text = output.text if output.text is not None else output.prediction
        parsed = parse_calls(text, fixed=fixed)
        task = item.payload.get("task") or item.raw.get("task") or ""
        counts = match_item(gold, ids, parsed.calls, task, fixed=fixed)
        depth = callgraph.chain_depth(gold) if fixed else shape.official_depth(gold)

        metrics = _metrics(counts)
        metrics["depth"] = depth
        # The official main table covers depths 1-5 only (its --target_depths default).
        metrics["in_main_table"] = fixed or 1 <= depth <= 5
        metrics["structure"] = shape.structure_index(gold)
        notes = [f"mode: {mode}" + (f" (fixes: {', '.join(FIXES)})" if fixed else "")]
        if parsed.calls is None:
            notes.append(f"format failure: {parsed.problem}")
        if parsed.recovered:
            notes.append("first parsable list: the official slice did not parse; a list found earlier did")
        notes.extend(_explain(counts, ids, parsed.calls, fixed))
        return ScoreResult(metrics=metrics, primary="average", passed=counts.tree_pass, notes=notes)

    def aggregate(self, pairs: list[tuple[ScoringItem, ScoreResult]]) -> dict[str, Any]:
        """Official summary plus breakdowns.

        Keys: the micro-averaged numbers of ``nestools_aggregate.summarise``
        (fractions, not percentages) over the official main table's items
        (faithful: depth 1-5; fixed: all), ``skipped`` (outputs left out),
        ``outside_main_table`` (items deeper than 5 in faithful mode),
        ``by_depth`` {"depth1", "depth2", "depth345"} (depth1 without nested
        and Average, as the official table), ``by_structure`` {canonical label
        from reviewer.callgraph.nesting_structure}, ``by_official_structure``
        {"struct0"...} and ``parameter_errors`` (paper 004 §5.5.2 counts).
        """
        scored = [(item, result) for item, result in pairs if not result.skipped]
        out = summarise(result.metrics for _, result in scored if result.metrics.get("in_main_table", True))
        out["skipped"] = len(pairs) - len(scored)
        out["outside_main_table"] = sum(1 for _, r in scored if not r.metrics.get("in_main_table", True))
        groups: dict[str, list] = {}
        for item, result in scored:
            group = shape.depth_group(result.metrics.get("depth") or 0)
            if group:
                groups.setdefault(group, []).append(result.metrics)
        out["by_depth"] = {
            g: summarise(groups[g], report_nested=g != "depth1")
            for g in ("depth1", "depth2", "depth345")
            if g in groups
        }
        by_label: dict[str, list] = {}
        by_index: dict[str, list] = {}
        for item, result in scored:
            by_label.setdefault(callgraph.nesting_structure(item.gold or []), []).append(result.metrics)
            index = result.metrics.get("structure")
            if index is not None:
                by_index.setdefault(f"struct{index}", []).append(result.metrics)
        out["by_structure"] = {label: summarise(ms) for label, ms in sorted(by_label.items())}
        out["by_official_structure"] = {
            key: summarise(by_index[key]) for key in sorted(by_index, key=lambda k: int(k[6:]))
        }
        return out


def _metrics(counts: ItemCounts) -> dict[str, Any]:
    metrics: dict[str, Any] = {"format_ok": counts.format_ok, "tree_pass": counts.tree_pass}
    f1s = []
    for d in DIMENSIONS:
        tp, pred, gold = (getattr(counts, f"{d}_{c}") for c in ("tp", "pred", "gold"))
        metrics.update({f"{d}_tp": tp, f"{d}_pred": pred, f"{d}_gold": gold})
        p, r, f1 = prf(tp, pred, gold)
        metrics.update({f"{d}_p": p if gold else None, f"{d}_r": r, f"{d}_f1": f1})
        if f1 is not None:
            f1s.append(f1)
    # Per item, the mean of the F1s that apply (an item without nesting has no nested F1).
    metrics["average"] = sum(f1s) / len(f1s) if f1s else None
    for name in ParamErrors.NON_NESTED + ParamErrors.NESTED:
        metrics[name] = getattr(counts.errors, name)
    return metrics


def _explain(counts: ItemCounts, gold_ids, predicted, fixed: bool) -> list[str]:
    """Short reasons a reviewer can check against the item."""
    notes = []
    if predicted is None:
        return notes
    matched_gold = {g for g, _ in counts.matches}
    matched_pred = {p for _, p in counts.matches}
    for index, call in enumerate(predicted):
        if index not in matched_pred:
            api_id = call.get("api_id")
            hint = ""
            if not fixed and any(str(api_id) == str(g) for g in gold_ids):
                hint = " (same digits as a gold id but a different type; fixed mode accepts it)"
            notes.append(f"predicted call {index} ({call.get('api_name')!r}, api_id {api_id!r}) matches no gold call{hint}")
    for index, api_id in enumerate(gold_ids):
        if index not in matched_gold:
            notes.append(f"gold call {index} (api_id {api_id!r}) was not predicted")
    errors = counts.errors
    found = [f"{n}={getattr(errors, n)}" for n in ParamErrors.NON_NESTED + ParamErrors.NESTED if getattr(errors, n)]
    if found:
        notes.append("parameter errors: " + ", ".join(found))
    return notes


SCORER = NesToolsScorer()
