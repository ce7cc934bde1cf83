"""An item's ``payload`` as stored: values the source record already holds are stored once, in ``raw``.

A reader often puts part of the source record in the payload as it is (NesTools:
``payload["apis"]`` is the record's ``api`` list, 40% of the item's JSON). Stored
twice, it was serialised, written and (PostgreSQL) parsed, logged and compressed
twice: a NesTools import spent ~20% of its CPU on the copy (issue 14).

Stored form: such a key keeps its place, its value the name of the record's
top-level key holding the value, and the key ``_from_raw`` lists the keys so
stored: ``{"apis": "api", "api_ids": [...], "_from_raw": ["apis"]}`` (a name, not
``null``: a ``null`` in the text makes the bulk writer decode it again to rule out
NaN, see ``bulk._fast_json``). ``expand`` gives back the payload the reader made
(same keys, same order). A payload without ``_from_raw`` (every item imported
before this, and any payload sharing no value with its record) is stored and
read back unchanged. ``_from_raw`` is reserved: no reader makes a payload key of that name.

``raw`` is never rewritten after an import (a gold edit changes ``gold``), so
the reference keeps pointing at the value the reader saw. Everything that reads
``item.payload`` from the database passes it through ``expand`` with the row's ``raw``.
"""

from __future__ import annotations

from typing import Any

FROM_RAW = "_from_raw"


def compact(payload: dict, raw: Any) -> dict:
    """``payload`` to store: each value that *is* (the same object as) a non-empty list or
    dict at a top-level key of ``raw`` replaced by that key's name.

    Identity, not equality: cheap (no comparison of the values) and exact (the very
    value the reader took from the record). Returns ``payload`` itself when nothing is shared.
    """
    if not payload or not isinstance(raw, dict):
        return payload
    stored = None
    for key, value in payload.items():
        if isinstance(value, (list, dict)) and value:
            for raw_key, raw_value in raw.items():
                if raw_value is value:
                    if stored is None:
                        stored = dict(payload)
                        stored[FROM_RAW] = []
                    stored[key] = raw_key
                    stored[FROM_RAW].append(key)
                    break
    return payload if stored is None else stored


def expand(payload: dict | None, raw: Any) -> dict:
    """The payload as the reader made it, from its stored form and the row's ``raw``
    (``{}`` for none). A reference to a key ``raw`` lacks reads as ``None``."""
    if not payload:
        return {}
    keys = payload.get(FROM_RAW)
    if not isinstance(keys, list):
        return payload
    raw = raw if isinstance(raw, dict) else {}
    out = {key: value for key, value in payload.items() if key != FROM_RAW}
    for key in keys:
        raw_key = payload.get(key)
        out[key] = raw.get(raw_key) if isinstance(raw_key, str) else None
    return out
