"""The JSON tree of a big response, kept in the helper process (Qt-free).

Parsing a 5 MB response for the tree makes about a million Python objects; kept
in the app, freeing them when the user moves to the next item held the GUI up
(tens of milliseconds, even taken apart piece by piece on a worker). Here the
parsed value lives in the helper process (reviewer_ui.runtime.parsepool), and
the app only receives the rows it shows, a batch at a time, as plain tuples:
``(key, preview, type name, size)``; ``size`` is the number of members of a
container (0 for a scalar). The app holds a ``RemoteJson`` handle.
"""

from __future__ import annotations

import itertools
import json
import os
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

KEEP = 3  # parsed values the helper keeps (the newest ones), in case a handle outlives closing

_values: OrderedDict[str, Any] = OrderedDict()  # handle key -> parsed value (in the helper)
_keys = itertools.count(1)
PREVIEW = 160


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


def _row(key: Any, value: Any) -> tuple:
    size = len(value) if isinstance(value, (dict, list)) else 0
    return key, preview(value), type_name(value), size


def open_value(key: str, src_path: str) -> tuple:
    """Helper side: parse the JSON text at ``src_path`` (deleting the file) and keep it
    under ``key``. Returns ``("ok", top row)`` or ``("error", message)``."""
    from reviewer_ui.textdoc import read_handed_over

    data, value = read_handed_over(src_path)
    if data is None:
        return "error", value
    del data
    keep_value(key, value)
    return "ok", _row("$", value)


def keep_value(key: str, value: Any) -> None:
    """Helper side: keep ``value`` under ``key``, forgetting the oldest beyond KEEP."""
    from reviewer_ui.textdoc import _release_freed_memory

    _values[key] = value
    while len(_values) > KEEP:
        _values.popitem(last=False)
        _release_freed_memory()


def top_row(key: str) -> tuple | None:
    """Helper side: the top row of a value kept under ``key``, or None."""
    value = _values.get(key)
    return None if value is None else _row("$", value)


def rows(key: str, path: tuple, start: int, count: int) -> list[tuple] | None:
    """Helper side: rows ``start`` to ``start + count`` under the node at ``path``
    (dict keys or list indexes from the top), or None if the value is gone."""
    value = _values.get(key)
    if value is None:
        return None
    for part in path:
        value = value[part]
    if isinstance(value, dict):
        return [_row(k, v) for k, v in itertools.islice(value.items(), start, start + count)]
    if isinstance(value, list):
        return [_row(i, value[i]) for i in range(start, min(len(value), start + count))]
    return []


def close_value(key: str) -> None:
    """Helper side: forget the value (freeing it there, not in the app)."""
    from reviewer_ui.textdoc import _release_freed_memory

    if _values.pop(key, None) is not None:
        _release_freed_memory()


def new_key() -> str:
    return f"{os.getpid()}-{next(_keys)}"


def open_text(text: str, key: str | None = None) -> RemoteJson:
    """App side (a worker): a handle to ``text`` parsed in the helper, reusing the value
    kept under ``key`` when the helper still has it (it pretty-printed the same text).
    Raises ValueError naming the problem when it is not JSON."""
    from reviewer_ui.runtime import parsepool
    from reviewer_ui.textdoc import _write_source

    if key is not None:
        top = parsepool.run(top_row, key)  # queued behind the pretty-printing of that text
        if top is not None:
            return RemoteJson(key, top)
    key = new_key()
    outcome = parsepool.run(open_value, key, _write_source(text))
    if outcome[0] != "ok":
        raise ValueError(outcome[1])
    return RemoteJson(key, outcome[1])
