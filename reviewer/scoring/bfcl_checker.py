"""BFCL's AST checker, rule for rule, for Python, Java and JavaScript calls.

Reimplemented from bfcl-eval's ``eval_checker/ast_eval/ast_checker.py`` (the
current release, 2026.3.23) and checked record by record against it
(tests/scoring/test_bfcl_official.py). A possible answer maps each parameter
to its allowed values; "" among them means the parameter may be left out.

Rules (faithful):
- simple: exactly one call; multiple: exactly as many calls as possible
  answers, and only the first is checked; parallel: calls matched to possible
  answers regardless of order, greedily (each answer takes the first
  still-free call that passes);
- a call passes when the function name matches, every required parameter is
  present, every given parameter is in the schema and in the possible answer,
  its value has the schema type and is one of the allowed values, and every
  omitted parameter allows "";
- types: exact Python types (a bool is not an integer), except that an int is
  accepted for a float; "any" means string; array/tuple items are
  type-checked one level deep; a value of the possible answers' own type is
  accepted when that differs from the schema type (BFCL's "variable" case);
- strings compare after removing spaces and ``,./-_*^``, lowercasing and
  turning ' into "; lists compare whole, in order, their strings standardised;
  dicts key by key (no unexpected key, no missing key unless it allows "");
- Java and JavaScript (``language``): every argument must be a string
  (``type_error:java`` / ``type_error:js`` otherwise) and is converted by its
  declared type first (reviewer.scoring.bfcl_types), then checked as above;
  no int-to-float allowance;
- a tuple is accepted only for a ``tuple`` parameter (for ``array`` it fails
  the type check); a ``**kwargs`` entry arrives under the key None and is an
  unexpected parameter;
- ``underscore_to_dot`` (BFCL's per-model flag for function-calling APIs)
  expects "math_hypot" for "math.hypot";
- where the official checker stops with an exception (a type it has no
  mapping for, Java Set/Queue/Stack/Hashtable, an array without ``items``)
  UnsupportedConversion is raised and the scorer reports "not scored".

Fixed mode, each difference named:
- "optimal parallel matching": parallel calls are matched with a maximum
  bipartite matching, so an early call that fits two answers cannot block a
  correct assignment (officially greedy);
- "dotted names": "math_factorial" and "math.factorial" are both accepted
  (officially only one of them, by the model's ``underscore_to_dot``);
- with the fixed decoder (bfcl_decode.decode): tuples arrive as lists, so a
  tuple passes an ``array`` parameter; ``**{"a": 1}`` arrives as ``a=1``.
Where the official checker would crash on the item rather than judge the
output (the expected function is not in the item's list, a possible answer
that is not a parameter object) UnsupportedConversion is raised ("not
scored"); reviewer-only error types: ``simple_function_checker:no_answer``
(no possible answer), ``:unclear`` (arguments are not an object).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from reviewer.scoring.bfcl_types import JAVA_TYPES, JS_TYPES, UnsupportedConversion, java_convert, js_convert

TYPES: dict[str, type] = {
    "string": str,
    "integer": int,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "dict": dict,
    "any": str,
}
NESTED_TYPES = ("array", "tuple")


@dataclass
class Check:
    valid: bool
    errors: list[str] = field(default_factory=list)
    error_type: str = ""
    is_variable: bool = False


def _fail(error_type: str, message: str) -> Check:
    return Check(False, [message], error_type)


_STANDARDISE = re.compile(r"[ ,./\-_*^]")


def standardise(text: str) -> str:
    """BFCL's string normal form: no spaces or ``,./-_*^``, lowercase, ' as "."""
    return _STANDARDISE.sub("", text).lower().replace("'", '"')


def _answer_type(allowed: list) -> type | None:
    for value in allowed:
        if value != "":
            return type(value)
    return None


def check_type(param: str, value: Any, allowed: list, schema_type: str, expected: type, nested: type | None) -> Check:
    answer_type = _answer_type(allowed)
    is_variable = answer_type is not None and answer_type != expected
    failure: Check | None = None
    if type(value) == expected:
        if nested is None:
            return Check(True, is_variable=is_variable)
        for option in allowed:
            ok = True
            if type(option) == list:
                for item in value:
                    if not check_type(param, item, option, str(nested), nested, None).valid:
                        ok = False
                        break
            if ok:
                return Check(True, is_variable=is_variable)
        failure = _fail(
            "type_error:nested",
            f"Nested type checking failed for parameter {param!r}. Expected outer type "
            f"{schema_type} with inner type {nested}. Parameter value: {value!r}.",
        )
    if answer_type is not None and type(value) == answer_type:
        return failure or Check(True, is_variable=True)
    message = (
        f"Incorrect type for parameter {param!r}. Expected type {schema_type}, "
        f"got {type(value).__name__}. Parameter value: {value!r}."
    )
    if failure:
        failure.errors.append(message)
        failure.error_type = "type_error:simple"
        return failure
    return _fail("type_error:simple", message)


def _standard(value: Any) -> Any:
    return standardise(value) if type(value) == str else value


def check_string(param: str, value: str, allowed: list) -> Check:
    if standardise(value) not in [standardise(a) for a in allowed if type(a) == str]:
        return _fail(
            "value_error:string",
            f"Invalid value for parameter {param!r}: {value!r}. Expected one of {allowed}. Case insensitive.",
        )
    return Check(True)


def check_list(param: str, value: list, allowed: list) -> Check:
    given = [_standard(v) for v in value]
    # As in BFCL, an optional marker "" reads as an empty list, so [] passes when optional.
    options = [[_standard(v) for v in option] for option in allowed if isinstance(option, (list, str))]
    if given not in options:
        return _fail("value_error:list/tuple", f"Invalid value for parameter {param!r}: {value!r}. Expected one of {allowed}.")
    return Check(True)


def check_dict(param: str, value: dict, allowed: list) -> Check:
    result = _fail("dict_checker:unclear", f"Invalid value for parameter {param!r}: {value!r}.")
    for option in allowed:
        if option == "":
            continue
        result = Check(False, [], "dict_checker:unclear")
        ok = True
        for key, item in value.items():
            if key not in option:
                result = _fail("value_error:dict_key", f"Unexpected dict key parameter: '{key}'.")
                ok = False
                break
            if _standard(item) not in [_standard(o) for o in option[key]]:
                result = _fail(
                    "value_error:dict_value",
                    f"Invalid value for parameter {key!r}: {item!r}. Expected one of {option[key]}.",
                )
                ok = False
                break
        for key, options in option.items():
            if key not in value and "" not in options:
                result = _fail("value_error:dict_key", f"Missing dict key parameter: '{key}'.")
                ok = False
                break
        if ok:
            return Check(True)
    return result


def check_list_of_dicts(param: str, value: list, allowed: list) -> Check:
    result = _fail("list_dict_checker:unclear", f"Invalid value for parameter {param!r}: {value!r}.")
    for option in allowed:
        if option == "" and not value:
            return Check(True)  # BFCL: the optional marker has length 0, like an empty list
        if not isinstance(option, list) or len(value) != len(option):
            result = _fail("value_error:list_dict_count", "Wrong number of dictionaries in the list.")
            continue
        ok = True
        for item, expected in zip(value, option):
            result = check_dict(param, item, [expected])
            if not result.valid:
                ok = False
                break
        if ok:
            return Check(True)
    return result


NESTED_CONVERSION_TYPES = ("Array", "ArrayList", "array")


def _schema_type(details: dict, param: str, what: str) -> Any:
    """A declared type the official checker reads by subscript; missing means it would stop."""
    try:
        return details[param]["type"] if what == "type" else details[param]["items"]["type"]
    except (KeyError, TypeError):
        field_name = "type" if what == "type" else "items.type"
        raise UnsupportedConversion(
            f"parameter {param!r} has no {field_name} in its schema; the official checker stops here (KeyError)"
        ) from None


def _converted(param: str, value: Any, schema_type: str, details: dict, language: str):
    """``(value, expected type, nested type)`` after the language's conversion, or a failed Check."""
    nested = None
    if language == "python":
        if schema_type not in TYPES:
            raise UnsupportedConversion(f"parameter {param!r} has a type BFCL's Python rules do not know: {schema_type!r}")
        expected = TYPES[schema_type]
        if schema_type in NESTED_TYPES:
            nested_type = _schema_type(details, param, "items")
            if nested_type not in TYPES:
                raise UnsupportedConversion(f"parameter {param!r} has items of a type BFCL does not know: {nested_type!r}")
            nested = TYPES[nested_type]
        return value, expected, nested
    table, convert, tag = (JAVA_TYPES, java_convert, "java") if language == "java" else (JS_TYPES, js_convert, "js")
    if schema_type not in table:
        raise UnsupportedConversion(f"parameter {param!r} has a type BFCL's {language} rules do not know: {schema_type!r}")
    expected = table[schema_type]
    if type(value) != str:
        return _fail(
            f"type_error:{tag}",
            f"Incorrect type for parameter {param!r}. Expected type String, got {type(value).__name__}. "
            f"Parameter value: {value!r}.",
        ), None, None
    if schema_type in NESTED_CONVERSION_TYPES:
        nested_type = _schema_type(details, param, "items")
        if nested_type not in table:
            raise UnsupportedConversion(f"parameter {param!r} has items of a type BFCL does not know: {nested_type!r}")
        nested = table[nested_type]
        return convert(value, schema_type, nested_type), expected, nested
    return convert(value, schema_type), expected, nested


def check_param(param: Any, value: Any, details: dict, possible: dict, language: str = "python") -> Check:
    """One given parameter of a call, by the official rules (type, conversion, allowed values).

    ``details`` is the schema's ``properties``, ``possible`` the possible
    answer's ``{param: [allowed values]}``. Raises UnsupportedConversion where
    the official checker stops.
    """
    if param not in details or param not in possible:
        return _fail("simple_function_checker:unexpected_param", f"Unexpected parameter: {param!r}.")
    schema_type = _schema_type(details, param, "type")
    value, expected, nested = _converted(param, value, schema_type, details, language)
    if isinstance(value, Check):
        return value
    if schema_type == "tuple" and type(value) == tuple:
        value = list(value)
    if language == "python" and schema_type == "float" and type(value) == int:
        value = float(value)
    allowed = possible[param]
    typed = check_type(param, value, allowed, schema_type, expected, nested)
    if not typed.valid:
        return typed
    if not typed.is_variable:
        if expected == dict:
            return check_dict(param, value, allowed)
        if expected == list and nested == dict:
            return check_list_of_dicts(param, value, allowed)
        if expected == str:
            return check_string(param, value, allowed)
        if expected == list:
            return check_list(param, value, allowed)
    if value not in allowed:
        return _fail(
            "value_error:others",
            f"Invalid value for parameter {param!r}: {value!r}. Expected one of {allowed}.",
        )
    return Check(True)


def check_call(
    description: dict | None, call: dict, answer: dict, language: str = "python", underscore_to_dot: bool = False
) -> Check:
    """One predicted call ``{name: params}`` against one possible answer ``{name: allowed}``.

    ``language`` is "python", "java" or "javascript" (BFCL's simple_java and
    simple_javascript categories): in the latter two every argument must be a
    string of source code and is converted by its declared type first
    (reviewer.scoring.bfcl_types). Raises UnsupportedConversion where the
    official checker itself stops (a type it cannot convert or does not know).
    ``underscore_to_dot`` is BFCL's per-model setting for function-calling
    APIs that forbid "." in names: the expected name "math.hypot" is then
    looked up as "math_hypot" (and the dotted name no longer matches).
    """
    (expected_name, possible), = answer.items()
    if description is None:
        raise UnsupportedConversion(
            f"the possible answer names function {expected_name!r}, which is not in the item's function list "
            "(the official checker stops here: TypeError)")
    if not isinstance(possible, dict):
        raise UnsupportedConversion(
            f"the possible answer for {expected_name!r} is a {type(possible).__name__}, not a parameter object "
            "(the official checker stops here)")
    schema = description.get("parameters") or {}
    details = schema.get("properties") or {}
    required = schema.get("required") or []
    name = description["name"]
    if underscore_to_dot and "." in name:
        name = re.sub(r"\.", "_", name)
    if name not in call:
        return _fail("simple_function_checker:wrong_func_name", f"Function name {name!r} not found in model output.")
    params = call[name]
    if not isinstance(params, dict):
        return _fail("simple_function_checker:unclear", f"Arguments of {name!r} are not an object.")
    for param in required:
        if param not in params:
            return _fail("simple_function_checker:missing_required", f"Missing required parameter: {param!r}.")
    for param, value in params.items():
        checked = check_param(param, value, details, possible, language)
        if not checked.valid:
            return checked
    for param, allowed in possible.items():
        if param not in params and "" not in allowed:
            return _fail(
                "simple_function_checker:missing_optional",
                f"Optional parameter {param!r} not provided and not marked as optional.",
            )
    return Check(True)


def find_description(functions: list[dict], name: str) -> dict | None:
    return next((f for f in functions if isinstance(f, dict) and f.get("name") == name), None)


def _parallel_greedy(functions, calls, answers, language: str, underscore_to_dot: bool) -> Check:
    used: set[int] = set()
    for index, answer in enumerate(answers):
        description = find_description(functions, next(iter(answer)))
        last = None
        for position, call in enumerate(calls):
            if position in used:
                continue
            last = check_call(description, call, answer, language, underscore_to_dot)
            if last.valid:
                used.add(position)
                break
        if last is None or not last.valid:
            free = [i for i in range(len(calls)) if i not in used]
            detail = last.errors if last else []
            return Check(
                False,
                [f"Could not find a matching function among index {free} of model output for index {index} of possible answers.", *detail],
                "parallel_function_checker_no_order:cannot_find_match",
            )
    return Check(True)


def _parallel_optimal(functions, calls, answers, language: str, underscore_to_dot: bool) -> Check:
    fits = [
        [j for j, call in enumerate(calls) if check_call(find_description(functions, next(iter(a))), call, a, language, underscore_to_dot).valid]
        for a in answers
    ]
    owner: dict[int, int] = {}

    def assign(i: int, seen: set[int]) -> bool:  # augmenting path (Kuhn's algorithm)
        for j in fits[i]:
            if j not in seen:
                seen.add(j)
                if j not in owner or assign(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    for i in range(len(answers)):
        if not assign(i, set()):
            return _fail(
                "parallel_function_checker_no_order:cannot_find_match",
                f"No assignment of the model's calls satisfies possible answer {i}.",
            )
    return Check(True)


def check_calls(
    functions: list[dict], calls: list[dict], answers: list[dict], category: str, fixed: bool = False,
    language: str = "python", underscore_to_dot: bool = False,
) -> Check:
    """BFCL ``ast_checker``: dispatch on ``category`` ("parallel" in it, else "multiple", else simple)."""
    if "parallel" in category:
        if len(calls) != len(answers):
            return _fail("parallel_function_checker_no_order:wrong_count", "Wrong number of functions.")
        return (_parallel_optimal if fixed else _parallel_greedy)(functions, calls, answers, language, underscore_to_dot)
    if "multiple" in category:
        if len(calls) != len(answers):
            return _fail("multiple_function_checker:wrong_count", "Wrong number of functions.")
    elif len(calls) != 1:
        return _fail("simple_function_checker:wrong_count", "Wrong number of functions.")
    if not answers:
        return _fail("simple_function_checker:no_answer", "The item has no possible answer.")
    answer = answers[0]
    if "multiple" in category:
        description = find_description(functions, next(iter(answer)))
    else:
        description = functions[0] if functions else None
    return check_call(description, calls[0], answer, language, underscore_to_dot)


def undot_names(calls: list[dict], functions: list[dict]) -> list[dict]:
    """Fixed mode: rename "a_b" to "a.b" where only the dotted function exists."""
    names = {f.get("name") for f in functions if isinstance(f, dict)}
    aliases = {n.replace(".", "_"): n for n in names if isinstance(n, str) and "." in n}
    out = []
    for call in calls:
        renamed = {}
        for name, params in call.items():
            renamed[aliases.get(name, name) if name not in names else name] = params
        out.append(renamed)
    return out
