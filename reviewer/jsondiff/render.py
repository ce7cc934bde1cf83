"""Pretty-printed JSON as lines, with the JSON path each line belongs to.

The layout is the usual ``indent``-space one (``json.dumps(v, indent=n)``):
a scalar or empty container is one line; a non-empty container is an opening
line, its members, and a closing line. Both the opening and the closing line
belong to the container's path. orjson renders when installed and the indent
is 2 (about 40x faster than the json module); values nested too deeply for
either library are rendered by an iterative fallback.
"""

from __future__ import annotations

import json
from typing import Any

from reviewer.jsondiff.canonical import orjson


def scalar_text(value: Any) -> str:
    """One JSON scalar (or a key) as text, non-ASCII kept readable."""
    if orjson is not None:
        try:
            return orjson.dumps(value).decode()
        except orjson.JSONEncodeError:
            pass  # e.g. an integer beyond 64 bits
    return json.dumps(value, ensure_ascii=False)


def pretty_text(value: Any, indent: int = 2) -> str:
    """``value`` pretty-printed at depth 0."""
    if orjson is not None and indent == 2:
        try:
            return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
        except orjson.JSONEncodeError:
            pass  # deeper than 255 levels or a very large integer
    try:
        return json.dumps(value, indent=indent, ensure_ascii=False)
    except RecursionError:
        return "\n".join(_pretty_lines_iterative(value, indent))


def pretty_lines(value: Any, indent: int = 2) -> list[str]:
    """``value`` pretty-printed at depth 0, as a list of lines."""
    return pretty_text(value, indent).split("\n")


def _pretty_lines_iterative(value: Any, indent: int) -> list[str]:
    out: list[str] = []
    # (value, depth, text before the value, text after it); closers are plain strings.
    stack: list = [(value, 0, "", "")]
    while stack:
        item = stack.pop()
        if type(item) is str:
            out.append(item)
            continue
        v, depth, before, after = item
        pad = " " * (indent * depth)
        t = type(v)
        if t is dict and v:
            out.append(f"{pad}{before}{{")
            stack.append(f"{pad}}}{after}")
            last = len(v) - 1
            stack.extend(
                (c, depth + 1, scalar_text(k) + ": ", "," if n < last else "")
                for n, (k, c) in reversed(list(enumerate(v.items())))
            )
        elif t is list and v:
            out.append(f"{pad}{before}[")
            stack.append(f"{pad}]{after}")
            last = len(v) - 1
            stack.extend((c, depth + 1, "", "," if n < last else "") for n, c in reversed(list(enumerate(v))))
        else:
            text = "{}" if t is dict else "[]" if t is list else scalar_text(v)
            out.append(f"{pad}{before}{text}{after}")
    return out


def line_paths(value: Any, path: tuple = ()) -> list[tuple]:
    """The path of each line of ``pretty_lines(value)``, ``path`` being value's own."""
    out: list[tuple] = []
    append = out.append
    stack: list = [(value, path)]
    while stack:
        v, p = stack.pop()
        if v is _CLOSE:
            append(p)
            continue
        t = type(v)
        if t is dict and v:
            append(p)
            stack.append((_CLOSE, p))
            stack.extend([(c, p + (k,)) for k, c in v.items()][::-1])
        elif t is list and v:
            append(p)
            stack.append((_CLOSE, p))
            stack.extend([(c, p + (k,)) for k, c in enumerate(v)][::-1])
        else:
            append(p)
    return out


_CLOSE = object()


def block_lines(value: Any, depth: int, before: str, after: str, indent: int) -> list[str]:
    """Lines of ``value`` placed at ``depth``, its first line prefixed by
    ``before`` (a member's ``"key": ``) and its last followed by ``after``
    (a separating comma)."""
    text = pretty_text(value, indent)
    if depth:
        # Indenting the text before splitting it is several times faster than per line.
        pad = " " * (indent * depth)
        text = text.replace("\n", "\n" + pad)
        return (pad + before + text + after).split("\n")
    return (before + text + after).split("\n")
