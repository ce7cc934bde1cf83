"""A BFCL output call beside its possible answers, parameter by parameter, "any of".

A possible answer lists every acceptable value of a parameter (``[42.0]``,
``["NYC", "New York"]``; "" means it may be left out); the output gives one
value. So a value is compared with the list, not with the list as a value:
42.0 against ``[42.0]`` is a match. ``compare_output`` reports, for each
expected call, each parameter's status:

- ``match``: the value passes BFCL's rules for that parameter (type, Java /
  JavaScript conversion, string normalisation, any of the allowed values);
  ``matched`` is the allowed value it matched;
- ``mismatch``: it does not; ``reason`` gives BFCL's error type and message;
- ``missing``: required or not marked optional, and not given;
- ``optional_absent``: not given and allowed to be absent (a match);
- ``unexpected``: given but not in the schema or the possible answer.

``gold_for_diff`` is the possible answer resolved against the output, for a
structural diff: a matching parameter shows the output's own value (no
change), a mismatching one its first allowed value, an optional absent one is
left out. Reads the output as the fixed-mode decoder does (Python calls, JSON,
tool calls; Java and JavaScript text with BFCL's tree-sitter parsers when
installed). Qt-free; the item view shows it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reviewer.scoring import bfcl_treesitter
from reviewer.scoring.bfcl import language_of, plain_category
from reviewer.scoring.bfcl_checker import check_param, find_description, standardise
from reviewer.scoring.bfcl_decode import DecodeError, decode
from reviewer.scoring.bfcl_types import UnsupportedConversion

MATCH, MISMATCH, MISSING, OPTIONAL_ABSENT, UNEXPECTED = "match", "mismatch", "missing", "optional_absent", "unexpected"


@dataclass
class ParamComparison:
    name: str
    status: str
    value: Any = None  # the output's value (None when not given)
    allowed: list = field(default_factory=list)  # the possible answer's values ("" = may be absent)
    matched: Any = None  # the allowed value the output matched
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.status in (MATCH, OPTIONAL_ABSENT)


@dataclass
class CallComparison:
    function: str  # the expected function
    output_function: str | None  # the output call paired with it (None: no call of that function)
    params: list[ParamComparison] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.output_function is not None and all(p.ok for p in self.params)


@dataclass
class OutputComparison:
    calls: list[CallComparison] = field(default_factory=list)
    extra_calls: list[dict] = field(default_factory=list)  # output calls paired with no expected call
    output_calls: list[dict] | None = None  # the decoded output (None when it could not be read)
    problem: str | None = None  # why the output could not be read

    @property
    def ok(self) -> bool:
        return self.output_calls is not None and not self.extra_calls and all(c.ok for c in self.calls)


def _same_name(expected: str, given: str) -> bool:
    return given == expected or given == expected.replace(".", "_")


def _matched_value(value: Any, allowed: list) -> Any:
    """The first allowed value equal to the output's (after BFCL's string normalisation), else None."""
    return next((option for option in allowed if option != "" and _any_of(value, [option])), None)


def _any_of(value: Any, allowed: list) -> bool:
    """Without a schema: equal to one allowed value (strings after BFCL's normalisation)."""
    for option in allowed:
        if option == "":
            continue
        if isinstance(option, str) and isinstance(value, str):
            if standardise(option) == standardise(value):
                return True
        elif isinstance(option, bool) or isinstance(value, bool):
            if option is value:
                return True
        elif option == value:
            return True
    return False


def compare_call(call_params: dict | None, answer: dict, description: dict | None, language: str = "python") -> list[ParamComparison]:
    """Every parameter of one expected call against the output's ``{param: value}`` (None: no call)."""
    (_name, possible), = answer.items()
    given = call_params if isinstance(call_params, dict) else {}
    details = ((description or {}).get("parameters") or {}).get("properties") or {}
    out = []
    for param, allowed in possible.items():
        allowed = allowed if isinstance(allowed, list) else [allowed]
        if param not in given:
            status = OPTIONAL_ABSENT if "" in allowed else MISSING
            out.append(ParamComparison(param, status, allowed=allowed))
            continue
        value = given[param]
        if details:
            try:
                checked = check_param(param, value, details, possible, language)
                ok, reason = checked.valid, "" if checked.valid else f"{checked.error_type}: {' '.join(map(str, checked.errors))}"
            except UnsupportedConversion as exc:
                ok, reason = _any_of(value, allowed), f"BFCL cannot check this type ({exc}); compared by value"
        else:
            ok, reason = _any_of(value, allowed), ""
        out.append(ParamComparison(param, MATCH if ok else MISMATCH, value, allowed,
                                   _matched_value(value, allowed) if ok else None, reason))
    for param, value in given.items():
        if param not in possible:
            out.append(ParamComparison(str(param), UNEXPECTED, value, reason="not in the possible answer"))
    return out


def compare_output(
    gold: Any, text: str | None, extra: dict | None = None, functions: list | None = None, category: str | None = None
) -> OutputComparison:
    """The output's calls paired with the expected calls (same function name, the best-matching
    free call first), each parameter compared "any of" (see the module docstring)."""
    answers = [a for a in gold if isinstance(a, dict) and len(a) == 1] if isinstance(gold, list) else []
    functions = functions or []
    language = language_of(plain_category(category))
    try:
        if language != "python" and not (extra or {}).get("tool_calls") and bfcl_treesitter.available():
            calls = bfcl_treesitter.decode_prompting(text or "", language)
            if not isinstance(calls, list):
                raise DecodeError(f"no {language} call found")
        else:
            calls = decode(text, extra)
    except DecodeError as exc:
        return OutputComparison([CallComparison(next(iter(a)), None, compare_call(None, a, None)) for a in answers],
                                output_calls=None, problem=str(exc))
    result = OutputComparison(output_calls=calls)
    free = list(range(len(calls)))
    for answer in answers:
        name = next(iter(answer))
        description = find_description(functions, name)
        best = None
        for index in free:
            (given_name, params), = calls[index].items() if len(calls[index]) == 1 else ((None, None),)
            if given_name is None or not _same_name(name, given_name):
                continue
            params_cmp = compare_call(params, answer, description, language)
            score = sum(p.ok for p in params_cmp)
            if best is None or score > best[0]:
                best = (score, index, given_name, params_cmp)
        if best is None:
            result.calls.append(CallComparison(name, None, compare_call(None, answer, description, language)))
        else:
            free.remove(best[1])
            result.calls.append(CallComparison(name, best[2], best[3]))
    result.extra_calls = [calls[i] for i in free]
    return result


def gold_for_diff(comparison: OutputComparison) -> list[dict]:
    """The possible answers resolved against the output, shaped like the output's calls."""
    out = []
    for call in comparison.calls:
        params = {}
        for p in call.params:
            if p.status == MATCH:
                params[p.name] = p.value
            elif p.status in (MISMATCH, MISSING):
                params[p.name] = next((a for a in p.allowed if a != ""), None)
        out.append({call.output_function or call.function: params})
    return out
