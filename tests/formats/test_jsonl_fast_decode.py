"""JSON Lines decoding through orjson gives json's very values, and says "clean" only when it is.

reviewer.formats._jsonio decodes a line with orjson where that is safe and with
json otherwise; a line orjson decoded without a \\u0000 escape is marked clean, so
the import skips its storability walk. These lines are where the two decoders
could differ: integers past 64 bits (orjson: floats), NaN and infinities, lone
surrogates, NUL escapes, duplicate keys, negative zero, exponents.
"""

from __future__ import annotations

import json
import math

import pytest

from reviewer.errors import InputError
from reviewer.formats._jsonio import _loads_line, iter_jsonl, unstorable

LINES = [
    '{"a": 1, "b": [1.5, -0.0, 0, -0], "c": "x"}',
    '{"big": 12345678901234567890123}',          # past 64 bits: must stay an int
    '{"edge": 9223372036854775808, "neg": -9223372036854775809}',
    '{"u64": 18446744073709551615, "over": 18446744073709551616}',
    '{"isbn": "9783161484100123456789"}',         # a long digit run inside a string
    '{"e": 1e308, "tiny": 5e-324, "under": 1e-400, "exp": 2E+3}',
    '{"dup": 1, "dup": 2}',
    '{"emoji": "\\ud83d\\ude00", "raw": "caf\u00e9"}',
    '[1, NaN]', '{"x": Infinity}', '{"x": -Infinity}', '{"x": 1e400}',
    '"\\ud800"', '{"\\udc00": 1}',
    '{"nul": "a\\u0000b"}', '{"k\\u0000": 1}', '{"escaped": "\\\\u0000"}',
]


@pytest.mark.parametrize("line", LINES)
def test_same_value_as_json_and_clean_only_when_storable(line):
    value, clean = _loads_line(line)
    expected = json.loads(line)
    assert json.dumps(value, sort_keys=True) == json.dumps(expected, sort_keys=True)
    assert _same_types(value, expected)
    if clean:
        assert unstorable(value) is None


def _same_types(a, b) -> bool:
    if type(a) is not type(b):
        return isinstance(a, float) and math.isnan(a) and math.isnan(b)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_types(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same_types(x, y) for x, y in zip(a, b))
    return a == b or (isinstance(a, float) and math.isnan(a))


@pytest.mark.parametrize("line, message", [
    ('{"a": 1,}', "line 2, column 9"),
    ('{"a": "unterminated', "truncated"),
    ('{"a": [1, 2]', "truncated"),
])
def test_errors_are_json_s_own(tmp_path, line, message):
    path = tmp_path / "d.jsonl"
    path.write_text('{"ok": 1}\n' + line + "\n")
    with pytest.raises(InputError) as err:
        list(iter_jsonl(path))
    assert message in str(err.value) and "line 2" in str(err.value)


@pytest.mark.parametrize("line, where", [
    ('{"nul": "a\\u0000b"}', "$.nul"),
    ('{"k\\u0000": 1}', "$['k\\x00']"),
    ('[1, NaN]', "$[1]"),
    ('"\\ud800"', "line 2"),
])
def test_unstorable_lines_are_still_refused_with_their_path(tmp_path, line, where):
    path = tmp_path / "d.jsonl"
    path.write_text('{"ok": 1}\n' + line + "\n")
    with pytest.raises(InputError) as err:
        list(iter_jsonl(path))
    assert "line 2" in str(err.value) and where in str(err.value)
