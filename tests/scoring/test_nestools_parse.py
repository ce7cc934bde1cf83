"""Reading a NesTools model answer into calls."""

from reviewer.scoring.nestools_parse import parse_calls

CALL = '{"api_name": "a", "api_id": 1, "parameters": {"x": 1}}'


def test_list_inside_prose_is_read():
    parsed = parse_calls(f"Sure! Here it is:\n[{CALL}]\nHope this helps.")
    assert parsed.calls == [{"api_name": "a", "api_id": 1, "parameters": {"x": 1}}]


def test_python_literal_and_json_are_both_accepted():
    assert parse_calls("[{'api_name': 'a', 'api_id': 1, 'parameters': {'ok': True}}]").calls
    assert parse_calls('[{"api_name": "a", "api_id": 1, "parameters": {"ok": true, "n": null}}]').calls


def test_missing_key_or_bad_parameters_is_a_format_failure_with_the_reason():
    parsed = parse_calls('[{"api_name": "a", "parameters": {}}]')
    assert parsed.calls is None and "lacks api_id" in parsed.problem
    parsed = parse_calls('[{"api_name": "a", "api_id": 1, "parameters": [1]}]')
    assert parsed.calls is None and "parameters is not an object" in parsed.problem
    assert parse_calls("[1, 2]").problem == "$[0] is a int, not a call object"
    assert parse_calls("no list here").calls is None
    assert parse_calls(None).calls is None


def test_empty_list_is_a_valid_answer():
    parsed = parse_calls("[]")
    assert parsed.calls == [] and parsed.problem is None


def test_brackets_in_trailing_prose_fail_faithfully_and_are_recovered_in_fixed_mode():
    text = f"[{CALL}]\nNote: see [1] for details"
    assert parse_calls(text).calls is None
    fixed = parse_calls(text, fixed=True)
    assert fixed.calls and fixed.recovered
    single_quoted = "[{'api_name': 'a', 'api_id': 1, 'parameters': {}}] then [x]"
    assert parse_calls(single_quoted).calls is None
    assert parse_calls(single_quoted, fixed=True).calls == [{"api_name": "a", "api_id": 1, "parameters": {}}]
