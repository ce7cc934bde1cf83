"""toolJSONprocessing's string metrics (paper 000, shared/FORMATS.md section 1).

Each metric takes the gold answer and the prediction and returns a bool. The
``faithful_*`` functions reproduce the official scorer; ``fixed_*`` wrap them
with the corrections of the app's fixed mode. They are pure and cheap: the
scorer calls them once per record, the bench calls them in a tight loop.
"""

from __future__ import annotations

import re
from typing import Any

# The official number pattern (signs, decimals, ".5", exponents). It has no
# thousands separator, so "1,234" reads as the two numbers 1 and 234.
_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
# Fixed mode also reads "1,234,567.5" as one number.
_NUMBER_WITH_SEPARATORS = re.compile(r"[-+]?\d{1,3}(?:,\d{3})+(?:\.\d*)?|" + _NUMBER.pattern)

METRIC_BY_TASK_TYPE = {
    "EXTRACTIVE": "accuracy_string",
    "FILTERING": "unordered_list_str_match",
    "AGGREGATION": "approx_number_match",
}


class GoldHasNoNumber(ValueError):
    """approx_number_match on a gold answer without a number (the original raises here)."""


def _drop_final_dot(s: str) -> str:
    return s[:-1] if s.endswith(".") else s


def accuracy_string(gold: str, pred: str) -> bool:
    """strip+lower both, drop one trailing "." from the prediction, compare."""
    return gold.strip().lower() == _drop_final_dot(pred.strip().lower())


def _list_elements(s: str) -> set[str]:
    return {_drop_final_dot(e.strip().lower()) for e in s.strip().lower().split(",")}


def unordered_list_str_match(gold: str, pred: str) -> bool:
    """Drop one trailing "." from the prediction, split both on "," only, compare as sets.

    Elements are stripped, lower-cased and lose one trailing "."; duplicates
    collapse (a set), so "Black, Black" equals "Black".
    """
    return _list_elements(gold) == _list_elements(_drop_final_dot(pred))


def approx_number_match(gold: str, pred: str, pattern: re.Pattern = _NUMBER) -> bool:
    """The first number in the gold against every number in the prediction.

    True when any prediction number is strictly within 1 of the gold number
    (the official test is ``abs(p - g) < 1``: gold 1 and prediction 2 fail).
    Raises GoldHasNoNumber when the gold has no number, as the original does.
    """
    gold_numbers = pattern.findall(gold)
    if not gold_numbers:
        raise GoldHasNoNumber(f"the gold answer {gold!r} contains no number")
    g = _to_float(gold_numbers[0])
    return any(abs(_to_float(p) - g) < 1 for p in pattern.findall(pred))


def _to_float(token: str) -> float:
    return float(token.replace(",", ""))


def contains(gold: str, pred: str) -> bool:
    """The strip+lower gold is a substring of the strip+lower prediction less one trailing "."."""
    return gold.strip().lower() in _drop_final_dot(pred.strip().lower())


EXACT_MATCH = {
    "accuracy_string": accuracy_string,
    "unordered_list_str_match": unordered_list_str_match,
    "approx_number_match": approx_number_match,
}


def _as_number(text: str) -> float | None:
    """The value of a text that is just a number ("1,234.50", "8.", "$8"), else None."""
    t = _drop_final_dot(text.strip()).lstrip("$").strip()
    if _NUMBER_WITH_SEPARATORS.fullmatch(t):
        return _to_float(t)
    return None


def fixed_exact_match(metric: str, gold: str, pred: str) -> bool:
    """The fixed mode's exact match.

    As official, except: numbers may carry thousands separators, and where
    gold and prediction are both just a number, they compare as numbers
    ("8.50" equals "8.5" under accuracy_string).
    """
    if metric == "approx_number_match":
        return approx_number_match(gold, pred, _NUMBER_WITH_SEPARATORS)
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
