"""Per-parameter "any of" comparison of a BFCL output with its possible answers (for the item view)."""

from reviewer.scoring.bfcl_compare import compare_output, gold_for_diff

TIP = {"name": "tip", "parameters": {"type": "dict", "properties": {
    "bill": {"type": "float"}, "city": {"type": "string"}, "percent": {"type": "integer"},
    "tags": {"type": "array", "items": {"type": "string"}}}, "required": ["bill"]}}
GOLD = [{"tip": {"bill": [42.0], "city": ["New York", "NYC"], "percent": [15, ""], "tags": [["a", "b"], ""]}}]


def statuses(comparison):
    return {p.name: p.status for call in comparison.calls for p in call.params}


def test_a_value_among_the_allowed_ones_is_a_match_not_a_type_change():
    c = compare_output(GOLD, "[tip(bill=42.0, city='nyc')]", functions=[TIP], category="simple_python")
    assert statuses(c) == {"bill": "match", "city": "match", "percent": "optional_absent", "tags": "optional_absent"}
    bill = c.calls[0].params[0]
    assert bill.matched == 42.0 and bill.allowed == [42.0]
    assert c.ok
    assert gold_for_diff(c) == [{"tip": {"bill": 42.0, "city": "nyc"}}] == c.output_calls


def test_an_integer_for_a_float_matches_as_bfcl_allows():
    c = compare_output(GOLD, "tip(bill=42, city='New York')", functions=[TIP], category="simple_python")
    assert statuses(c)["bill"] == "match"


def test_mismatch_missing_and_unexpected_are_reported_per_parameter_with_the_reason():
    gold = [{"tip": {"bill": [42.0], "city": ["NYC"], "percent": [15]}}]
    c = compare_output(gold, "[tip(bill=41.0, tags=['a'], colour='red')]", functions=[TIP], category="simple_python")
    s = statuses(c)
    assert s == {"bill": "mismatch", "city": "missing", "percent": "missing", "tags": "unexpected", "colour": "unexpected"}
    bill = c.calls[0].params[0]
    assert bill.reason.startswith("value_error:others") and not c.ok
    assert gold_for_diff(c) == [{"tip": {"bill": 42.0, "city": "NYC", "percent": 15}}]
    wrong_type = compare_output(gold, "[tip(bill='42', city='NYC', percent=15)]", functions=[TIP], category="simple_python")
    assert wrong_type.calls[0].params[0].reason.startswith("type_error:simple")


def test_java_source_strings_are_converted_before_comparing():
    fn = {"name": "Calc.add", "parameters": {"type": "dict", "properties": {"n": {"type": "long"}}, "required": ["n"]}}
    gold = [{"Calc.add": {"n": [5]}}]
    calls = [{"function": {"name": "Calc_add", "arguments": '{"n": "5L"}'}}]
    assert statuses(compare_output(gold, None, {"tool_calls": calls}, [fn], "simple_java")) == {"n": "match"}
    calls = [{"function": {"name": "Calc_add", "arguments": '{"n": "5"}'}}]  # a long needs its L
    assert statuses(compare_output(gold, None, {"tool_calls": calls}, [fn], "simple_java")) == {"n": "mismatch"}
    from reviewer.scoring import bfcl_treesitter

    if bfcl_treesitter.available():  # Java text, parsed as BFCL parses it
        assert statuses(compare_output(gold, "Calc.add(n=5L)", None, [fn], "simple_java")) == {"n": "match"}


def test_parallel_calls_pair_with_the_best_matching_output_call_and_extras_are_listed():
    gold = [{"tip": {"bill": [10.0]}}, {"tip": {"bill": [20.0]}}]
    c = compare_output(gold, "[tip(bill=20.0), tip(bill=10.0), other(x=1)]", functions=[TIP], category="parallel")
    assert [call.params[0].status for call in c.calls] == ["match", "match"]
    assert c.extra_calls == [{"other": {"x": 1}}] and not c.ok


def test_an_unreadable_output_reports_why_and_every_expected_call_as_unmatched():
    c = compare_output(GOLD, "I would call tip.", functions=[TIP])
    assert c.output_calls is None and c.problem
    assert c.calls[0].output_function is None and statuses(c)["bill"] == "missing"
