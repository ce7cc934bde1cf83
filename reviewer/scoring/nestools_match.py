"""Matching one NesTools prediction against its gold chain: the per-item counts.

Follows the official evaluation script (paper 004) step by step:

- Selection: predicted calls are taken left to right; each one whose api_id
  equals (Python ``==``) the api_id of a gold call not yet consumed is correct
  and consumes, among those gold calls, the one with the best parameter score
  (the first on ties; the first of them when every score is 0).
- Order: the multiset overlap of consecutive (api_id, api_id) pairs; a
  prediction of fewer than two calls predicts no pair.
- Parameters: for a matched call, the sum over predicted parameters that the
  gold call also has of the value score (reviewer.scoring.nestools_similarity);
  every predicted parameter counts in the predicted total, every gold one in
  the gold total.
- Nested parameters: a gold value that is exactly a gold response placeholder
  scores 1 iff the predicted value is a placeholder returned, at the same
  response position, by the predicted call already matched to the gold
  producer (so consistent renumbering is fine). Other gold values that mention
  "API_call" (lists of placeholders, texts around one) must be equal. Every
  predicted value mentioning "API_call" counts as a predicted nested parameter.
- Tree pass: all four dimensions exactly right (tp == predicted == gold).

The same pass classifies parameter errors as paper 004 §5.5.2 does (see
``ParamErrors``). Fixed mode (``fixed=True``) changes only what its flags say.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from reviewer.scoring.nestools_similarity import safe_value_score

NEST_MARK = "API_call"


@dataclass
class ParamErrors:
    """Parameter error counts of paper 004 §5.5.2, over matched calls.

    Non-nested: ``omission`` (gold parameter missing or "UNK"), ``redundancy``
    (predicted parameter the gold call lacks), ``type`` (right value, wrong
    type: ``str(gold) == str(predicted)``), ``extraction`` (wrong value, the gold
    value appears in the task text), ``others`` (wrong value not in the task).
    Nested: ``nest_hallucination`` (a placeholder where gold has a plain value),
    ``nest_omission`` (nested gold parameter missing or "UNK"),
    ``nest_identification`` (plain value where gold nests),
    ``nest_confusion`` (a placeholder pointing at the wrong response).
    """

    type: int = 0
    omission: int = 0
    redundancy: int = 0
    extraction: int = 0
    others: int = 0
    nest_omission: int = 0
    nest_identification: int = 0
    nest_confusion: int = 0
    nest_hallucination: int = 0

    NON_NESTED = ("type", "omission", "redundancy", "extraction", "others")
    NESTED = ("nest_omission", "nest_identification", "nest_confusion", "nest_hallucination")


@dataclass
class ItemCounts:
    """Counts of one item; summed over items they give the official micro averages."""

    format_ok: bool = False
    selection_tp: int = 0
    selection_pred: int = 0
    selection_gold: int = 0
    order_tp: int = 0
    order_pred: int = 0
    order_gold: int = 0
    param_tp: float = 0.0
    param_pred: int = 0
    param_gold: int = 0
    nested_tp: int = 0
    nested_pred: int = 0
    nested_gold: int = 0
    errors: ParamErrors = field(default_factory=ParamErrors)
    matches: list[tuple[int, int]] = field(default_factory=list)  # (gold index, predicted index)

    DIMENSIONS = ("selection", "order", "param", "nested")

    @property
    def tree_pass(self) -> bool:
        return all(
            getattr(self, f"{d}_tp") == getattr(self, f"{d}_pred") == getattr(self, f"{d}_gold")
            for d in self.DIMENSIONS
        )


def _mentions_nesting(value: Any) -> bool:
    return NEST_MARK in str(value)


class _IdKey:
    """An api_id usable as a dict key and compared as the chosen mode says."""

    @staticmethod
    def faithful(api_id: Any) -> Any:
        try:
            hash(api_id)
        except TypeError:
            return ("unhashable", repr(api_id))  # the official script would crash here
        return api_id

    @staticmethod
    def fixed(api_id: Any) -> Any:
        # "9031", 9031 and 9031.0 name the same API.
        if isinstance(api_id, bool):
            return ("bool", api_id)
        if isinstance(api_id, float) and api_id.is_integer():
            return str(int(api_id))
        if isinstance(api_id, (int, str)):
            return str(api_id).strip()
        return _IdKey.faithful(api_id)


def _response_list(call: dict) -> list[Any]:
    """A predicted call's response placeholders in order; non-strings kept as -1."""
    responses = call.get("responses")
    if not isinstance(responses, dict):
        return []
    return [r if isinstance(r, str) else -1 for r in responses.values()]


def _locate(responses: list[list[Any]], placeholder: Any) -> tuple[int, int]:
    """(call, position) of ``placeholder``; the last call returning it wins; (-1, -1) if none."""
    found = (-1, -1)
    for call_index, names in enumerate(responses):
        for position, name in enumerate(names):
            if name == placeholder:
                found = (call_index, position)
                break
    return found


def match_item(
    gold_calls: list[dict],
    gold_ids: list[Any],
    predicted: list[dict] | None,
    task: str,
    fixed: bool = False,
) -> ItemCounts:
    """Count one item. ``gold_ids[i]`` is the api_id of ``gold_calls[i]``;
    ``predicted`` is None on a format failure.

    Fixed mode: api ids compared as normalised text ("9031" == 9031), and the
    error analysis leaves nested gold parameters to the nested categories
    instead of also counting them as non-nested "others".
    """
    key = _IdKey.fixed if fixed else _IdKey.faithful
    counts = ItemCounts(selection_gold=len(gold_calls))
    gold_keys = [key(i) for i in gold_ids]

    # Gold nested values: placeholder -> (producer index, response position).
    gold_responses = []
    gold_nested: dict[str, tuple[int, int] | None] = {}
    for call in gold_calls:
        gold_responses.append(list(call.get("responses") or []))
        for value in call["parameters"].values():
            if _mentions_nesting(value):
                counts.nested_gold += 1
                where = _locate(gold_responses, str(value))
                gold_nested[str(value)] = where if where != (-1, -1) else None
        counts.param_gold += len(call["parameters"])
    unconsumed: dict[Any, list[int]] = {}
    for index, k in enumerate(gold_keys):
        unconsumed.setdefault(k, []).append(index)

    if predicted is None:
        counts.order_gold = len(gold_calls) - 1
        return counts
    counts.format_ok = True

    pred_keys = [key(c["api_id"]) for c in predicted]
    if len(predicted) <= 1:
        counts.order_gold = len(gold_calls) - 1
    else:
        gold_pairs = Counter(zip(gold_keys, gold_keys[1:]))
        pred_pairs = Counter(zip(pred_keys, pred_keys[1:]))
        counts.order_gold = len(gold_calls) - 1 if gold_calls else 0
        counts.order_pred = len(predicted) - 1
        counts.order_tp = sum((gold_pairs & pred_pairs).values())

    matches: list[tuple[int, int]] = []  # (gold index, predicted index), in prediction order
    pred_responses: list[list[Any]] = []
    for p_index, call in enumerate(predicted):
        params = call["parameters"]
        counts.selection_pred += 1
        counts.param_pred += len(params)
        pred_responses.append(_response_list(call))
        counts.nested_pred += sum(1 for v in params.values() if _mentions_nesting(v))

        candidates = unconsumed.get(pred_keys[p_index]) or []
        if not candidates:
            continue
        counts.selection_tp += 1
        best_score, best_nested, best_gold = 0.0, 0, candidates[0]
        for g_index in candidates:
            score, nested = _call_score(
                gold_calls[g_index]["parameters"], params, gold_nested, pred_responses, matches
            )
            if score > best_score:
                best_score, best_nested, best_gold = score, nested, g_index
        counts.param_tp += best_score
        counts.nested_tp += best_nested
        matches.append((best_gold, p_index))
        candidates.remove(best_gold)

    counts.matches = matches
    _classify_errors(counts.errors, gold_calls, predicted, matches, task, fixed)
    return counts


def _call_score(gold_params, pred_params, gold_nested, pred_responses, matches) -> tuple[float, int]:
    """(parameter score, nested hits) of one predicted call against one gold call."""
    score, nested_hits = 0.0, 0
    for name, predicted in pred_params.items():
        if name not in gold_params:
            continue
        gold = gold_params[name]
        if str(gold) in gold_nested:
            where = gold_nested[str(gold)]
            if where is None:  # a list of placeholders or a text around one: must be equal
                hit = gold == predicted
            elif isinstance(predicted, str) and NEST_MARK in predicted:
                g_producer, g_position = where
                p_producer, p_position = _locate(pred_responses, predicted)
                hit = p_position == g_position and (g_producer, p_producer) in matches
            else:
                hit = False
            if hit:
                score += 1
                nested_hits += 1
        else:
            score += safe_value_score(gold, predicted)
    return score, nested_hits


def _classify_errors(errors: ParamErrors, gold_calls, predicted, matches, task: str, fixed: bool):
    """Fill ``errors`` for the matched calls, in gold order (paper 004 §5.5.2)."""
    gold_responses = [list(c.get("responses") or []) for c in gold_calls]
    pred_responses = [_response_list(c) for c in predicted]
    placed: dict[int, int] = {}  # gold index -> predicted index, filled in gold order
    ordered = sorted(matches, key=lambda m: m[0])
    for g_index, p_index in ordered:
        placed[g_index] = p_index
        pred_params = predicted[p_index]["parameters"]
        for name, gold in gold_calls[g_index]["parameters"].items():
            if not _mentions_nesting(gold):
                if name in pred_params and _mentions_nesting(pred_params[name]):
                    errors.nest_hallucination += 1
                continue
            # Where the producer's output sits in the prediction, when the producer
            # is matched to a predicted call that comes before this one.
            location = None
            for producer, names in enumerate(gold_responses):
                for position, placeholder in enumerate(names):
                    if placeholder == gold and producer in placed and placed[producer] < p_index:
                        location = (placed[producer], position)
            if location is None:
                continue
            if name not in pred_params:
                errors.nest_omission += 1
                continue
            value = pred_params[name]
            if value == "UNK":
                errors.nest_omission += 1
            elif not _mentions_nesting(value):
                errors.nest_identification += 1
            else:
                responses = pred_responses[location[0]]
                if location[1] >= len(responses) or responses[location[1]] != value:
                    errors.nest_confusion += 1

    lowered_task = task.lower()
    for g_index, p_index in ordered:
        gold_params = gold_calls[g_index]["parameters"]
        pred_params = predicted[p_index]["parameters"]
        errors.redundancy += sum(1 for name in pred_params if name not in gold_params)
        for name, gold in gold_params.items():
            if fixed and _mentions_nesting(gold):
                continue  # judged by the nested categories above
            if name not in pred_params or pred_params[name] == "UNK":
                errors.omission += 1
                continue
            value = pred_params[name]
            if safe_value_score(gold, value) == 1:
                continue
            if str(gold) == str(value):
                errors.type += 1
            elif str(gold).lower() in lowered_task:
                errors.extraction += 1
            else:
                errors.others += 1
