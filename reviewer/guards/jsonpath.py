"""The JSON-path subset the constraint rules use, returning each value with its concrete path.

Supported: ``$`` (the root), ``.key``, ``['key']`` / ``["key"]``, ``[n]`` (negative
counts from the end), ``[*]`` and ``.*`` (every child), ``..key`` (``key`` at any
depth) and ``..*``. No filters or scripts: a rule names values, it does not compute.
Kept small and here (rather than jsonpath-ng) because a violation must name the
concrete path of each value (``$.events[2].end``) in the app's own path notation.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from reviewer.errors import ReviewerError, json_path

_SEGMENT = re.compile(
    r"""\.\.(?P<deep>[A-Za-z_\u00c0-\uffff][\w\u00c0-\uffff-]*|\*)"""
    r"""|\.(?P<key>[A-Za-z_\u00c0-\uffff][\w\u00c0-\uffff-]*|\*)"""
    r"""|\[\s*(?P<index>-?\d+)\s*\]"""
    r"""|\[\s*(?P<star>\*)\s*\]"""
    r"""|\[\s*'(?P<sq>(?:[^'\\]|\\.)*)'\s*\]"""
    r"""|\[\s*"(?P<dq>(?:[^"\\]|\\.)*)"\s*\]"""
)


class PathError(ReviewerError):
    pass


def parse(path: str) -> list[tuple[str, Any]]:
    """The path's steps: ("key", name) | ("index", n) | ("all", None) | ("deep", name or "*")."""
    text = path.strip()
    if not text.startswith("$"):
        raise PathError(f"a JSON path starts with $: {path!r}")
    steps, pos = [], 1
    while pos < len(text):
        m = _SEGMENT.match(text, pos)
        if m is None:
            raise PathError(f"cannot read the JSON path {path!r} at character {pos + 1}: {text[pos:pos + 12]!r}")
        if m.group("deep") is not None:
            steps.append(("deep", m.group("deep")))
        elif m.group("key") is not None:
            steps.append(("all", None) if m.group("key") == "*" else ("key", m.group("key")))
        elif m.group("index") is not None:
            steps.append(("index", int(m.group("index"))))
        elif m.group("star") is not None:
            steps.append(("all", None))
        else:
            raw = m.group("sq") if m.group("sq") is not None else m.group("dq")
            steps.append(("key", re.sub(r"\\(.)", r"\1", raw)))
        pos = m.end()
    return steps


def _children(node: Any, parts: tuple) -> Iterator[tuple[tuple, Any]]:
    if isinstance(node, dict):
        for k, v in node.items():
            yield parts + (k,), v
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield parts + (i,), v


def _descendants(node: Any, parts: tuple) -> Iterator[tuple[tuple, Any]]:
    """The node and everything below it, in document order."""
    yield parts, node
    for p, child in _children(node, parts):
        yield from _descendants(child, p)


def find(doc: Any, path: str | list) -> list[tuple[str, Any]]:
    """Every (concrete path, value) the path names in ``doc``, in document order."""
    steps = parse(path) if isinstance(path, str) else path
    current: list[tuple[tuple, Any]] = [((), doc)]
    for kind, arg in steps:
        nxt: list[tuple[tuple, Any]] = []
        for parts, node in current:
            if kind == "key":
                if isinstance(node, dict) and arg in node:
                    nxt.append((parts + (arg,), node[arg]))
            elif kind == "index":
                if isinstance(node, list) and -len(node) <= arg < len(node):
                    nxt.append((parts + (arg % len(node),), node[arg]))
            elif kind == "all":
                nxt.extend(_children(node, parts))
            else:  # deep
                for p, n in _descendants(node, parts):
                    if arg == "*":
                        nxt.extend(_children(n, p))
                    elif isinstance(n, dict) and arg in n:
                        nxt.append((p + (arg,), n[arg]))
        current = nxt
    return [(json_path(parts), value) for parts, value in current]
