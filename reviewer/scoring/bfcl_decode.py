"""Reading a function-calling answer into calls ``[{function_name: {param: value}}]``.

Two decoders:

``decode_ast_prompting`` (faithful mode) is BFCL's ``default_decode_ast_prompting``
(bfcl-eval ``model_handler/utils.py``: ``ast_parse`` / ``resolve_ast_call`` /
``resolve_ast_by_type``) rule for rule: the text has backticks, newlines and
spaces stripped from both ends, is wrapped in ``[...]`` when it does not start
or end with a bracket, and must then be a Python list of calls (or one call).
Positional arguments are dropped; ``**kwargs`` gives the key None (which the
checker then rejects as an unexpected parameter); a tuple stays a tuple (so it
fails an ``array`` parameter and passes a ``tuple`` one); arithmetic such as
``5*2`` is computed; any unary operator NEGATES a literal operand (``+5`` is
-5, ``not True`` is -1) and fails on anything else; a bare name is its text;
a call without keywords is its source text, one with keywords a nested call
dict; ``x[i]`` is its source text; lambdas, attributes, sets, comparisons and
f-strings fail. A fenced answer with a language tag (```` ```python ````) and JSON
fail to decode, as officially. Where the official code runs ``eval`` on the
arithmetic, reviewer evaluates the same operators on literals itself and never
runs model text; the differences (each only where the official code could
compute something reviewer will not):
  - names or calls inside arithmetic (``len(x)*2``; officially evaluated in the
    decoder module's globals, usually a NameError) are a decoding failure;
  - results over ``MAX_EVAL_SIZE`` (``10**10**9``, ``"a"*10**9``,
    ``"%0999999d" % 1``) are a decoding failure instead of a hang or an
    out-of-memory.

``decode`` (fixed mode) is lenient, for the forms real models write; it
differs from the official decoder in each of these, on purpose: fences with a
language tag and JSON are read; tuples become lists (accepted for arrays);
arithmetic and unary operators are computed as Python does (``+5`` is 5,
``not True`` is False), or kept as source text when they involve names;
``f(**{"a": 1})`` is ``f(a=1)`` (other ``**`` unpacking fails to decode);
a lambda or comparison is its source text and a set a set, instead of a
failure.
Accepted forms (the first that applies wins):
- ``extra["tool_calls"]``: an OpenAI-style list of ``{"function": {"name", "arguments"}}``
  (arguments as a JSON string or an object);
- JSON text (code fences allowed): a list of ``{name: {args}}``, a list of
  ``{"name": .., "arguments"|"parameters": ..}``, a list of OpenAI tool calls,
  or one such object alone;
- Python call syntax as BFCL's prompting models write it: ``[f(a=1), g.h(b="x")]``
  or ``f(a=1)``; bare names become their text ("x" for ``a=x``), other
  expressions their source text.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

Call = dict[str, dict[str, Any]]


class DecodeError(ValueError):
    """The answer holds no readable function call; the message says why."""


_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")


def _strip_fences(text: str) -> str:
    return _FENCE.sub("", text.strip()).strip()


def _arguments(value: Any, where: str) -> dict:
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else {}
        except ValueError as exc:
            raise DecodeError(f"{where}: arguments are not valid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise DecodeError(f"{where}: arguments are a {type(value).__name__}, not an object")
    return value


def _from_json_call(entry: Any, where: str) -> Call:
    if not isinstance(entry, dict):
        raise DecodeError(f"{where} is a {type(entry).__name__}, not a call")
    if isinstance(entry.get("function"), dict):  # OpenAI tool call
        entry = entry["function"]
    if "name" in entry and isinstance(entry["name"], str):
        args = entry.get("arguments", entry.get("parameters", {}))
        return {entry["name"]: _arguments(args, where)}
    if len(entry) == 1:
        (name, args), = entry.items()
        return {name: _arguments(args, where)}
    raise DecodeError(f"{where}: a call needs a name and its arguments")


def decode_structured(value: Any) -> list[Call]:
    """Calls from already-parsed JSON (a tool_calls list, one call, or a list of calls)."""
    entries = value if isinstance(value, list) else [value]
    return [_from_json_call(e, f"$[{i}]") for i, e in enumerate(entries)]


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    raise DecodeError(f"not a function name: {ast.unparse(node)}")


def _value(node: ast.AST) -> Any:
    if isinstance(node, ast.Name):
        return node.id  # BFCL reads a variable as its name
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_value(e) for e in node.elts]
    if isinstance(node, ast.Dict):
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values) if k is not None}
    if isinstance(node, (ast.BinOp, ast.UnaryOp)):
        try:  # arithmetic on literals is computed (5*2 -> 10, +5 -> 5, -x stays "-x")
            value = _evaluate(node)
        except (_Refused, ArithmeticError, TypeError, ValueError):
            return ast.unparse(node)
        return list(value) if isinstance(value, tuple) else value
    try:
        return ast.literal_eval(node)
    except ValueError:
        return ast.unparse(node)


def _from_python_call(node: ast.AST) -> Call:
    if not isinstance(node, ast.Call):
        raise DecodeError(f"not a function call: {ast.unparse(node)}")
    args = {}
    for kw in node.keywords:
        if kw.arg is not None:
            args[kw.arg] = _value(kw.value)
        elif isinstance(kw.value, ast.Dict):  # f(**{"a": 1}) is f(a=1)
            unpacked = _value(kw.value)
            args.update({k: v for k, v in unpacked.items() if isinstance(k, str)})
        else:
            raise DecodeError(f"**{ast.unparse(kw.value)}: the arguments it holds are unknown")
    return {_dotted(node.func): args}


def decode_python(text: str) -> list[Call]:
    """Calls from Python syntax ``[f(a=1), g(b=2)]`` or ``f(a=1)``."""
    body = _strip_fences(text)
    if not body.startswith("["):
        body = f"[{body}]"
    try:
        tree = ast.parse(body, mode="eval").body
    except SyntaxError as exc:
        raise DecodeError(f"not Python call syntax ({exc.msg})") from None
    elements = tree.elts if isinstance(tree, ast.List) else [tree]
    return [_from_python_call(e) for e in elements]


# ------------------------------------------------------------------ faithful decoder

MAX_EVAL_SIZE = 100_000  # digits of an int, items of a str/bytes/list/tuple computed from arithmetic


class _Refused(Exception):
    pass


def _checked_size(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        if value.bit_length() > MAX_EVAL_SIZE * 3.33:
            raise _Refused("an integer too large to compute")
    elif isinstance(value, (str, bytes, list, tuple)) and len(value) > MAX_EVAL_SIZE:
        raise _Refused("a value too large to compute")
    return value


_BINOPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a ** b,
    ast.LShift: lambda a, b: a << b,
    ast.RShift: lambda a, b: a >> b,
    ast.BitOr: lambda a, b: a | b,
    ast.BitXor: lambda a, b: a ^ b,
    ast.BitAnd: lambda a, b: a & b,
    ast.MatMult: lambda a, b: a @ b,
}
_UNARY = {
    ast.USub: lambda a: -a,
    ast.UAdd: lambda a: +a,
    ast.Not: lambda a: not a,
    ast.Invert: lambda a: ~a,
}


def _precheck(op: ast.operator, a: Any, b: Any) -> None:
    """Refuse operations whose result would be too large before computing them."""
    num = (int, float)
    if isinstance(op, ast.Pow) and isinstance(a, num) and isinstance(b, num) and not isinstance(a, bool):
        if isinstance(a, int) and isinstance(b, int) and b > 0 and abs(a) > 1:
            if b * max(abs(a).bit_length(), 1) > MAX_EVAL_SIZE * 3.33:
                raise _Refused("a power too large to compute")
    if isinstance(op, ast.LShift) and isinstance(b, int) and b > MAX_EVAL_SIZE * 3.33:
        raise _Refused("a shift too large to compute")
    if isinstance(op, ast.Mod) and isinstance(a, (str, bytes)):
        spec = a.decode("latin-1") if isinstance(a, bytes) else a
        if re.search(r"%[^a-zA-Z%]*\d{6,}", spec):
            raise _Refused("a %-format too wide to compute")
    if isinstance(op, ast.Mult):
        for seq, n in ((a, b), (b, a)):
            if isinstance(seq, (str, bytes, list, tuple)) and isinstance(n, int) and len(seq) * max(n, 0) > MAX_EVAL_SIZE:
                raise _Refused("a repetition too large to compute")


def _evaluate(node: ast.AST) -> Any:
    """What Python's ``eval`` gives for an expression of literals and operators."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.BinOp):
        left, right = _evaluate(node.left), _evaluate(node.right)
        _precheck(node.op, left, right)
        return _checked_size(_BINOPS[type(node.op)](left, right))
    if isinstance(node, ast.UnaryOp):
        return _UNARY[type(node.op)](_evaluate(node.operand))
    if isinstance(node, ast.List):
        return [_evaluate(e) for e in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_evaluate(e) for e in node.elts)
    if isinstance(node, ast.Set):
        return {_evaluate(e) for e in node.elts}
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise _Refused("dict unpacking inside arithmetic")
        return {_evaluate(k): _evaluate(v) for k, v in zip(node.keys, node.values)}
    raise _Refused(f"{type(node).__name__} inside arithmetic is not evaluated")


def _official_value(node: ast.AST) -> Any:
    """``resolve_ast_by_type``, branch for branch (see the module docstring)."""
    if isinstance(node, ast.Constant):
        return "..." if node.value is Ellipsis else node.value
    if isinstance(node, ast.UnaryOp):
        operand = node.operand
        if not isinstance(operand, ast.Constant):
            raise DecodeError(f"unary operator on {type(operand).__name__}: the official decoder fails here")
        return -operand.value  # sic: whatever the operator; TypeError for a string, as officially
    if isinstance(node, ast.List):
        return [_official_value(v) for v in node.elts]
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise DecodeError("dict unpacking (**) inside a value: the official decoder fails here")
        return {_official_value(k): _official_value(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.BinOp):
        try:
            return _evaluate(node)
        except _Refused as exc:
            raise DecodeError(f"arithmetic not evaluated: {exc}") from None
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        return ast.unparse(node) if not node.keywords else _official_call(node)
    if isinstance(node, ast.Tuple):
        return tuple(_official_value(v) for v in node.elts)
    if isinstance(node, ast.Lambda):
        raise DecodeError("lambda: the official decoder fails here")
    if isinstance(node, ast.Subscript):
        return ast.unparse(node.value) + "[" + ast.unparse(node.slice) + "]"
    raise DecodeError(f"Unsupported AST type: {type(node)}")


def _official_call(node: ast.Call) -> Call:
    parts = []
    func = node.func
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    args: dict = {}
    for keyword in node.keywords:
        args[keyword.arg] = _official_value(keyword.value)  # keyword.arg is None for **kwargs
    return {".".join(reversed(parts)): args}


RETURN_FORMATS = ("python", "json", "verbose_xml", "concise_xml")


def decode_ast_prompting(text: str, return_format: str = "python", tool_call_tag: bool = False) -> list[Call]:
    """BFCL's ``default_decode_ast_prompting`` for the Python, JSON and XML return formats
    (the latter three and ``tool_call_tag`` are format_sensitivity's prompt variants);
    DecodeError when it fails."""
    if not isinstance(text, str):
        raise DecodeError(f"the answer is a {type(text).__name__}, not text")
    if return_format not in RETURN_FORMATS:
        raise DecodeError(f"unknown return format {return_format!r}")
    result = text.strip("`\n ")
    if not result.startswith("["):
        result = "[" + result
    if not result.endswith("]"):
        result = result + "]"
    if tool_call_tag:
        match = re.search(r"<TOOLCALL>(.*?)</TOOLCALL>", result, re.DOTALL)
        if not match:
            raise DecodeError("No tool call tag found in input string")
        result = match.group(1).strip()
    if return_format == "json":
        return _official_json(result)
    if return_format in ("verbose_xml", "concise_xml"):
        return _official_xml(result, verbose=return_format == "verbose_xml")
    cleaned = result.strip().strip("'")
    try:
        body = ast.parse(cleaned, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise DecodeError(f"not Python call syntax ({type(exc).__name__}: {getattr(exc, 'msg', exc)})") from None
    try:
        if isinstance(body, ast.Call):
            return [_official_call(body)]
        if not hasattr(body, "elts"):
            raise DecodeError(f"a {type(body).__name__}, not a list of calls")
        calls = []
        for element in body.elts:
            if not isinstance(element, ast.Call):
                raise DecodeError(f"an element is a {type(element).__name__}, not a call")
            calls.append(_official_call(element))
        return calls
    except DecodeError:
        raise
    except Exception as exc:  # TypeError, ZeroDivisionError, ...: the official decoder raises them too
        raise DecodeError(f"{type(exc).__name__}: {exc}") from None


def _official_json(text: str) -> list:
    """``ast_parse`` JSON branch and ``parse_json_function_call``: ``[{"function", "parameters"}]``."""
    match = re.search(r"\[.*\]", text, re.DOTALL)
    if match:
        text = match.group(0)
    match = re.search(r"\[\s*{.*?}\s*(?:,\s*{.*?}\s*)*\]", text, re.DOTALL)
    if match:
        text = match.group(0)
    try:
        parsed = json.loads(text)
    except RecursionError:
        raise DecodeError("JSON nested too deeply") from None
    except ValueError:
        return []  # sic: officially an unreadable JSON answer is "no call", not a decoding failure
    calls = []
    try:
        for entry in parsed:
            if isinstance(entry, dict):
                calls.append({entry["function"]: entry["parameters"]})
    except (KeyError, TypeError) as exc:
        raise DecodeError(f"{type(exc).__name__}: {exc}") from None
    return calls


def _xml_value(raw: str, type_name: str) -> Any:
    """``convert_value_by_type``."""
    if type_name == "string":
        return raw
    if type_name == "integer":
        return int(raw)
    if type_name == "float":
        return float(raw)
    if type_name == "boolean":
        return raw.lower() == "true"
    if type_name == "null":
        return None
    if type_name in ("array", "tuple", "object", "dict"):
        return ast.literal_eval(raw)
    return raw


def _official_xml(text: str, verbose: bool) -> list:
    """``parse_verbose_xml_function_call`` / ``parse_concise_xml_function_call``."""
    import xml.etree.ElementTree as ET  # expat: no external entities, bounded entity expansion

    match = re.search(r"<functions>(.*?)</functions>", text, re.DOTALL)
    if not match:
        raise DecodeError("No XML function call found in input string. Missing <functions> tag.")
    try:
        root = ET.fromstring(match.group(0))
        calls = []
        for func in root.findall("function"):
            params = {}
            if verbose:
                container = func.find("params")
                elements = container.findall("param") if container is not None else func.findall("param")
                for param in elements:
                    params[param.attrib.get("name")] = _xml_value(param.attrib.get("value", ""), param.attrib.get("type", "string"))
            else:
                for param in func.findall("param"):
                    params[param.attrib["name"]] = _xml_value((param.text or "").strip(), param.attrib.get("type", "string"))
            calls.append({func.attrib["name"]: params})
        return calls
    except Exception as exc:  # ParseError, KeyError, ValueError, SyntaxError: the official parser raises too
        raise DecodeError(f"{type(exc).__name__}: {exc}") from None


def decode_tool_calls(tool_calls: Any) -> list:
    """A function-calling model's tool calls as BFCL's FC handlers decode them: ``[{name:
    json.loads(arguments)}]``, whatever the arguments decode to (a non-object then fails the
    format check, as officially); DecodeError when the arguments are not JSON."""
    if not isinstance(tool_calls, list):
        raise DecodeError(f"tool_calls is a {type(tool_calls).__name__}, not a list")
    calls = []
    for i, entry in enumerate(tool_calls):
        function = entry.get("function", entry) if isinstance(entry, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise DecodeError(f"$[{i}]: a tool call needs a function name")
        arguments = function.get("arguments", {})
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except (ValueError, RecursionError) as exc:
                raise DecodeError(f"$[{i}]: arguments are not valid JSON ({exc})") from None
        calls.append({function["name"]: arguments})
    return calls


def is_function_call_list(decoded: Any) -> bool:
    """BFCL's ``is_function_calling_format_output``: a list of ``{name: {params}}``."""
    if type(decoded) != list:
        return False
    for entry in decoded:
        if type(entry) != dict or len(entry) != 1 or type(next(iter(entry.values()))) != dict:
            return False
    return True


def is_empty_output(decoded: Any) -> bool:
    """BFCL's ``is_empty_output``: no call in it (relevance detection)."""
    if not is_function_call_list(decoded):
        return True
    return len(decoded) == 0 or (len(decoded) == 1 and len(decoded[0]) == 0)


# ------------------------------------------------------------------ lenient decoder (fixed mode)


def decode(text: str | None, extra: dict | None = None) -> list[Call]:
    """The calls in a model answer; raises DecodeError naming what is wrong."""
    tool_calls = (extra or {}).get("tool_calls")
    if tool_calls:
        return decode_structured(tool_calls)
    if not isinstance(text, str) or not text.strip():
        raise DecodeError("the answer is empty")
    body = _strip_fences(text)
    try:
        parsed = json.loads(body)
    except ValueError:
        return decode_python(body)
    if isinstance(parsed, (list, dict)):
        return decode_structured(parsed)
    raise DecodeError(f"the answer is a JSON {type(parsed).__name__}, not a call")
