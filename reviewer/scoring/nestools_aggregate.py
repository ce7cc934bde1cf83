"""NesTools summary numbers: micro-averaged P/R/F1 over a run, as the official script.

Counts of all scored items are summed first, then P = tp / predicted (0 when
nothing was predicted), R = tp / gold, F1 = 2PR / (P + R) (0 when P + R = 0).
Average is the mean of the four F1. Where a group has no gold nested
parameter, nested P/R/F1 and the Average are None: the official script prints
neither for its depth-1 table (and divides by zero elsewhere).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

DIMENSIONS = ("selection", "order", "param", "nested")
ERROR_NAMES = (
    "type", "omission", "redundancy", "extraction", "others",
    "nest_omission", "nest_identification", "nest_confusion", "nest_hallucination",
)
# Column order of the official CSV after the file name.
OFFICIAL_COLUMNS = (
    "format_accuracy",
    "selection_p", "selection_r", "selection_f1",
    "order_p", "order_r", "order_f1",
    "param_p", "param_r", "param_f1",
    "nested_p", "nested_r", "nested_f1",
    "average",
)


def prf(tp: float, predicted: float, gold: float) -> tuple[float, float | None, float | None]:
    """(P, R, F1) with the official zero conventions; R and F1 are None when gold is 0."""
    precision = tp / predicted if predicted else 0.0
    if not gold:
        return precision, None, None
    recall = tp / gold
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def summarise(metrics: Iterable[Mapping[str, Any]], report_nested: bool = True) -> dict[str, Any]:
    """Micro-averaged summary of per-item metric dicts (as ``NesToolsScorer.score`` makes).

    ``report_nested=False`` leaves nested P/R/F1 and the Average out (None), as
    the official depth-1 table does whatever the counts are.
    """
    totals: dict[str, float] = {}
    items = 0
    for m in metrics:
        items += 1
        for name in ["format_ok", "tree_pass", *ERROR_NAMES] + [
            f"{d}_{c}" for d in DIMENSIONS for c in ("tp", "pred", "gold")
        ]:
            totals[name] = totals.get(name, 0) + (m.get(name) or 0)
    out: dict[str, Any] = {"items": items}
    if not items:
        return out
    out["format_accuracy"] = totals["format_ok"] / items
    out["tree_pass_rate"] = totals["tree_pass"] / items
    f1s = []
    for d in DIMENSIONS:
        p, r, f1 = prf(totals[f"{d}_tp"], totals[f"{d}_pred"], totals[f"{d}_gold"])
        if d == "nested" and (not totals["nested_gold"] or not report_nested):
            p = r = f1 = None
        out[f"{d}_p"], out[f"{d}_r"], out[f"{d}_f1"] = p, r, f1
        f1s.append(f1)
    out["average"] = sum(f1s) / 4 if all(f is not None for f in f1s) else None
    out["counts"] = {k: totals[k] for k in totals if k not in ERROR_NAMES}
    out["parameter_errors"] = {
        "non_nested": {k: int(totals[k]) for k in ERROR_NAMES[:5]},
        "nested": {k.removeprefix("nest_"): int(totals[k]) for k in ERROR_NAMES[5:]},
    }
    return out


def official_row(summary: Mapping[str, Any]) -> list[str]:
    """The summary as the official CSV prints it: percentages with one decimal,
    stopping before nested and Average where those are None."""
    row = []
    for column in OFFICIAL_COLUMNS:
        value = summary.get(column)
        if value is None:
            break
        row.append(f"{value * 100:.1f}")
    return row
