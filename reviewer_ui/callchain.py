"""Gold and predicted call chains side by side (Qt-free, for the call_chain layout).

Predicted calls are matched to gold calls the way the NesTools scorer does
(``reviewer.scoring.nestools_match.match_item``, by api_id) when the gold's
api ids are known, else by api name in order. Data-flow edges come from
``reviewer.callgraph``; a predicted edge whose producer is matched to a gold
call other than the gold edge's producer is a "wrong producer".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reviewer.callgraph import Edge, dangling, edges

UNK = "UNK"


@dataclass
class CallRow:
    """One line of the aligned table: a gold call, a predicted call, or both."""

    gold: int | None
    pred: int | None
    status: str  # match | params differ | missing | extra
    differing: list[str] = field(default_factory=list)  # parameter names whose values differ


@dataclass
class CallAlignment:
    gold: list[dict]
    predicted: list[dict] | None  # None: nothing could be read from the output
    rows: list[CallRow]
    gold_edges: list[Edge]
    pred_edges: list[Edge]
    wrong_producer: set[int]  # indexes into pred_edges
    unk: set[tuple[str, int, str]]  # ("gold"|"pred", call, parameter) whose value is "UNK"
    dangling: set[tuple[str, int, str]]  # placeholders no earlier call returns

    def pred_to_gold(self) -> dict[int, int]:
        return {r.pred: r.gold for r in self.rows if r.pred is not None and r.gold is not None}


def _calls(value: Any) -> list[dict]:
    return [c for c in value if isinstance(c, dict)] if isinstance(value, list) else []


def _params(call: dict) -> dict:
    p = call.get("parameters")
    return p if isinstance(p, dict) else {}


def _match(gold: list[dict], pred: list[dict], api_ids: list | None) -> list[tuple[int, int]]:
    if api_ids and len(api_ids) == len(gold) and all(i is not None for i in api_ids) and all(
        "api_id" in c for c in pred
    ):
        from reviewer.scoring.nestools_match import match_item

        counts = match_item(gold, list(api_ids), pred, "", fixed=True)
        return list(counts.matches)
    free: dict[Any, list[int]] = {}
    for i, call in enumerate(gold):
        free.setdefault(call.get("api_name"), []).append(i)
    out = []
    for j, call in enumerate(pred):
        candidates = free.get(call.get("api_name")) or []
        if candidates:
            best = max(candidates, key=lambda i: sum(_params(gold[i]).get(k) == v for k, v in _params(call).items()))
            candidates.remove(best)
            out.append((best, j))
    return out


def _unk(calls: list[dict], side: str) -> set[tuple[str, int, str]]:
    return {(side, i, str(k)) for i, c in enumerate(calls) for k, v in _params(c).items()
            if isinstance(v, str) and v.strip().upper() == UNK}


def align_calls(gold_value: Any, predicted_value: Any, api_ids: list | None = None) -> CallAlignment:
    gold = _calls(gold_value)
    pred = _calls(predicted_value) if predicted_value is not None else None
    pairs = _match(gold, pred, api_ids) if pred is not None else []
    by_gold = {g: p for g, p in pairs}
    by_pred = {p: g for g, p in pairs}
    rows: list[CallRow] = []
    # Gold order first; each unmatched predicted call goes after the row of the
    # predicted call before it, so the table reads in both orders.
    for g, call in enumerate(gold):
        p = by_gold.get(g)
        if p is None:
            rows.append(CallRow(g, None, "missing"))
            continue
        gp, pp = _params(call), _params(pred[p])
        differing = sorted(str(k) for k in set(gp) | set(pp) if gp.get(k) != pp.get(k))
        rows.append(CallRow(g, p, "params differ" if differing else "match", differing))
    for p in range(len(pred or [])):
        if p not in by_pred:
            after = max((i for i, r in enumerate(rows) if r.pred is not None and r.pred < p), default=len(rows) - 1)
            rows.insert(after + 1, CallRow(None, p, "extra"))
    gold_edges = edges(gold)
    pred_edges = edges(pred or [])
    # A predicted edge is right when the gold chain feeds the same parameter of
    # the matched consumer from the same response of the matched producer.
    gold_links = {(e.producer, e.response_index, e.consumer, e.parameter) for e in gold_edges}
    wrong = {
        i for i, e in enumerate(pred_edges)
        if (by_pred.get(e.producer), e.response_index, by_pred.get(e.consumer), e.parameter) not in gold_links
    }
    unk = _unk(gold, "gold") | _unk(pred or [], "pred")
    loose = {("gold", c, p) for c, p, _ in dangling(gold)} | {("pred", c, p) for c, p, _ in dangling(pred or [])}
    return CallAlignment(gold, pred, rows, gold_edges, pred_edges, wrong, unk, loose)
