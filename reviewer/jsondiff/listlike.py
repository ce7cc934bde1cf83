"""Strings that are lists in disguise, read as lists for the diff display only.

Benchmarks store list answers as text: toolJSON's gold "0001-23, 0002-24"
(elements joined with ", "), code answers printed as "['Maps', 'Weather']", a
model's "Black; Gray/Black". Compared as strings, two such answers differ by
one long character edit; read as lists, the diff says which elements are
missing, extra or moved. ``read_pair(left, right)`` decides whether to read
either side as a list and says how it read it, so the view can tell the user.
Scoring never uses this: the official metrics compare what the benchmark says.

Rules (so that ordinary text stays text):
- a string that is a bracketed list literal (JSON, or a Python literal read
  with ``ast.literal_eval``, never evaluated) of scalars is that list;
- a string with separators (", ", "; " or new lines) is split on them;
- the pair is read as lists only when the reference (left, the gold) is a list
  or reads as one, or the other side is a real or bracketed list, and neither
  side is anything but a list of scalars or a string; a string without
  separators is then a list of one element. (An output "I don't know, sorry"
  against the gold "ARS" stays text: the gold does not look like a list.)
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any

MAX_TEXT = 100_000  # longer strings are not read as lists (answers are short; documents are not lists)
_SEPARATED = re.compile(r"[,;]\s|\n")
_SPLIT = re.compile(r"\s*(?:[,;]\s+|\n)\s*")
_SCALARS = (str, int, float, bool, type(None))


@dataclass(frozen=True)
class ListReading:
    """A string read as a list: the elements and how they were found."""

    elements: list
    how: str  # "a JSON list", "a Python list", "split at ', '", "split at '; '", "split at lines", "one element"

    def describe(self) -> str:
        if self.how == "one element":
            return "read as a one-element list"
        n = len(self.elements)
        return f"read as a list of {n}, {self.how}"


def read_bracketed(text: str) -> ListReading | None:
    """``text`` as a list literal of scalars ("[1, 2]", "['a', 'b']"), else None."""
    s = text.strip()
    if len(s) < 2 or s[0] != "[" or s[-1] != "]" or len(s) > MAX_TEXT:
        return None
    try:
        value, how = json.loads(s), "a JSON list"
    except ValueError:
        try:
            value, how = ast.literal_eval(s), "a Python list"
        except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
            return None
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, _SCALARS) for v in value):
        return None
    return ListReading(list(value), how)


def read_separated(text: str) -> ListReading | None:
    """``text`` split on ", ", "; " or new lines when it has any of them, else None."""
    if len(text) > MAX_TEXT or not _SEPARATED.search(text):
        return None
    s = text.strip().rstrip(",;").strip()
    if "\n" in s and not re.search(r"[,;]\s", s):
        how = "split at lines"
    else:
        how = "split at '; '" if ";" in s and "," not in s else "split at ', '"
    elements = [e for e in _SPLIT.split(s) if e != ""]
    if len(elements) < 2:
        return None
    return ListReading(elements, how)


def read_as_list(text: str) -> ListReading | None:
    """The list ``text`` stands for, or None when it reads as plain text."""
    return read_bracketed(text) or read_separated(text)


@dataclass(frozen=True)
class ListPair:
    """What the diff view compares, and a note for each side that was read in another shape
    than stored (a list, here; a call chain as its scorer reads it, reviewer.jsondiff.callshape)."""

    left: Any
    right: Any
    left_note: str | None = None
    right_note: str | None = None

    @property
    def read(self) -> bool:
        return self.left_note is not None or self.right_note is not None


def _scalar_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, _SCALARS) for v in value)


def _as_text(value: Any) -> Any:
    """A scalar as the text a joined answer shows it as (8.0 -> "8"); strings unchanged."""
    if isinstance(value, str) or value is None or isinstance(value, bool):
        return value if not isinstance(value, bool) else str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def read_pair(left: Any, right: Any) -> ListPair:
    """``left`` and ``right`` as the diff view should compare them: unchanged, unless
    at least one is a list (or a string that reads as one) and the other a string
    that can be read as a list too (see the module's rules)."""
    if not isinstance(left, str) and not isinstance(right, str):
        return ListPair(left, right)
    if left == right:
        return ListPair(left, right)
    readings = {}
    for side, value in (("left", left), ("right", right)):
        if isinstance(value, str):
            readings[side] = read_as_list(value)
        elif _scalar_list(value):
            readings[side] = None  # already a list
        else:
            return ListPair(left, right)  # an object, a number, a list of objects: nothing to read
    right_is_list = _scalar_list(right) or (isinstance(right, str) and read_bracketed(right) is not None)
    if not (_scalar_list(left) or readings.get("left") is not None or right_is_list):
        return ListPair(left, right)
    out, notes = {}, {}
    for side, value in (("left", left), ("right", right)):
        if _scalar_list(value):
            out[side] = value
            continue
        reading = readings[side] or ListReading([value.strip()], "one element")
        out[side] = reading.elements
        notes[side] = reading.describe()
    # A list read from text holds strings: show the other side's numbers as text too, so
    # "8" against 8 is no difference here (the scorer's fixed mode reads them alike).
    texts = any(notes.get(s) and all(isinstance(e, str) for e in out[s]) for s in ("left", "right"))
    if texts:
        for side in ("left", "right"):
            out[side] = [_as_text(e) for e in out[side]]
    return ListPair(out["left"], out["right"], notes.get("left"), notes.get("right"))
