"""JSON paths: rendering for people, parsing, and patterns with wildcards.

A path is a tuple of object keys (``str``) and list indexes (``int``) from the
root, e.g. ``("filings", 3, "form type")``, rendered ``$.filings[3]["form type"]``.

Pattern syntax (used by ignored paths and list keys in ``DiffOptions``):

- ``$`` the root, ``.name`` or ``["any key"]`` an object member, ``[3]`` a list index;
- ``[*]`` or ``.*`` any one member or index;
- ``..`` any number (zero or more) of levels, e.g. ``$..timestamp`` is every
  ``timestamp`` member anywhere.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from reviewer.errors import ReviewerError


class PathSyntaxError(ReviewerError):
    """A path or pattern that cannot be parsed; the message shows where."""

    def __init__(self, text: str, pos: int, message: str):
        self.text = text
        self.pos = pos
        super().__init__(f"bad JSON path {text!r} at character {pos + 1}: {message}")


# Members rendered with a dot: identifier-like names. ``str.isidentifier`` would
# accept any Unicode letter; we keep the dot form to ASCII names so that a path
# copied from the UI parses back the same everywhere.
_DOT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_DOT_NAME_PREFIX = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def render_path(path: tuple | list) -> str:
    """``("filings", 3, "form type")`` -> ``$.filings[3]["form type"]``."""
    out = ["$"]
    for part in path:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif _DOT_NAME.match(part):
            out.append("." + part)
        else:
            out.append("[" + json.dumps(part, ensure_ascii=False) + "]")
    return "".join(out)


# Pattern segment markers: any single step, and any number of steps.
ANY = object()
DEEP = object()


def _parse(text: str, allow_wildcards: bool) -> tuple:
    if not text.startswith("$"):
        raise PathSyntaxError(text, 0, "a path starts with '$'")
    parts: list = []
    pos = 1
    n = len(text)
    while pos < n:
        ch = text[pos]
        if text.startswith("..", pos):
            if not allow_wildcards:
                raise PathSyntaxError(text, pos, "'..' is only allowed in patterns")
            parts.append(DEEP)
            pos += 1  # leave one '.' (or a following '[') to name the next step
            if pos + 1 < n and text[pos + 1] == "[":
                pos += 1
            continue
        if ch == ".":
            pos += 1
            if text.startswith("*", pos):
                if not allow_wildcards:
                    raise PathSyntaxError(text, pos, "'*' is only allowed in patterns")
                parts.append(ANY)
                pos += 1
                continue
            m = _DOT_NAME_PREFIX.match(text, pos)
            if not m:
                raise PathSyntaxError(text, pos, "expected a member name after '.'")
            parts.append(m.group())
            pos = m.end()
        elif ch == "[":
            close = _bracket_end(text, pos)
            inner = text[pos + 1 : close].strip()
            if inner == "*":
                if not allow_wildcards:
                    raise PathSyntaxError(text, pos, "'*' is only allowed in patterns")
                parts.append(ANY)
            elif inner.startswith('"'):
                try:
                    key = json.loads(inner)
                except ValueError as exc:
                    raise PathSyntaxError(text, pos, f"bad quoted key: {exc}") from None
                parts.append(key)
            elif inner.startswith("'") and inner.endswith("'") and len(inner) >= 2:
                parts.append(inner[1:-1])
            elif re.fullmatch(r"\d+", inner):
                parts.append(int(inner))
            else:
                raise PathSyntaxError(text, pos, "expected [index], [\"key\"] or [*]")
            pos = close + 1
        else:
            raise PathSyntaxError(text, pos, f"unexpected {ch!r}")
    if parts and parts[-1] is DEEP:
        raise PathSyntaxError(text, n - 1, "'..' must be followed by a step")
    return tuple(parts)


def _bracket_end(text: str, start: int) -> int:
    """Index of the ']' closing the '[' at ``start``, skipping quoted keys."""
    pos = start + 1
    quote = None
    while pos < len(text):
        ch = text[pos]
        if quote:
            if ch == "\\":
                pos += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "]":
            return pos
        pos += 1
    raise PathSyntaxError(text, start, "unclosed '['")


def parse_path(text: str) -> tuple:
    """Parse a concrete path (no wildcards) back into a tuple; inverse of ``render_path``."""
    return _parse(text, allow_wildcards=False)


@dataclass(frozen=True)
class PathPattern:
    """A compiled pattern; ``matches(path)`` tests a whole path (not a prefix)."""

    text: str
    steps: tuple

    @classmethod
    def compile(cls, text: str) -> PathPattern:
        return cls(text, _parse(text, allow_wildcards=True))

    def matches(self, path: tuple) -> bool:
        return _match(self.steps, 0, path, 0)


def _match(steps: tuple, si: int, path: tuple, pi: int) -> bool:
    # Paths are short (their depth), so plain backtracking is cheap enough.
    while si < len(steps):
        step = steps[si]
        if step is DEEP:
            return any(_match(steps, si + 1, path, k) for k in range(pi, len(path) + 1))
        if pi >= len(path):
            return False
        part = path[pi]
        if step is not ANY and (step != part or type(step) is not type(part)):
            return False
        si += 1
        pi += 1
    return pi == len(path)


class PatternSet:
    """Several patterns; ``first_match(path)`` returns the first that matches, or None."""

    def __init__(self, patterns: list[PathPattern]):
        self.patterns = tuple(patterns)

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def first_match(self, path: tuple) -> PathPattern | None:
        for pattern in self.patterns:
            if pattern.matches(path):
                return pattern
        return None
