"""Reading and writing JSON files with errors a user can act on.

Every failure is an ``InputError`` naming the file and where in it: the line
and column the decoder stopped at, or the JSON path of a value of the wrong
type. Shared by the format modules; it knows nothing about any benchmark.

API:
- ``open_input(path)``: a regular file opened for reading, never blocking; InputError for
  anything else (a FIFO, a device such as /dev/zero, a folder) or a file over the size limit.
- ``read_text(path)``: the file's text (UTF-8, BOM tolerated), InputError if unreadable.
- ``load_json_file(path)``: one JSON document; ``parse_json(text, path)`` when already read.
- ``iter_json_array(path)``: the elements of a top-level JSON array, one at a
  time, each with its index and the 1-based line it starts on.
- ``iter_jsonl(path)``: ``(line_no, obj)`` for every non-blank line of a JSON Lines file.
- ``expect(value, types, path, parts, what)``: type check raising InputError at a JSON path.
- ``unstorable(value)``: ``(parts, reason)`` of the first value that is not portable,
  standard JSON (NaN, Infinity, a NUL character, a lone surrogate), else None.
- ``JsonStyle`` / ``detect_style(text)`` / ``dump_json(obj, style)`` /
  ``write_json_file(path, obj, style)``: write a document back the way it was laid out.

Limits (stated, so that a hostile file ends in an error instead of exhausting
time or memory): a file read whole is at most ``max_input_bytes()`` (256 MiB, or
``$REVIEWER_MAX_INPUT_BYTES``); a file read a line at a time (``streamed``: its
reader holds one line, not the file) has no size limit unless
``$REVIEWER_MAX_INPUT_BYTES`` sets one, and each of its lines is at most
``max_input_bytes()``; JSON nests at most ``MAX_DEPTH`` (128) levels; an integer
has at most 4300 digits (Python's own limit).
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from reviewer.errors import InputError, json_path

try:  # a runtime dependency; the readers fall back to json where it is absent
    import orjson
except ImportError:  # pragma: no cover
    orjson = None

_WS = " \t\n\r"
_decoder = json.JSONDecoder()

MAX_DEPTH = 128  # JSON nesting levels; real benchmark records stay under 20
DEFAULT_MAX_INPUT_BYTES = 256 * 1024 * 1024  # the largest reference dataset file is ~10 MB
INT_DIGITS = 4300  # Python's limit on converting decimal text to int (sys.get_int_max_str_digits)


def max_input_bytes() -> int:
    """The size limit of a file read whole, and of one line of a file read a line at a
    time: ``$REVIEWER_MAX_INPUT_BYTES`` or 256 MiB."""
    return _limit_set() or DEFAULT_MAX_INPUT_BYTES


def _limit_set() -> int | None:
    """``$REVIEWER_MAX_INPUT_BYTES`` when it is set to a number."""
    try:
        return int(os.environ.get("REVIEWER_MAX_INPUT_BYTES", "")) or None
    except ValueError:
        return None


def file_limit(streamed: bool) -> int | None:
    """The size limit of one input file; None for none. A streamed file (read a line at a
    time, never whole) has none unless ``$REVIEWER_MAX_INPUT_BYTES`` is set: what bounds
    its reader's memory is the limit of one line (``max_input_bytes``), so a 100,000-item
    NesTools set (270 MB) imports as it is."""
    return _limit_set() if streamed else max_input_bytes()


_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def open_input(path: str | Path, streamed: bool = False) -> io.BufferedReader:
    """Open ``path`` for binary reading if it is a regular file within the size limit
    (``file_limit(streamed)``: a caller that reads it a line at a time says ``streamed``
    and keeps each line within ``max_input_bytes()`` itself, as ``iter_jsonl`` does).

    The file is opened non-blocking and checked on the open descriptor (no race
    between check and use), so a FIFO never blocks and a symlink to /dev/zero is
    refused instead of read forever. Symlinks to regular files are followed.
    """
    p = Path(path)
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise InputError(p, None, "file not found") from None
    except IsADirectoryError:
        raise InputError(p, None, "is a folder, expected a file") from None
    except OSError as exc:
        raise InputError(p, None, f"cannot read: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise InputError(p, None, "is a folder, expected a file")
        if not stat.S_ISREG(info.st_mode):
            kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a regular file")
            raise InputError(p, None, f"is {kind}, not a regular file; save the data to a file and import that")
        limit = file_limit(streamed)
        if limit is not None and info.st_size > limit:
            raise InputError(p, None, _too_big(info.st_size, limit))
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _too_big(size: int, limit: int) -> str:
    return (f"the file is {size:,} bytes, more than the limit of {limit:,} bytes for one input file "
            "(set REVIEWER_MAX_INPUT_BYTES to raise it)")


def line_too_long(path: str | Path, line_no: int, limit: int) -> InputError:
    """The error for a line of more than ``limit`` characters (a file read a line at a time)."""
    return InputError(path, f"line {line_no}", f"the line is longer than the limit of {limit:,} characters for one "
                                               "line (set REVIEWER_MAX_INPUT_BYTES to raise it)")


def read_bytes(path: str | Path) -> bytes:
    """The bytes of a regular file within the size limit (see ``open_input``)."""
    limit = max_input_bytes()
    with open_input(path) as fh:
        try:
            data = fh.read(limit + 1)
        except OSError as exc:
            raise InputError(path, None, f"cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:  # it grew while we read
        raise InputError(path, None, _too_big(len(data), limit))
    return data


def read_text(path: str | Path) -> str:
    """Return the whole text of ``path``; InputError when missing, not a regular file, too big or not UTF-8."""
    p = Path(path)
    data = read_bytes(p)
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
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _decode_error(path, exc) from None
    except (RecursionError, ValueError) as exc:
        raise _limit_error(path, text, 0, exc, lambda pos: _where(text, pos)) from None
    _check_depth(value, text, 0, len(text), path, lambda pos: _where(text, pos))
    # A whole document (a tool response) is stored as text apart from the records that
    # use it; refuse what the databases cannot hold here, where its own path is known.
    _check_storable(value, path, None, [])
    return value


def _check_storable(value: Any, path, where: str | None, prefix: list) -> None:
    """InputError at the record's place and JSON path if it holds what the databases cannot
    store alike (see ``unstorable``): every record is checked as it is read, whichever
    of its fields a format keeps."""
    found = unstorable(value)
    if found:
        loc = ", ".join(x for x in (where, json_path(prefix + found[0])) if x)
        raise InputError(path, loc, f"holds {found[1]}")


# Strings skipped whole (so brackets and digits inside them do not count), brackets, long digit runs.
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]|\d{%d,}' % (INT_DIGITS + 1))


def _hostile_at(text: str, start: int, end: int | None = None) -> tuple[int, str] | None:
    """Where in ``text[start:end]`` nesting first passes MAX_DEPTH or an integer is too long."""
    depth = 0
    for m in _TOKENS.finditer(text, start, len(text) if end is None else end):
        tok = m.group()
        if tok in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return m.start(), f"JSON nested more than {MAX_DEPTH} levels deep (the limit)"
        elif tok in "]}":
            depth -= 1
        elif tok[0] != '"':
            return m.start(), f"an integer with {len(tok):,} digits, more than the limit of {INT_DIGITS}"
    return None


def _limit_error(path, text: str, start: int, exc: Exception, where_of, prefix: str = "") -> InputError:
    """An InputError for a value the decoder gave up on (too deep, too long an integer)."""
    found = _hostile_at(text, start)
    if found is None:  # not one of ours: report what the decoder said, without a location
        return InputError(path, where_of(start), f"{prefix}cannot decode: {exc}")
    pos, message = found
    return InputError(path, where_of(pos), prefix + message)


def _max_depth_over(value: Any, limit: int) -> bool:
    """True when ``value`` nests more than ``limit`` levels (iterative: no recursion)."""
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if d > limit:
            return True
        if isinstance(v, dict):
            stack.extend((c, d + 1) for c in v.values() if isinstance(c, (dict, list)))
        elif isinstance(v, list):
            stack.extend((c, d + 1) for c in v if isinstance(c, (dict, list)))
    return False


def _check_depth(value: Any, text: str, start: int, end: int, path, where_of, prefix: str = "") -> None:
    """InputError when a decoded value nests deeper than MAX_DEPTH (the decoder allows ~1000)."""
    # Cheap bound first: fewer opening brackets than the limit cannot nest past it.
    if text.count("[", start, end) + text.count("{", start, end) <= MAX_DEPTH:
        return
    if not isinstance(value, (dict, list)) or not _max_depth_over(value, MAX_DEPTH):
        return
    found = _hostile_at(text, start, end)
    pos = found[0] if found else start
    raise InputError(path, where_of(pos), f"{prefix}JSON nested more than {MAX_DEPTH} levels deep (the limit)")


def loads_at(text: str, path: str | Path, where: str) -> Any:
    """Parse JSON text found inside a bigger record (a spreadsheet cell, a JSONL field).

    ``where`` names the record (e.g. "sheet 'sheet1', row 4, column C (json)");
    the error adds the line and column inside that text.
    """
    def where_of(pos: int) -> str:
        return f"{where}, {_where(text, pos)} of the text"

    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        inner = "ends in the middle of a JSON value (truncated?)" if _truncated(exc) else exc.msg
        raise InputError(path, where, f"invalid JSON at line {exc.lineno}, column {exc.colno} of the text: {inner}") from None
    except (RecursionError, ValueError) as exc:
        raise _limit_error(path, text, 0, exc, where_of) from None
    _check_depth(value, text, 0, len(text), path, where_of)
    return value


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
        except (RecursionError, ValueError) as exc:
            raise _limit_error(path, text, pos, exc, lambda at: _where(text, at), f"element $[{index}]: ") from None
        _check_depth(value, text, pos, end, path, lambda at: _where(text, at), f"element $[{index}]: ")
        _check_storable(value, path, _where(text, pos), [index])
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


def _first_bad_utf8(path: Path, limit: int) -> tuple[int, int]:
    """``(line, byte)``, both 1-based, of the first byte of ``path`` that is not UTF-8, lines
    counted as ``iter_jsonl`` counts them (universal newlines: \\n, \\r\\n or a lone \\r).

    ``iter_jsonl``'s text reader decodes ahead of the line it returns (a buffer of 8 KB),
    so its UnicodeDecodeError can come lines before the bad byte; this reads the file
    again as bytes. A multibyte character never holds a newline byte, so each line can
    be decoded on its own. Reads at most the bytes of ``limit`` + 1 characters at a time
    (4 each): a piece with no newline by then is a line over the limit, which is the error
    when no byte before its cut is bad (the cut itself may split a character).
    """
    before = 0
    most = 4 * (limit + 1)
    with open_input(path, streamed=True) as fh:
        while chunk := fh.readline(most):  # split at \n only; a chunk may hold lines ended by lone \r
            cut = len(chunk) == most and not chunk.endswith(b"\n")
            try:
                chunk.decode("utf-8")
            except UnicodeDecodeError as exc:
                if not (cut and exc.reason == "unexpected end of data"):
                    for n, line in enumerate(chunk.splitlines(keepends=True), before + 1):
                        try:
                            line.decode("utf-8")
                        except UnicodeDecodeError as exc:
                            return n, exc.start + 1
            if cut:
                raise line_too_long(path, before + len(chunk.splitlines()), limit)
            before += len(chunk.splitlines())
    return before + 1, 1  # pragma: no cover - the text reader found a bad byte


def iter_jsonl(path: str | Path, streamed: bool = False) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_no, obj)`` for every non-blank line of a JSON Lines file.

    Reads line by line (never the whole file), each line at most ``max_input_bytes()``
    characters. ``streamed``: the caller holds no more than a line's worth of the file
    either, so the file may be of any size (see ``file_limit``). A bad line raises
    InputError with its line number and the column inside the line.
    """
    p = Path(path)
    limit = max_input_bytes()
    fh = io.TextIOWrapper(open_input(p, streamed), encoding="utf-8-sig", newline="")
    with fh:
        line_no = 0
        while True:
            try:
                line = fh.readline(limit + 1)
            except UnicodeDecodeError:
                line_no, byte = _first_bad_utf8(p, limit)
                raise InputError(p, f"line {line_no}", f"not UTF-8 text (byte {byte} of the line)") from None
            if not line:
                return
            line_no += 1
            if len(line) > limit and not line.endswith(("\n", "\r")):
                raise line_too_long(p, line_no, limit)
            if not line.strip(_WS):
                continue
            try:
                obj, clean = _loads_line(line)
            except json.JSONDecodeError as exc:
                if _truncated(exc):
                    msg = "the line ends in the middle of a JSON value (truncated?)"
                else:
                    msg = f"invalid JSON: {exc.msg}"
                raise InputError(p, f"line {line_no}, column {exc.colno}", msg) from None
            except (RecursionError, ValueError) as exc:
                raise _limit_error(p, line, 0, exc, lambda pos, n=line_no: f"line {n}, column {pos + 1}") from None
            _check_depth(obj, line, 0, len(line), p, lambda pos, n=line_no: f"line {n}, column {pos + 1}")
            if not clean:
                _check_storable(obj, p, f"line {line_no}", [])
            yield line_no, obj


# 19 digits in a row may be an integer beyond 64 bits, which orjson reads as a float.
# Found by mapping every digit to "0" and looking for 19 of them (bytes.translate is
# C and 40x faster than a regular expression's scan of the line).
_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
_NINETEEN_ZEROS = b"0" * 19


def _loads_line(line: str) -> tuple[Any, bool]:
    """``(json.loads(line), clean)``, decoded by orjson (about 2x faster) where it gives the same value.

    orjson accepts a subset of what json accepts (no NaN, Infinity, overflowing
    numbers or lone surrogate escapes; the same strict grammar otherwise) and
    decodes it to the same values, except integers beyond 64 bits (floats in
    orjson): a line with 19 digits in a row, and any line orjson refuses, goes
    through json, so every value and every error (message, line, column) is json's own.

    ``clean`` is True when the value is known to hold nothing ``unstorable`` finds:
    orjson decoded it (so no NaN, infinity or lone surrogate) and the text has no
    ``\\u0000`` escape (the only way JSON text spells a NUL character).
    """
    if orjson is not None:
        data = line.encode("utf-8", "surrogatepass")
        if _NINETEEN_ZEROS not in data.translate(_DIGITS_TO_ZERO):
            try:
                value = orjson.loads(data)
            except orjson.JSONDecodeError:
                pass
            else:
                return value, b"\\u0000" not in data
    return json.loads(line), False


NOT_PLAIN = object()


def plain_line_value(data: bytes) -> Any:
    """The value of one JSON Lines line read as bytes (line ending included) when
    ``iter_jsonl`` would yield exactly that value with no further check, else ``NOT_PLAIN``.

    Plain: orjson decodes it (so it is UTF-8 without lone surrogates, NaN or
    infinities, and standard JSON), with no run of 19 digits (an integer orjson would
    read as a float), no ``\\u0000`` escape, at most ``MAX_DEPTH`` opening brackets,
    no carriage return but the line ending's (``iter_jsonl`` reads with universal
    newlines: a lone one ends a line there) and no byte-order mark. For such a line
    ``iter_jsonl`` takes the same orjson value and skips its storable check, so a
    reader may decode plain lines itself and hand anything else to ``iter_jsonl``
    for its exact value or error (nestools' fast path does).
    """
    if orjson is None or data.startswith(b"\xef\xbb\xbf"):
        return NOT_PLAIN
    if b"\r" in data and (data.count(b"\r") > 1 or not data.endswith(b"\r\n")):
        return NOT_PLAIN
    if (_NINETEEN_ZEROS in data.translate(_DIGITS_TO_ZERO) or b"\\u0000" in data
            or data.count(b"[") + data.count(b"{") > MAX_DEPTH):
        return NOT_PLAIN
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return NOT_PLAIN


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


def _string_problem(s: str) -> str | None:
    if "\x00" in s:
        return "a NUL character (\\u0000), which the databases cannot store alike"
    if not s.isascii():
        try:
            s.encode("utf-8")
        except UnicodeEncodeError as exc:
            return f"a lone surrogate \\u{ord(s[exc.start]):04x} (half of a UTF-16 pair), which is not Unicode text"
    return None


def _number_problem(v: float) -> str | None:
    if math.isnan(v):
        return "NaN, which is not standard JSON"
    if math.isinf(v):
        return "Infinity (or a number too large for a 64-bit float), which is not standard JSON"
    return None


def unstorable(value: Any) -> tuple[list, str] | None:
    """The JSON path parts and reason of the first value in ``value`` that standard JSON
    or one of the databases cannot hold the same way (NaN, Infinity, NUL, a lone
    surrogate), or None. Both databases refuse the same things, so an import that
    works on SQLite works on PostgreSQL too.
    """
    if orjson is not None and _orjson_clean(value):
        return None
    try:  # fast path in C: most values are fine
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
        text.encode("utf-8")
        if "\\u0000" not in text:
            return None
    except (ValueError, UnicodeEncodeError, TypeError, RecursionError):
        pass
    stack: list[tuple[Any, list]] = [(value, [])]
    while stack:
        v, parts = stack.pop()
        problem = None
        if isinstance(v, str):
            problem = _string_problem(v)
        elif isinstance(v, float):
            problem = _number_problem(v)
        elif isinstance(v, dict):
            for k, c in reversed(list(v.items())):
                if isinstance(k, str) and (kp := _string_problem(k)):
                    return parts + [k], f"a key holding {kp}"
                stack.append((c, parts + [k]))
        elif isinstance(v, (list, tuple)):
            stack.extend((c, parts + [i]) for i, c in reversed(list(enumerate(v))))
        if problem:
            return parts, problem
    return None


def _orjson_clean(value: Any) -> bool:
    """True when orjson shows ``value`` holds nothing ``unstorable`` looks for (5-10x faster
    than json.dumps); False when it cannot tell (the exact walk then decides).

    orjson refuses lone surrogates in strings and keys (and non-string keys and
    integers beyond 64 bits, which are storable: False sends them to the exact
    path); it writes a NUL character as ``\\u0000`` and NaN or an infinity as
    ``null``, so text without either is clean, and text with ``null`` is clean
    when it decodes back to an equal value (NaN equals nothing, an infinity not null).
    """
    try:
        text = orjson.dumps(value)
    except (orjson.JSONEncodeError, TypeError):
        return False
    if b"\\u0000" in text:
        return False
    if b"null" in text:
        try:
            return orjson.loads(text) == value
        except orjson.JSONDecodeError:  # pragma: no cover - orjson reads what it writes
            return False
    return True


def text_problem(s: str | None) -> str | None:
    """Why a plain text field cannot be stored alike on both databases, or None."""
    return None if s is None else _string_problem(s)


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
    # allow_nan=False: exports are standard JSON, whatever an old database holds.
    out = json.dumps(obj, indent=style.indent, ensure_ascii=style.ensure_ascii, allow_nan=False)
    return out + "\n" if style.trailing_newline else out


def write_json_file(path: str | Path, obj: Any, style: JsonStyle) -> Path:
    """Write ``obj`` to ``path`` (UTF-8, parents created) in ``style``; return the path."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(dump_json(obj, style), encoding="utf-8", newline="")
    return p
