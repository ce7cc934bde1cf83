"""toolJSONprocessing's hallucination flags (official evals.py, used by qa_evaluation.py).

Code setups (``'code_generation' in setup``): ``check_hallucinated_keys or
check_codegen_hallucination``: the code reads a key the response does not
have, or prints a string literal. Both are pure regular expressions and are
reproduced exactly, including their ``except`` branches (a model output that
is not a string gives False).

Direct setups (``'direct_prompting' in setup``): the official check ends with
a sentence-embedding similarity (all-MiniLM-L6-v2) and a pint unit parse. The
app ships no model weights, so only the official early exits are decided here
(no prediction, the gold inside the prediction, the prediction is a key or a
value of the response: all False); every other record is None ("not
computed"), never a guess.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

_CODE_KEYS = re.compile(r"\[\s*['\"]([^'\"]+)['\"]\s*\]|\.get\(\s*['\"]([^'\"]+)['\"]\s*\)")
_PRINTED_LITERAL = re.compile(r'print\((["\'])(.*?)\1\)')


def all_json_keys(obj: Any) -> set:
    keys: set = set()
    if isinstance(obj, dict):
        for k, v in obj.items():
            keys.add(k)
            keys.update(all_json_keys(v))
    elif isinstance(obj, list):
        for item in obj:
            keys.update(all_json_keys(item))
    return keys


def all_json_values(obj: Any) -> list:
    if isinstance(obj, dict):
        return [x for v in obj.values() for x in all_json_values(v)]
    if isinstance(obj, list):
        return [x for v in obj for x in all_json_values(v)]
    return [obj]


def code_keys(model_output: str) -> set[str]:
    """Keys the code subscripts (``["k"]``) or gets (``.get("k")``); both capture groups, empty ones dropped."""
    return {key for match in _CODE_KEYS.findall(model_output) for key in match if key}


def hallucinated_keys(model_output: Any, response: Callable[[], Any]) -> bool:
    """``response`` is called only when the code reads a key (the response may be large)."""
    if not isinstance(model_output, str):  # the official try/except prints "No model output" and says False
        return False
    keys = code_keys(model_output)
    return bool(keys and keys - all_json_keys(response()))


def prints_literal(model_output: Any) -> bool:
    if not isinstance(model_output, str):
        return False
    return bool(_PRINTED_LITERAL.findall(model_output))


def codegen_hallucination(model_output: Any, response: Callable[[], Any]) -> bool:
    """The official flag of a code setup."""
    return hallucinated_keys(model_output, response) or prints_literal(model_output)


def _normalize_text(text: str) -> str:
    deduped: list[str] = []
    for token in text.lower().strip().split():
        if not deduped or token != deduped[-1]:
            deduped.append(token)
    return " ".join(deduped)


def direct_hallucination(gold: Any, pred: Any, response: Callable[[], Any]) -> bool | None:
    """The official direct-prompting flag where it is decided without the embedding model, else None."""
    if pred is None:
        return False
    try:
        if gold in pred:  # no normalisation, any types: a list prediction holding the gold is False
            return False
    except TypeError:  # the official check raises here (e.g. a number gold in a text)
        return None
    if not (isinstance(gold, str) and isinstance(pred, str)):
        return None  # the official normalize_text raises on a non-string
    predicted = _normalize_text(pred)
    data = response()
    try:
        if predicted in all_json_keys(data) or predicted in all_json_values(data):
            return False
    except TypeError:  # unhashable values cannot be keys; the official `in` on a set of keys is the same test
        pass
    return None


def hallucination(setup: str, gold: Any, pred: Any, model_output: Any, response: Callable[[], Any]) -> bool | None:
    """qa_evaluation.py's per-record flag: code setups, then direct setups (a setup named both: the code flag wins,
    as the official code assigns it last); None for other setups or where undecidable here."""
    flag = None
    if "direct_prompting" in setup:
        flag = direct_hallucination(gold, pred, response)
    if "code_generation" in setup:
        flag = codegen_hallucination(model_output, response)
    return flag
