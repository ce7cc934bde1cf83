"""The JSON tree of a big response, kept in the helper process (Qt-free).

Parsing a 5 MB response for the tree makes about a million Python objects; kept
in the app, freeing them when the user moves to the next item held the GUI up
(tens of milliseconds, even taken apart piece by piece on a worker). Here the
parsed value lives in the helper process (reviewer_ui.runtime.parsepool), and
the app only receives the rows it shows, a batch at a time, as plain tuples:
``(key, preview, type name, size)``; ``size`` is the number of members of a
container (0 for a scalar). The app holds a ``RemoteJson`` handle.

The tree's requests go by the helper's quick lane (``parsepool.quick``), answered by
another thread of the helper, so they never queue behind a pretty-print. The value
parsed to pretty-print a response is kept *before* the printing starts
(``parse_once``): a tree asked for meanwhile waits for that parse at most; when the
print has not started yet the lane parses the very file handed over for the print
(the app does not write the text again), and the print then takes that value: the
text is parsed once either way. Values let go of are freed a piece at a time
(reviewer_ui.runtime.disposal.take_apart): freed in one cascade, a 5 MB response held
the helper's GIL, and so the lane's next answer, for 75-400 ms. A text above
textdoc.PARSED_WHOLE_UP_TO is never parsed whole: what is kept for it is a SpanTree
(reviewer_ui.spantree), which reads the rows from the text.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

KEEP = 3  # parsed values the helper keeps (the newest ones), in case a handle outlives closing

_values: OrderedDict[str, Any] = OrderedDict()  # handle key -> parsed value (in the helper)
_parsing: dict[str, threading.Event] = {}  # keys whose text the helper is parsing, set when done
_errors: dict[str, str] = {}  # key -> why its text is not JSON, for the second one to bring it
_lock = threading.Lock()  # the queue's thread and the quick lane's threads share the three above
_keys = itertools.count(1)
PREVIEW = 160
PARSE_WAIT_S = 30.0  # a tree waits this long at most for a parse under way


def preview(value: Any) -> str:
    """One-line text for a value: scalars as JSON, containers by size."""
    if isinstance(value, dict):
        return f"{{{len(value)} keys}}" if value else "{}"
    if isinstance(value, list):
        return f"[{len(value)} items]" if value else "[]"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= PREVIEW else text[: PREVIEW - 1] + "…"


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "object", list: "array", str: "string", bool: "boolean"}.get(
        type(value), "number" if isinstance(value, (int, float)) else type(value).__name__
    )


@dataclass(frozen=True)
class RemoteJson:
    """A parsed JSON value living in the helper process: its key there and its top row."""

    key: str
    top: tuple  # (key, preview, type name, size) of the value itself


def row_of(key: Any, value: Any) -> tuple:
    """The row of ``value`` under ``key``: (key, preview, type name, size)."""
    size = len(value) if isinstance(value, (dict, list)) else 0
    return key, preview(value), type_name(value), size


def _top(value: Any) -> tuple:
    """The top row of a kept value: a parsed one or a huge text's SpanTree."""
    return value.top_row() if is_span_tree(value) else row_of("$", value)


def is_span_tree(value: Any) -> bool:
    """Whether ``value`` is a huge text's SpanTree (reviewer_ui.spantree), without importing
    that module (and numpy) for the other texts."""
    module = sys.modules.get("reviewer_ui.spantree")
    return module is not None and isinstance(value, module.SpanTree)


def open_value(key: str, src_path: str) -> tuple:
    """Helper side: parse the JSON text at ``src_path`` (deleting the file) and keep it
    under ``key``. Returns ``("ok", top row)`` or ``("error", message)``."""
    size, value = parse_once(key, src_path)
    if size is None:
        return "error", value
    try:
        return "ok", _top(value)
    except ValueError as exc:  # a huge text's top, read from the text, is not JSON
        forget_invalid(key, str(exc))
        return "error", str(exc)


def parse_once(key: str | None, src_path: str) -> tuple[int | None, Any]:
    """Helper side: the parsed value of the JSON text at ``src_path`` (the file is deleted)
    as ``(size in bytes, value)``, or ``(None, message)`` when it is not JSON; the value of
    a text above textdoc.PARSED_WHOLE_UP_TO is a SpanTree, which holds the text, not its
    parsed value (``_read_parsed``). The value is kept under ``key``.

    The pretty-print (on the helper's queue) and the tree (on its quick lane) may both
    bring the same text under the same key, even the same file: it is parsed once.
    Whichever comes second waits for the first one's parse and takes its value (the size
    is then 0 if the first one has deleted the file). FileNotFoundError: the file is gone
    and the value was not kept (the caller hands the text over again)."""
    mine = None
    with _lock:
        value = _values.get(key)
        under_way = _parsing.get(key)
        known_error = _errors.get(key) if value is None and under_way is None else None
        if key is not None and value is None and under_way is None and known_error is None:
            mine = _parsing[key] = threading.Event()
    if known_error is not None:  # found not to be JSON (forget_invalid): not read again
        _discard_handed_over(src_path)
        return None, known_error
    if mine is None and key is not None:
        if under_way is not None:
            under_way.wait(PARSE_WAIT_S)
        with _lock:
            value, error = _values.get(key), _errors.pop(key, None)
        if value is not None or error is not None:
            size = _discard_handed_over(src_path)
            return (size, value) if error is None else (None, error)
    try:  # first to come (or the first one's text was not kept): parse it
        size, value = _read_parsed(src_path)
        if size is None:
            if mine is not None:  # for the second one, which may come with the same (deleted) file
                _remember_error(key, value)
            return None, value
        if key is not None:
            keep_value(key, value)
        return size, value
    finally:
        if mine is not None:
            with _lock:
                if _parsing.get(key) is mine:
                    del _parsing[key]
            mine.set()


def _discard_handed_over(src_path: str) -> int:
    """Delete a handed-over text another call has read; its size (0 if that call deleted it)."""
    try:
        size = os.path.getsize(src_path)
        os.unlink(src_path)
    except FileNotFoundError:  # the first one read the same file
        size = 0
    return size


def _read_parsed(src_path: str) -> tuple[int | None, Any]:
    """(size, value) of the JSON text handed over in ``src_path`` (deleted), or (None, why
    it is not JSON). A text above textdoc.PARSED_WHOLE_UP_TO whose top is an object or an
    array is not parsed: its value is a SpanTree (reviewer_ui.spantree) over the text."""
    from reviewer_ui.runtime import gcpolicy
    from reviewer_ui.textdoc import PARSED_WHOLE_UP_TO, _read_source, parse_json

    data = _read_source(src_path)
    if len(data) > PARSED_WHOLE_UP_TO:
        from reviewer_ui.jsonspans import NotSplittable
        from reviewer_ui.spantree import SpanTree

        try:
            return len(data), SpanTree(data)
        except NotSplittable:
            pass  # a huge string or not JSON: parsed whole, which names any problem
    try:
        # The collector off while a million objects are made (a 5 MB text with three parsed
        # ones kept: 130-350 ms with it, 55-65 ms without), the survivors frozen after.
        with gcpolicy.paused():
            return len(data), parse_json(data)
    except ValueError as exc:
        return None, str(exc)


def forget_invalid(key: str | None, message: str) -> None:
    """Helper side: the text kept under ``key`` (a SpanTree) turned out not to be JSON: drop
    it and keep ``message`` for the tree, which then says so."""
    if key is None:
        return
    with _lock:
        _values.pop(key, None)
    _remember_error(key, message)


def _remember_error(key: str, message: str) -> None:
    with _lock:
        if len(_errors) >= KEEP:
            _errors.clear()
        _errors[key] = message


def keep_value(key: str, value: Any) -> None:
    """Helper side: keep ``value`` under ``key``, forgetting the oldest beyond KEEP."""
    dropped = []
    with _lock:
        _values[key] = value
        while len(_values) > KEEP:
            dropped.append(_values.popitem(last=False))
    if dropped:  # freed out of the lock the quick lane takes, and not in front of the print
        holder = [old for _key, old in dropped]
        dropped.clear()
        threading.Thread(target=_free, args=(holder,), name="free-value", daemon=True).start()
        del holder


def kept_value(key: str) -> Any:
    """Helper side: the value kept under ``key``, or None."""
    with _lock:
        return _values.get(key)


def top_row(key: str, wait: float = PARSE_WAIT_S) -> tuple | None:
    """Helper side: the top row of a value kept under ``key``, or None. If the text of
    ``key`` is being parsed, waits for that first (up to ``wait`` seconds)."""
    with _lock:
        done = _parsing.get(key)
    if done is not None:
        done.wait(wait)
    value = kept_value(key)
    return None if value is None else _top(value)


def rows(key: str, path: tuple, start: int, count: int) -> list[tuple] | None:
    """Helper side: rows ``start`` to ``start + count`` under the node at ``path``
    (dict keys or list indexes from the top), or None if the value is gone."""
    value = kept_value(key)
    if value is None:
        return None
    if is_span_tree(value):
        return value.rows(path, start, count)
    for part in path:
        value = value[part]
    return rows_of(value, start, count)


def rows_of(value: Any, start: int, count: int) -> list[tuple]:
    """Rows ``start`` to ``start + count`` of the members of the parsed ``value``."""
    if isinstance(value, dict):
        return [row_of(k, v) for k, v in itertools.islice(value.items(), start, start + count)]
    if isinstance(value, list):
        return [row_of(i, value[i]) for i in range(start, min(len(value), start + count))]
    return []


def close_value(key: str) -> None:
    """Helper side: forget the value (freeing it there, not in the app). Answers at once:
    the freeing runs on a thread of its own, so that the tree's next request (on the
    quick lane, after this one) does not wait for it."""
    with _lock:
        value = _values.pop(key, None)
    if value is not None:
        threading.Thread(target=_free, args=([value],), name="free-value", daemon=True).start()
        del value


def _free(holder: list) -> None:
    """Free the values in ``holder`` (its only references) a piece at a time."""
    from reviewer_ui.runtime.disposal import take_apart
    from reviewer_ui.runtime.parsepool import wait_lane_idle
    from reviewer_ui.textdoc import _release_freed_memory

    take_apart(holder, wait_lane_idle)  # the tree's requests first
    _release_freed_memory()


def new_key() -> str:
    return f"{os.getpid()}-{next(_keys)}"


def open_text(text: str, key: str | None = None, handed_over: str | None = None) -> RemoteJson:
    """App side (a worker): a handle to ``text`` parsed in the helper, reusing the value
    kept under ``key`` when the helper has it or is parsing it (it pretty-prints the same
    text), else parsing it there at once under ``key``, from ``handed_over`` (the file of
    ``text`` already written for its pretty-print, if any) or a file written now. Never
    waits for a pretty-print (the quick lane). Raises ValueError naming the problem when
    it is not JSON."""
    from reviewer_ui.runtime import parsepool
    from reviewer_ui.textdoc import _write_source

    if key is not None:
        top = parsepool.quick(top_row, key).result()
        if top is not None:
            return RemoteJson(key, top)
    else:
        key = new_key()
    outcome = None
    if handed_over is not None:
        try:
            outcome = parsepool.quick(open_value, key, handed_over).result()
        except FileNotFoundError:  # the print read it and did not keep the value (a huge text)
            pass
    if outcome is None:
        outcome = parsepool.quick(open_value, key, _write_source(text)).result()
    if outcome[0] != "ok":
        raise ValueError(outcome[1])
    return RemoteJson(key, outcome[1])
