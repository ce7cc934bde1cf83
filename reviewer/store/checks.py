"""The checks an import makes of each item before storing it: values both databases store alike.

No SQLAlchemy here: the import's reading process (reviewer.store.import_feed) runs them too.
"""

from __future__ import annotations

import hashlib
import json
import re

from reviewer.errors import InputError, json_path
from reviewer.formats._jsonio import text_problem, unstorable


def where_in_file(rec) -> str:
    return f"line {rec.source_line}" if rec.source_line else f"record {rec.record_id!r}"


# Markers of JSON text that may decode to something unstorable; only such texts are parsed.
# A number overflows to infinity when its integer digits and its exponent add up past 308:
# 309 digits, a 3-digit exponent, or 210 digits with a 1- or 2-digit one (1 and 250 zeros,
# then e60, is 1e310).
_SUSPECT_JSON_TEXT = re.compile(r"NaN|Infinity|\\u0000|\\u[dD][89a-fA-F]|\d{309,}|[eE]\+?\d{3,}|\d{210,}(?:\.\d*)?[eE]")


def check_storable(source, where: str, fields: dict, json_texts: dict | None = None) -> None:
    """InputError naming ``where`` and the JSON path of the first value neither database
    can hold alike. ``fields`` maps a field name to a JSON value or a text; a field
    named "raw" is the source record itself, so its paths are the file's own.
    ``json_texts`` are texts holding JSON (a tool response, a schema), checked by
    what they decode to.
    """
    if unstorable(fields) is not None:  # one pass in C for the usual, clean record; else name the field
        _raise_for_field(source, where, fields)
    for name, value in (json_texts or {}).items():
        found = _json_text_problem(value) if value else None
        if found:
            label, problem = found
            raise InputError(source, f"{where}, {name}{' ' + label if label else ''}", f"holds {problem}")


def _raise_for_field(source, where: str, fields: dict) -> None:
    """InputError for the first of ``fields`` holding a value the databases cannot store alike."""
    for name, value in fields.items():
        if value is None:
            continue
        if isinstance(value, str):
            problem = text_problem(value)
            if problem:
                raise InputError(source, f"{where}, {name}", f"holds {problem}")
            continue
        found = unstorable(value)
        if found:
            parts, problem = found
            label = json_path(parts) if name == "raw" else f"{name} {json_path(parts)}"
            raise InputError(source, f"{where}, {label}", f"holds {problem}")


_CHECKED_TEXTS: dict[bytes, tuple[str, str] | None] = {}
_CHECKED_TEXTS_MAX = 256


def _json_text_problem(value: str) -> tuple[str, str] | None:
    """(JSON path, problem) of a JSON text that holds, or decodes to, a value the databases
    cannot store alike (path "" for the text itself); None when it is clean.

    Remembered by a digest of the text, not the text, so no megabyte response is kept alive:
    the items of a toolJSON dataset share a few dozen API responses, and scanning each item's
    copy again took 0.87 s of a 1.2 s import of 495 items. A cryptographic digest, not str's
    hash: with PYTHONHASHSEED set, a file could be crafted to collide with a clean text.
    (BLAKE2 runs at about 1 GB/s, far below the scan's cost.)"""
    key = hashlib.blake2b(value.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    if key in _CHECKED_TEXTS:
        return _CHECKED_TEXTS[key]
    found = _scan_json_text(value)
    if len(_CHECKED_TEXTS) >= _CHECKED_TEXTS_MAX:
        _CHECKED_TEXTS.clear()
    _CHECKED_TEXTS[key] = found
    return found


def _scan_json_text(value: str) -> tuple[str, str] | None:
    problem = text_problem(value)
    if problem:
        return "", problem
    if _SUSPECT_JSON_TEXT.search(value):
        try:
            decoded = json.loads(value)
        except (ValueError, RecursionError):
            return None  # not JSON at all: stored as the text it is
        found = unstorable(decoded)
        if found:
            return json_path(found[0]), found[1]
    return None


def check_item(rec, source) -> None:
    """InputError naming the item's file, line or record and JSON path if it holds a value the databases cannot store alike."""
    if rec.storable_checked and rec.context is None and rec.schema is None:
        return  # the reader checked every value as it read it (see ItemRecord.storable_checked)
    fields = {"raw": rec.raw, "record id": rec.record_id, "gold": rec.gold, "payload": rec.payload,
              "question": rec.question, "category": rec.category, "difficulty": rec.difficulty, "domain": rec.domain}
    texts = {k: v for k, v in (("context", rec.context), ("schema", rec.schema)) if v}
    check_storable(rec.source_file or source, where_in_file(rec), fields, texts)
