"""JSON column text: what the bulk writer and the import's reading process store for a JSON value.

No SQLAlchemy here: the reading process (reviewer.store.import_feed) starts without it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

try:  # a runtime dependency; without it JSON goes through json.dumps as before
    import orjson
except ImportError:  # pragma: no cover
    orjson = None


def _dumps(value: Any) -> str:
    """A JSON column's text as SQLAlchemy's default serializer writes it."""
    return json.dumps(value)


def fast_json(slow: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A JSON column's bind processor with orjson in front (10x faster than json.dumps;
    JSON encoding was ~60% of the insert time of a NesTools item).

    orjson's text is used only when it reads back as json.dumps's text would, so
    what is stored reads back exactly as before: orjson refuses integers beyond
    64 bits and non-string keys, and writes NaN and infinities as null -- text
    containing "null" is decoded and compared -- all of which go through the
    column's own processor, as does None (the column type maps it itself). The text may differ in spacing
    and in non-ASCII escaping, never in the value.
    """
    if orjson is None:  # pragma: no cover - orjson is a runtime dependency
        return slow

    def process(value: Any) -> Any:
        if value is None or isinstance(value, (str, int, float, bool)):
            return slow(value)
        try:
            text = orjson.dumps(value)
        except (orjson.JSONEncodeError, TypeError):
            return slow(value)
        # orjson is lossy only where it writes null for NaN or an infinity: without
        # "null" in the text (a substring search) it cannot have been; with it, compare.
        if b"null" in text and not _same_json(orjson.loads(text), value):
            return slow(value)
        return text.decode()

    return process


def _same_json(decoded: Any, value: Any) -> bool:
    """Whether orjson's decoded text equals the value (tuples read back as lists, as json.dumps writes them)."""
    if isinstance(value, tuple):
        value = list(value)
    if isinstance(value, (list, dict)) and type(decoded) is type(value):
        if isinstance(value, dict):
            return decoded.keys() == value.keys() and all(_same_json(decoded[k], value[k]) for k in value)
        return len(decoded) == len(value) and all(_same_json(d, v) for d, v in zip(decoded, value))
    return decoded == value


def same_value(a: Any, b: Any) -> bool:
    """Whether two JSON values are the same as JSON text tells them apart: ``true``, ``1`` and
    ``1.0`` differ (Python's ``==`` calls them equal, so a Fix from 1 to true read as no
    change); object key order does not matter; a tuple is the list it is written as."""
    a, b = (list(v) if isinstance(v, tuple) else v for v in (a, b))
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    return a == b


encode_json = fast_json(_dumps)
encode_json.__doc__ = "The text a JSON column stores for ``value`` (orjson where it round-trips, else json.dumps)."


def encode_storable(value: Any) -> Any:
    """``encode_json(value)`` for a value an import has checked storable (``checks.check_item``
    passed, or its reader checked it: ``ItemRecord.storable_checked``).

    Such a value holds no NaN and no infinity (both are refused as unstorable), the only
    values orjson writes lossily, so orjson's text is taken without searching it for "null"
    and comparing: the same text ``encode_json`` returns, without the search (3 us of the
    6 us it takes to encode a NesTools record). Integers beyond 64 bits and scalars go
    through ``encode_json`` as before.
    """
    if orjson is None or value is None or isinstance(value, (str, int, float, bool)):
        return encode_json(value)
    try:
        return orjson.dumps(value).decode()
    except (orjson.JSONEncodeError, TypeError):
        return encode_json(value)
