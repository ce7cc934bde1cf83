"""Reading a NesTools prediction: the model's text → a list of predicted calls.

Official rule (faithful): take the text from the first "[" to the last "]",
read it as a Python literal, else as JSON; the result must be a list whose
items are dicts each holding "api_name", "api_id" and a dict "parameters".
Anything else is a format failure, and the output then predicts nothing.

Fixed mode adds one fallback, "first parsable list": when the official slice
does not parse (typically because prose after the answer contains another
"]"), the first "[" from which a complete JSON array or Python list can be read is used.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from typing import Any

REQUIRED_KEYS = ("api_name", "api_id", "parameters")


@dataclass
class ParsedCalls:
    """``calls`` is None on a format failure; ``problem`` then says why."""

    calls: list[dict] | None
    problem: str | None = None
    recovered: bool = False  # True when fixed mode's fallback found the list


def _literal(text: str) -> Any:
    """Python literal first, then JSON, as the official script tries them."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    return json.loads(text)  # raises ValueError (JSONDecodeError) when not JSON either


def _official_slice(text: str) -> Any:
    start, end = text.find("["), text.rfind("]") + 1
    # With no "]" the official slice text[start:0] is empty and fails to parse.
    return _literal(text[start:end])


def _first_parsable_list(text: str) -> Any:
    decoder = json.JSONDecoder()
    start = text.find("[")
    while start != -1:
        try:
            value, _ = decoder.raw_decode(text, start)
            return value
        except ValueError:
            pass
        # A Python-literal list (single quotes, True/None) up to each later "]".
        end = text.find("]", start)
        while end != -1:
            try:
                return ast.literal_eval(text[start : end + 1])
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                end = text.find("]", end + 1)
        start = text.find("[", start + 1)
    raise ValueError("no parsable list")


def check_calls(value: Any) -> str | None:
    """Why ``value`` is not a valid list of predicted calls, or None when it is."""
    if not isinstance(value, list):
        return f"the answer is a {type(value).__name__}, not a list of calls"
    for index, call in enumerate(value):
        if not isinstance(call, dict):
            return f"$[{index}] is a {type(call).__name__}, not a call object"
        missing = [k for k in REQUIRED_KEYS if k not in call]
        if missing:
            return f"$[{index}] lacks {', '.join(missing)}"
        if not isinstance(call["parameters"], dict):
            return f"$[{index}].parameters is not an object"
    return None


def parse_calls(text: Any, fixed: bool = False) -> ParsedCalls:
    """Parse a model's answer into calls; see the module docstring for the rules."""
    if not isinstance(text, str):
        return ParsedCalls(None, "the response is not text")
    try:
        value = _official_slice(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        if not fixed:
            return ParsedCalls(None, "no list could be read between the first '[' and the last ']'")
        try:
            value = _first_parsable_list(text)
        except ValueError:
            return ParsedCalls(None, "no list of calls could be read anywhere in the text")
        problem = check_calls(value)
        return ParsedCalls(None if problem else value, problem, recovered=problem is None)
    problem = check_calls(value)
    return ParsedCalls(None if problem else value, problem)
