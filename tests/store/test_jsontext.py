"""JSON column text: ``encode_storable`` (the import's reading process) writes exactly the text
``encode_json`` (the bulk writer) writes, for every value an import lets through."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from reviewer.store.jsontext import encode_json, encode_storable

NESTOOLS = Path(__file__).resolve().parents[3] / "shared" / "refdata" / "NesTools" / "data" / "test_data.jsonl"

STORABLE = [
    None, True, False, 0, -7, 1.5, 1e300, -0.0, "", "plain", "é ü 中文 😀", "quote \" and \\ back",
    [], {}, [1, [2, [3, {"a": None}]]], {"null": None, "k": [None, None]},
    {"big": 2**64 + 1, "neg": -(2**70)},  # beyond 64 bits: orjson refuses, json writes it
    [2**63 - 1, -(2**63)], {"float": 0.1 + 0.2, "exp": 1.5e-300},
    {"keys": {"1": 1, "": 2, "é": 3}}, ("tuple", "as", "list"),
]


@pytest.mark.parametrize("value", STORABLE, ids=lambda v: type(v).__name__)
def test_same_text_as_encode_json_for_storable_values(value):
    assert encode_storable(value) == encode_json(value)
    if value is not None:
        assert json.loads(encode_storable(value)) == json.loads(json.dumps(value))


def test_same_text_for_every_nestools_reference_record():
    if not NESTOOLS.exists():
        pytest.skip(f"reference data not found at {NESTOOLS}")
    lines = NESTOOLS.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    assert len(records) > 100
    for rec in records:
        assert encode_storable(rec) == encode_json(rec)
        assert encode_storable(rec["call"]) == encode_json(rec["call"])


def test_nan_is_why_it_needs_a_checked_value():
    """The precondition matters: orjson writes NaN as null, which encode_json catches and
    encode_storable does not. An import refuses NaN before encoding (tests/hostile)."""
    value = {"score": math.nan}
    assert encode_json(value) == '{"score": NaN}'
    assert encode_storable(value) == '{"score":null}'


def test_same_value_tells_apart_what_json_text_tells_apart():
    """A gold edit from 1 to true, or 2023 to 2023.0, is an edit (Python's == says equal); key
    order is not; a tuple is the list it is written as."""
    from reviewer.store.jsontext import same_value

    assert not same_value(1, True) and not same_value(0, False) and not same_value(2023, 2023.0)
    assert not same_value([1], [True]) and not same_value({"a": 1}, {"a": 1.0})
    assert same_value({"a": 1, "b": [True, None]}, {"b": [True, None], "a": 1})
    assert same_value(("x", 1), ["x", 1]) and not same_value({"a": 1}, {"a": 1, "b": 2})
    assert same_value(None, None) and not same_value(None, "null") and same_value(1.5, 1.5)
