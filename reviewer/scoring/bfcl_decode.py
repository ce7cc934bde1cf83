"""Reading a function-calling answer into calls ``[{function_name: {param: value}}]``.

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
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values)}
    try:
        return ast.literal_eval(node)
    except ValueError:
        return ast.unparse(node)


def _from_python_call(node: ast.AST) -> Call:
    if not isinstance(node, ast.Call):
        raise DecodeError(f"not a function call: {ast.unparse(node)}")
    args = {kw.arg: _value(kw.value) for kw in node.keywords if kw.arg is not None}
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
