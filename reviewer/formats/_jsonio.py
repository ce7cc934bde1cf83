"""Reading and writing JSON files with errors a user can act on.

Every failure is an ``InputError`` naming the file and where in it: the line
and column the decoder stopped at, or the JSON path of a value of the wrong
type. Shared by the format modules; it knows nothing about any benchmark.

API:
- ``read_text(path)``: the file's text (UTF-8, BOM tolerated), InputError if unreadable.
- ``load_json_file(path)``: one JSON document; ``parse_json(text, path)`` when already read.
- ``iter_json_array(path)``: the elements of a top-level JSON array, one at a
  time, each with its index and the 1-based line it starts on.
- ``iter_jsonl(path)``: ``(line_no, obj)`` for every non-blank line of a JSON Lines file.
- ``expect(value, types, path, parts, what)``: type check raising InputError at a JSON path.
- ``JsonStyle`` / ``detect_style(text)`` / ``dump_json(obj, style)`` /
  ``write_json_file(path, obj, style)``: write a document back the way it was laid out.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from reviewer.errors import InputError, json_path

_WS = " \t\n\r"
_decoder = json.JSONDecoder()


def read_text(path: str | Path) -> str:
    """Return the whole text of ``path``; InputError when missing or not UTF-8."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise InputError(p, None, "file not found") from None
    except IsADirectoryError:
        raise InputError(p, None, "is a folder, expected a file") from None
    except OSError as exc:
        raise InputError(p, None, f"cannot read: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(p, f"line {line}", f"not UTF-8 text (byte {exc.start})") from None


def _where(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return f"line {line}, column {col}"


def _truncated(exc: json.JSONDecodeError) -> bool:
    """True when decoding failed because the text stopped: nothing but blanks after the
    error, or a string never closed (JSON strings cannot span lines, so an unclosed
    one ran to the end of the text)."""
    return not exc.doc[exc.pos :].strip(_WS) or exc.msg.startswith("Unterminated string")


def _decode_error(path: str | Path, exc: json.JSONDecodeError, what: str = "invalid JSON") -> InputError:
    """Turn a decoder error into an InputError; say "truncated" when the text just stops."""
    if _truncated(exc):
        return InputError(path, f"line {exc.lineno}, column {exc.colno}", f"{what}: the file ends in the middle of a JSON value (truncated?)")
    return InputError(path, f"line {exc.lineno}, column {exc.colno}", f"{what}: {exc.msg}")


def load_json_file(path: str | Path) -> Any:
    """Parse the one JSON document in ``path``.

    Raises InputError with the line and column where decoding failed.
    """
    return parse_json(read_text(path), path)


def parse_json(text: str, path: str | Path) -> Any:
    """Parse a whole file's ``text`` already read; errors name ``path``, line and column."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise _decode_error(path, exc) from None


def loads_at(text: str, path: str | Path, where: str) -> Any:
    """Parse JSON text found inside a bigger record (a spreadsheet cell, a JSONL field).

    ``where`` names the record (e.g. "sheet 'sheet1', row 4, column C (json)");
    the error adds the line and column inside that text.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        inner = "ends in the middle of a JSON value (truncated?)" if _truncated(exc) else exc.msg
        raise InputError(path, where, f"invalid JSON at line {exc.lineno}, column {exc.colno} of the text: {inner}") from None


def iter_json_array(path: str | Path, text: str | None = None) -> Iterator[tuple[int, int, Any]]:
    """Yield ``(index, line, element)`` for each element of the top-level array in ``path``.

    The file is read once and elements are decoded one at a time, so a caller
    can stop early and never holds a second copy of the whole document.
    ``line`` is the 1-based line the element starts on. Pass ``text`` when the
    caller has already read the file.
    """
    if text is None:
        text = read_text(path)
    n = len(text)
    pos = _skip_ws(text, 0)
    if pos >= n:
        raise InputError(path, "line 1, column 1", "empty file, expected a JSON array")
    if text[pos] != "[":
        raise InputError(path, _where(text, pos), f"expected a JSON array ('['), found {text[pos]!r}")
    pos = _skip_ws(text, pos + 1)
    line, line_pos = 1, 0  # newlines counted incrementally: O(n) over the whole file
    index = 0
    if pos < n and text[pos] == "]":
        _expect_end(text, pos + 1, path)
        return
    while True:
        if pos >= n:
            raise InputError(path, _where(text, pos), "the file ends inside the array (truncated?)")
        try:
            value, end = _decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise _decode_error(path, exc, f"invalid JSON in element $[{index}]") from None
        line += text.count("\n", line_pos, pos)
        line_pos = pos
        yield index, line, value
        index += 1
        pos = _skip_ws(text, end)
        if pos >= n:
            raise InputError(path, _where(text, pos), "the file ends inside the array (truncated?)")
        if text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
            continue
        if text[pos] == "]":
            _expect_end(text, pos + 1, path)
            return
        raise InputError(path, _where(text, pos), f"expected ',' or ']' after element $[{index - 1}], found {text[pos]!r}")


def _skip_ws(text: str, pos: int) -> int:
    n = len(text)
    while pos < n and text[pos] in _WS:
        pos += 1
    return pos


def _expect_end(text: str, pos: int, path: str | Path) -> None:
    pos = _skip_ws(text, pos)
    if pos < len(text):
        raise InputError(path, _where(text, pos), "unexpected text after the end of the JSON array")


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_no, obj)`` for every non-blank line of a JSON Lines file.

    Reads line by line (never the whole file). A bad line raises InputError
    with its line number and the column inside the line.
    """
    p = Path(path)
    try:
        fh = p.open(encoding="utf-8-sig", newline="")
    except FileNotFoundError:
        raise InputError(p, None, "file not found") from None
    except OSError as exc:
        raise InputError(p, None, f"cannot read: {exc.strerror or exc}") from None
    with fh:
        line_no = 0
        while True:
            try:
                line = fh.readline()
            except UnicodeDecodeError:
                raise InputError(p, f"line {line_no + 1}", "not UTF-8 text") from None
            if not line:
                return
            line_no += 1
            if not line.strip(_WS):
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                if _truncated(exc):
                    msg = "the line ends in the middle of a JSON value (truncated?)"
                else:
                    msg = f"invalid JSON: {exc.msg}"
                raise InputError(p, f"line {line_no}, column {exc.colno}", msg) from None
            yield line_no, obj


_TYPE_NAMES = {
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "true or false",
    dict: "an object",
    list: "an array",
    type(None): "null",
}


def type_name(value: Any) -> str:
    """How a JSON value's type reads in an error message ("an object", "null"...)."""
    if isinstance(value, bool):
        return "true or false"
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def expect(value: Any, types: type | tuple[type, ...], path: str | Path, parts: list, where: str | None = None) -> Any:
    """Return ``value`` if it has one of ``types``; else InputError at the JSON path ``parts``.

    ``where`` (e.g. "line 12" or "record 'uid_3'") is put before the JSON path.
    Booleans never pass as integers.
    """
    types_t = types if isinstance(types, tuple) else (types,)
    ok = isinstance(value, types_t) and not (isinstance(value, bool) and bool not in types_t)
    if ok:
        return value
    wanted = " or ".join(_TYPE_NAMES.get(t, t.__name__) for t in types_t)
    loc = ", ".join(x for x in (where, json_path(parts)) if x)
    raise InputError(path, loc, f"expected {wanted}, got {type_name(value)}")


@dataclass(frozen=True)
class JsonStyle:
    """How a JSON file was laid out, so that a rewrite looks like the original."""

    indent: int | None = None
    ensure_ascii: bool = True
    trailing_newline: bool = False

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict | None) -> JsonStyle:
        return cls(**d) if d else cls()


def detect_style(text: str) -> JsonStyle:
    """Guess indent, ASCII escaping and final newline from a document's text."""
    body = text.lstrip(_WS)
    indent = None
    if body[:1] in "[{":
        nl = body.find("\n", 1)
        if nl != -1 and not body[1:nl].strip(" \t\r"):
            rest = body[nl + 1 :]
            indent = len(rest) - len(rest.lstrip(" "))
    has_non_ascii = not text.isascii()
    # Non-ASCII characters written raw mean ensure_ascii was off; with none at all
    # either choice gives the same bytes, and True is json's default.
    return JsonStyle(indent=indent, ensure_ascii=not has_non_ascii, trailing_newline=text.endswith("\n"))


def dump_json(obj: Any, style: JsonStyle) -> str:
    out = json.dumps(obj, indent=style.indent, ensure_ascii=style.ensure_ascii)
    return out + "\n" if style.trailing_newline else out


def write_json_file(path: str | Path, obj: Any, style: JsonStyle) -> Path:
    """Write ``obj`` to ``path`` (UTF-8, parents created) in ``style``; return the path."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(dump_json(obj, style), encoding="utf-8", newline="")
    return p
