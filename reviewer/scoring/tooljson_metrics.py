"""toolJSONprocessing's string metrics (paper 000, shared/FORMATS.md section 1).

Faithful functions (``accuracy_string``, ``unordered_list_str_match``,
``approx_number_match``, ``contains``, ``official_exact_match``) follow the
official ``generate_qa_pairs/tasks/evals.py`` and ``calculate_exact_match`` of
``experimental_scripts/qa_evaluation.py`` (LongFuncEval/toolJSONprocessing,
commit 2662547b), branch by branch:

* every metric is False unless gold and prediction are both ``str``;
* approx_number_match reads the prediction with a pattern that has capture
  groups, so ``re.findall`` yields tuples and the official code takes group 1:
  the digits WITHOUT the sign and WITHOUT the exponent ("-19" is read as 19,
  "0.90e1" as 0.90). The gold pattern has no capture groups, so the gold keeps
  its sign and exponent. The gold is only read inside the loop over prediction
  numbers: a gold without a number raises (IndexError) only when the
  prediction holds a number; otherwise the result is False;
* unordered_list_str_match drops one trailing "." from the prediction BEFORE
  stripping and writes it back to the record, so the ``contains`` computed
  after it (qa_evaluation calls exact match first) sees the shortened text;
* calculate_exact_match picks the metric by substring test on the metric name,
  in the order accuracy_string, approx_number_match, unordered_list_str_match,
  and returns None when none is named.

``fixed_*`` functions are the app's corrected mode; each difference is listed
in ``FIXED_MODE_DIFFERENCES``. All functions are pure and cheap.
"""

from __future__ import annotations

import re
from typing import Any

# The official prediction pattern, capture groups included (they decide what
# findall returns: a tuple per match, of which the official code uses [0]).
OFFICIAL_PRED_NUMBER = re.compile(r"[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?")
# The official gold pattern: non-capturing groups, so each match is the whole
# token (sign and exponent included).
OFFICIAL_GOLD_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")

# Fixed mode: whole tokens (sign and exponent kept), thousands separators allowed.
_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
_NUMBER_WITH_SEPARATORS = re.compile(r"[-+]?\d{1,3}(?:,\d{3})+(?:\.\d*)?(?:[eE][-+]?\d+)?|" + _NUMBER.pattern)

METRIC_BY_TASK_TYPE = {
    "EXTRACTIVE": "accuracy_string",
    "FILTERING": "unordered_list_str_match",
    "AGGREGATION": "approx_number_match",
}

FIXED_MODE_DIFFERENCES = {
    "signed numbers": "approx_number_match keeps the sign (officially '-19' matches gold '19')",
    "exponents": "approx_number_match keeps the exponent (officially '0.90e1' is read as 0.90)",
    "thousands separators": "'1,234' is one number (officially the numbers 1 and 234)",
    "numbers as text": "non-string predictions are read as text (8 -> '8', lists joined with ', ')",
    "number equality": "accuracy_string compares two plain numbers as numbers ('8.50' equals '8.5')",
    "no list-match side effect": "unordered_list_str_match does not shorten the prediction that contains then reads",
    "gold without number": "approx_number_match is False when the gold has no number (officially it raises "
                           "when the prediction holds a number)",
    "metric name": "a metric name that names no metric exactly uses the one it contains, else the task type's "
                   "(officially exact_match is None)",
    "'None' is missing": "a prediction stored as the string 'None' or '' counts as missing for the dropping rule",
    "code without prediction": "when a prediction file has no predicted_answer but the output holds code, "
                               "the code is run in the sandbox (officially every metric is False)",
}


class GoldHasNoNumber(ValueError):
    """approx_number_match on a gold answer without a number (the official code raises IndexError here)."""


def _both_str(gold: Any, pred: Any) -> bool:
    return isinstance(gold, str) and isinstance(pred, str)


def _drop_final_dot(s: str) -> str:
    return s[:-1] if s.endswith(".") else s


def accuracy_string(gold: Any, pred: Any) -> bool:
    """Official: both str; strip+lower both, drop one trailing "." from the prediction, compare."""
    if not _both_str(gold, pred):
        return False
    return gold.strip().lower() == _drop_final_dot(pred.strip().lower())


def _list_elements(s: str) -> set[str]:
    return {_drop_final_dot(e.strip().lower()) for e in s.strip().lower().split(",")}


def official_unordered_list(gold: Any, pred: Any) -> tuple[bool, Any]:
    """Official unordered_list_str_match: ``(match, prediction as the official code leaves it)``.

    The official function drops one trailing "." from the raw prediction
    (before any strip) and stores it back on the record; the second value is
    that shortened prediction, which the official ``contains`` then reads.
    """
    if not _both_str(gold, pred):
        return False, pred
    pred = _drop_final_dot(pred)
    return _list_elements(gold) == _list_elements(pred), pred


def unordered_list_str_match(gold: Any, pred: Any) -> bool:
    """Official: both str; split on "," only, elements strip+lower less one trailing ".", compare as sets."""
    return official_unordered_list(gold, pred)[0]


def approx_number_match(gold: Any, pred: Any) -> bool:
    """Official: any number of the prediction within 1 (strictly) of the gold's first number.

    Prediction numbers are read without sign and exponent (see the module
    docstring). Raises GoldHasNoNumber where the official code raises
    IndexError: the gold has no number and the prediction has one.
    """
    if not _both_str(gold, pred):
        return False
    for groups in OFFICIAL_PRED_NUMBER.findall(pred):
        gold_numbers = OFFICIAL_GOLD_NUMBER.findall(gold)
        if not gold_numbers:
            raise GoldHasNoNumber(f"the gold answer {gold!r} contains no number")
        if abs(float(groups[0]) - float(gold_numbers[0])) < 1:
            return True
    return False


def contains(gold: Any, pred: Any) -> bool:
    """Official: both str; strip+lower gold is a substring of the strip+lower prediction less one trailing "."."""
    if not _both_str(gold, pred):
        return False
    return gold.strip().lower() in _drop_final_dot(pred.strip().lower())


def official_metric(metric: Any) -> str | None:
    """The metric calculate_exact_match runs for a record's ``exact_match_metric``.

    Substring tests in the official order; None when none is named (the
    official exact_match is then None).
    """
    if not isinstance(metric, str):
        return None
    for name in ("accuracy_string", "approx_number_match", "unordered_list_str_match"):
        if name in metric:
            return name
    return None


def official_exact_match(metric: Any, gold: Any, pred: Any) -> tuple[bool | None, Any]:
    """calculate_exact_match of qa_evaluation.py: ``(exact_match, prediction left for contains)``.

    Raises GoldHasNoNumber where the official run would stop.
    """
    name = official_metric(metric)
    if name == "accuracy_string":
        return accuracy_string(gold, pred), pred
    if name == "approx_number_match":
        return approx_number_match(gold, pred), pred
    if name == "unordered_list_str_match":
        return official_unordered_list(gold, pred)
    return None, pred


EXACT_MATCH = {
    "accuracy_string": accuracy_string,
    "unordered_list_str_match": unordered_list_str_match,
    "approx_number_match": approx_number_match,
}


def _to_float(token: str) -> float:
    return float(token.replace(",", ""))


def fixed_approx_number_match(gold: str, pred: str) -> bool:
    """Fixed: whole number tokens (sign, exponent, thousands separators); False when the gold has none."""
    gold_numbers = _NUMBER_WITH_SEPARATORS.findall(gold)
    if not gold_numbers:
        return False
    g = _to_float(gold_numbers[0])
    return any(abs(_to_float(p) - g) < 1 for p in _NUMBER_WITH_SEPARATORS.findall(pred))


def _as_number(text: str) -> float | None:
    """The value of a text that is just a number ("1,234.50", "8.", "$8"), else None."""
    t = _drop_final_dot(text.strip()).lstrip("$").strip()
    if _NUMBER_WITH_SEPARATORS.fullmatch(t):
        return _to_float(t)
    return None


def fixed_exact_match(metric: str, gold: str, pred: str) -> bool:
    """The fixed mode's exact match on two strings (see FIXED_MODE_DIFFERENCES)."""
    if metric == "approx_number_match":
        return fixed_approx_number_match(gold, pred)
    if metric == "accuracy_string":
        g, p = _as_number(gold), _as_number(pred)
        if g is not None and p is not None:
            return g == p
    return EXACT_MATCH[metric](gold, pred)


def as_answer_text(value: Any) -> str | None:
    """The fixed mode's reading of a non-string answer (a code output) as text.

    8 -> "8", 8.0 -> "8", 2.5 -> "2.5", True -> "True", a list -> its elements
    joined with ", " (the way gold lists are joined); None stays None.
    """
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple, set)):
        return ", ".join(as_answer_text(v) or "" for v in value)
    return str(value)
