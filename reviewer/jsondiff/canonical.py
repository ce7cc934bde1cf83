"""Exact equality and content fingerprints of JSON values, fast.

Python's ``==`` says ``True == 1`` and ``1 == 1.0``; JSON does not. These helpers
use ``==`` (C speed) to rule out differences and a canonical serialisation
(sorted keys, so member order does not count) to confirm sameness. orjson is
used when installed (about 10x faster than the json module). Values nested
deeper than the serialiser goes (255 levels with orjson, about the recursion
limit with json) get no fingerprint: these helpers answer "not known equal" /
None and the caller walks the value itself.
"""

from __future__ import annotations

import json

try:  # optional speed-up
    import orjson
except ImportError:  # pragma: no cover - depends on the environment
    orjson = None

_SCALARS = (str, int, float, bool, type(None))


def _json_canonical(value) -> bytes | None:
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    except (RecursionError, ValueError, TypeError):
        return None


if orjson is not None:
    _OPTS = orjson.OPT_SORT_KEYS

    def canonical(value) -> bytes | None:
        """Canonical bytes of a JSON value (equal bytes <=> equal JSON), or None if too deep."""
        try:
            return orjson.dumps(value, option=_OPTS)
        except orjson.JSONEncodeError as exc:
            if "ecursion" in str(exc):
                # Deeper than 255 levels. The json module could go a few hundred
                # levels further, but trying it at every level of a very deep
                # document costs seconds; such values are walked instead.
                return None
            return _json_canonical(value)  # an integer beyond 64 bits

else:  # pragma: no cover - depends on the environment
    canonical = _json_canonical


def strictly_equal(a, b) -> bool:
    """True only when ``a`` and ``b`` are the same JSON value (types included).

    False means "not known equal": the values may still be equal under the
    diff options (tolerance, 1 vs 1.0, ...) or too deep to check at once.
    """
    if a is b:
        return True
    t = type(a)
    if t is not type(b):
        return False
    if t is dict or t is list:
        try:
            if a != b:
                return False
        except RecursionError:
            return False
        # == holds; make sure no True/1 or 1/1.0 hides inside.
        ca = canonical(a)
        return ca is not None and ca == canonical(b)
    return a == b
