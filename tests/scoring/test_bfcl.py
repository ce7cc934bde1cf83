"""BFCL AST scoring on project-made function-calling items."""

import json

import pytest

from reviewer.scoring.base import ScoringItem, ScoringOutput
from reviewer.scoring.bfcl import SCORER
from reviewer.scoring.bfcl_decode import DecodeError, decode

AREA = {
    "name": "triangle.area",
    "parameters": {
        "type": "dict",
        "properties": {
            "base": {"type": "integer"},
            "height": {"type": "float"},
            "unit": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "opts": {"type": "dict"},
        },
        "required": ["base", "height"],
    },
}
AREA_ANSWER = {"triangle.area": {"base": [10], "height": [5.0], "unit": ["square meters", ""],
                                 "tags": [["a", "b"], ""], "opts": [{"precise": [True], "mode": ["fast", ""]}, ""]}}
WEATHER = {"name": "get_weather", "parameters": {"type": "dict", "properties": {
    "city": {"type": "string"}, "day": {"type": "string"}}, "required": ["city"]}}


def item(category="simple", functions=(AREA,), gold=(AREA_ANSWER,)):
    return ScoringItem("i1", "function_call", list(gold), payload={"functions": list(functions)}, category=category)


def run(text, it=None, mode="faithful", **extra):
    return SCORER.score(it or item(), ScoringOutput(text=text, extra=extra), mode)


@pytest.mark.parametrize(
    "text",
    [
        "[triangle.area(base=10, height=5)]",
        "triangle.area(base=10, height=5.0, unit='Square-Meters')",
        "triangle.area(base=10, height=5, opts={'precise': True})",
        "```\n[triangle.area(base=5*2, height=5)]\n```",  # bare fences are stripped; arithmetic is computed
    ],
)
def test_correct_python_calls_pass_in_both_modes(text):
    for mode in ("faithful", "fixed"):
        result = run(text, mode=mode)
        assert result.passed is True and result.value == 1, (mode, result.notes)


@pytest.mark.parametrize(
    "text",
    [
        '```json\n[{"triangle.area": {"base": 10, "height": 5}}]\n```',
        '[{"name": "triangle.area", "arguments": "{\\"base\\": 10, \\"height\\": 5}"}]',
        '{"name": "triangle.area", "parameters": {"base": 10, "height": 5, "tags": ["A", "b"]}}',
        "```python\n[triangle.area(base=10, height=5)]\n```",
    ],
)
def test_json_and_tagged_fences_fail_to_decode_officially_but_pass_fixed(text):
    faithful = run(text)
    assert faithful.passed is False and faithful.notes[0] == "error_type: ast_decoder:decoder_failed"
    assert run(text, mode="fixed").passed is True


def test_tool_calls_in_extra_are_used_with_bfcl_underscore_names():
    # Function-calling APIs forbid "." in names; BFCL then expects "triangle_area" (underscore_to_dot).
    calls = [{"type": "function", "function": {"name": "triangle_area", "arguments": '{"base": 10, "height": 5}'}}]
    assert run(None, tool_calls=calls).passed is True
    dotted = [{"type": "function", "function": {"name": "triangle.area", "arguments": '{"base": 10, "height": 5}'}}]
    assert run(None, tool_calls=dotted).notes[0] == "error_type: simple_function_checker:wrong_func_name"
    assert run(None, tool_calls=dotted, underscore_to_dot=False).passed is True
    assert run(None, mode="fixed", tool_calls=dotted).passed is True and run(None, mode="fixed", tool_calls=calls).passed


@pytest.mark.parametrize(
    "text, error_type",
    [
        ("triangle.area(height=5)", "simple_function_checker:missing_required"),
        ("triangle.area(base='10', height=5)", "type_error:simple"),
        ("triangle.area(base=True, height=5)", "type_error:simple"),  # a bool is not an integer
        ("triangle.area(base=11, height=5)", "value_error:others"),
        ("triangle.area(base=10, height=5, unit='feet')", "value_error:string"),
        ("triangle.area(base=10, height=5, colour='red')", "simple_function_checker:unexpected_param"),
        # With "" among the allowed tags BFCL skips the item type check; the value check still fails.
        ("triangle.area(base=10, height=5, tags=['a', 1])", "value_error:list/tuple"),
        ("triangle.area(base=10, height=5, tags=['b', 'a'])", "value_error:list/tuple"),  # order matters
        ("triangle.area(base=10, height=5, opts={'precise': False})", "value_error:dict_value"),
        ("triangle.area(base=10, height=5, opts={'mode': 'fast'})", "value_error:dict_key"),
        ("circle.area(radius=1)", "simple_function_checker:wrong_func_name"),
        ("[triangle.area(base=10, height=5), triangle.area(base=10, height=5)]", "simple_function_checker:wrong_count"),
    ],
)
def test_each_rule_rejects_with_bfcl_error_type(text, error_type):
    result = run(text)
    assert result.passed is False and result.value == 0
    assert result.notes[0] == f"error_type: {error_type}", result.notes


def test_array_items_are_type_checked():
    gold = {"triangle.area": {"base": [10], "height": [5.0], "tags": [["a", "b"]]}}
    result = run("triangle.area(base=10, height=5, tags=['a', 1])", item(gold=[gold]))
    assert not result.passed and result.notes[0] == "error_type: type_error:nested"


def test_optional_parameter_without_empty_marker_must_be_given():
    gold = {"get_weather": {"city": ["Paris"], "day": ["today"]}}
    it = item(functions=[WEATHER], gold=[gold])
    assert run("get_weather(city='Paris', day='today')", it).passed
    result = run("get_weather(city='paris')", it)
    assert not result.passed and result.notes[0] == "error_type: simple_function_checker:missing_optional"


def test_unreadable_answer_fails_with_the_reason():
    result = run("I think you should call the area function.")
    assert result.passed is False and result.notes[0] == "error_type: ast_decoder:decoder_failed"
    with pytest.raises(DecodeError):
        decode("")


def test_parallel_calls_match_in_any_order():
    gold = [{"get_weather": {"city": ["Paris"], "day": [""]}}, {"get_weather": {"city": ["Rome"], "day": [""]}}]
    it = item("parallel", [WEATHER], gold)
    assert run("[get_weather(city='Rome'), get_weather(city='Paris')]", it).passed
    assert not run("[get_weather(city='Rome'), get_weather(city='Rome')]", it).passed
    assert not run("[get_weather(city='Rome')]", it).passed


def test_greedy_parallel_matching_quirk_and_its_fix():
    # Answer 0 accepts Paris or Rome, answer 1 only Paris. Greedy gives the Paris call to
    # answer 0 and then finds nothing for answer 1; a full matching pairs them correctly.
    gold = [{"get_weather": {"city": ["Paris", "Rome"], "day": [""]}}, {"get_weather": {"city": ["Paris"], "day": [""]}}]
    it = item("parallel", [WEATHER], gold)
    text = "[get_weather(city='Paris'), get_weather(city='Rome')]"
    assert run(text, it).passed is False
    assert run(text, it, mode="fixed").passed is True


def test_underscored_dotted_name_only_in_fixed_mode():
    assert run("triangle_area(base=10, height=5)").passed is False
    assert run("triangle_area(base=10, height=5)", mode="fixed").passed is True


def test_multiple_checks_the_expected_function_among_several():
    it = item("multiple", [WEATHER, AREA], [AREA_ANSWER])
    assert run("triangle.area(base=10, height=5)", it).passed
    assert not run("get_weather(city='Paris')", it).passed


def test_irrelevance_and_relevance():
    irrelevant = item("irrelevance", [WEATHER], [])
    assert run("Sorry, none of these functions can compute that.", irrelevant).passed
    assert not run("get_weather(city='Paris')", irrelevant).passed
    relevant = item("live_relevance", [WEATHER], [])
    assert run("get_weather(city='Paris')", relevant).passed
    assert not run("No function applies.", relevant).passed


def test_unsupported_categories_are_skipped_with_a_reason():
    for category in ("multi_turn_base", "exec_simple", "rest", "BFCL_v4_multi_turn_base"):
        result = run("x()", item(category))
        assert result.skipped and result.notes[0].startswith("not scored:")
        assert category.replace("BFCL_v4_", "").split("_")[0] in result.notes[0]


def test_java_text_answers_are_parsed_like_bfcl_or_not_scored_without_tree_sitter(monkeypatch):
    from reviewer.scoring import bfcl_treesitter

    fn = {"name": "Calc.add", "parameters": {"type": "dict", "properties": {
        "n": {"type": "long"}, "name": {"type": "String"}}, "required": ["n"]}}
    it = item("simple_java", [fn], [{"Calc.add": {"n": [5], "name": ["x", ""]}}])
    if bfcl_treesitter.available():
        assert run('Calc.add(n=5L, name="x")', it).passed
        assert run("Calc.add(n=5)", it).notes[0] == "error_type: type_error:simple"  # "5" stays a string for a long
    monkeypatch.setattr(bfcl_treesitter, "available", lambda: False)
    result = run('Calc.add(n=5L, name="x")', it)
    assert result.skipped and "tree-sitter" in result.notes[0]


def test_aggregate_reports_overall_and_per_category_accuracy():
    simple = item()
    parallel = item("parallel", [WEATHER], [{"get_weather": {"city": ["Paris"], "day": [""]}}])
    pairs = [
        (simple, run("triangle.area(base=10, height=5)", simple)),
        (simple, run("triangle.area(base=1, height=5)", simple)),
        (parallel, run("[get_weather(city='Paris')]", parallel)),
        (simple, run("x()", item("multi_turn_base"))),
    ]
    summary = SCORER.aggregate(pairs)
    assert summary["items"] == 3 and summary["skipped"] == 1
    assert summary["accuracy"] == pytest.approx(2 / 3)
    assert summary["by_category"] == {"parallel": {"accuracy": 1.0, "items": 1}, "simple": {"accuracy": 0.5, "items": 2}}
    assert summary["category_mean"] == pytest.approx(0.75)


def test_python_values_decode_like_bfcl():
    calls = decode("f(a=-1, b=[1, (2, 3)], c=some_var, d=math.pi, e={'k': None})")
    assert calls == [{"f": {"a": -1, "b": [1, [2, 3]], "c": "some_var", "d": "math.pi", "e": {"k": None}}}]
    assert json.loads(json.dumps(calls)) == calls


def test_registered_for_its_kind():
    from reviewer.scoring.registry import scorer_for

    assert scorer_for("function_call").name == "bfcl"


@pytest.mark.parametrize(
    "text",
    ["f(a=10**10**9)", "f(a='a'*10**9)", "f(a=[0]*10**6*10**6)", "f(a=1<<10**9)", "f(a='%0999999999d' % 1)",
     "f(a=(2**20)**(2**20))", "f(a=" + "(" * 5000 + "1" + ")" * 5000 + ")", "f(a=" + "1+" * 20000 + "1)"],
)
def test_faithful_decoder_refuses_arithmetic_too_large_to_compute_quickly(text):
    import time

    from reviewer.scoring.bfcl_decode import decode_ast_prompting

    started = time.perf_counter()
    with pytest.raises(DecodeError):
        decode_ast_prompting(text)
    assert time.perf_counter() - started < 2.0  # the official decoder's eval would hang or exhaust memory


def test_faithful_decoder_matches_bfcl_on_its_quirks():
    from reviewer.scoring.bfcl_decode import decode_ast_prompting

    assert decode_ast_prompting("f(a=+5, b=not True, c=-2.5)") == [{"f": {"a": -5, "b": -1, "c": -2.5}}]
    assert decode_ast_prompting("[f(a=(1, 2), b=5*2, c=x[0], d=g(1), e=g(k=1))]") == [
        {"f": {"a": (1, 2), "b": 10, "c": "x[0]", "d": "g(1)", "e": {"g": {"k": 1}}}}]
    assert decode_ast_prompting("f(1, **{'a': 2})") == [{"f": {None: {"a": 2}}}]
    assert decode_ast_prompting("```\nf(a=1)\n```") == [{"f": {"a": 1}}]
    for text in ("```python\nf(a=1)\n```", '[{"f": {"a": 1}}]', "f(a=-x)", "f(a=lambda: 1)", "f(a={1})", "f(a='s'-1)"):
        with pytest.raises(DecodeError):
            decode_ast_prompting(text)


def test_failed_model_call_is_scored_as_bfcl_scores_its_error_text():
    failed = ScoringOutput(text=None, status="error")
    irrelevant = item("irrelevance", [WEATHER], [])
    assert SCORER.score(irrelevant, failed, "faithful").passed is True  # the official quirk: no call made
    assert SCORER.score(irrelevant, failed, "fixed").passed is False
    result = SCORER.score(item(), failed, "faithful")
    assert result.passed is False and result.notes[0] == "error_type: ast_decoder:decoder_failed"
    memory = item("memory", [], ["Michael"])
    assert SCORER.score(memory, failed).notes[0] == "error_type: agentic:inference_error"


def test_xml_answers_cannot_expand_entities_or_read_files(tmp_path):
    from reviewer.scoring.bfcl_decode import decode_ast_prompting

    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET", encoding="utf-8")
    external = (f'<!DOCTYPE x [<!ENTITY e SYSTEM "file://{secret}">]><functions><function name="f">'
                '<param name="a" type="string">&e;</param></function></functions>')
    laughs = ('<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
              '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><functions><function name="f">'
              '<param name="a" type="string">&c;</param></function></functions>')
    for text in (external, laughs):
        with pytest.raises(DecodeError) as exc:
            decode_ast_prompting(text, "concise_xml")
        assert "TOP-SECRET" not in str(exc.value) and "aaaaaaaaaa" not in str(exc.value)
    ok = '<functions><function name="f"><param name="a" type="integer">5</param></function></functions>'
    assert decode_ast_prompting(f"<TOOLCALL>{ok}</TOOLCALL>", "concise_xml", True) == [{"f": {"a": 5}}]


@pytest.mark.parametrize(
    "text, faithful_error",
    [
        ("triangle.area(base=10, height=5, tags=('a', 'b'))", "type_error:simple"),  # a tuple for an array
        ("triangle.area(base=+10, height=5)", "value_error:others"),  # officially +10 is -10
        ("triangle.area(base=10, **{'height': 5})", "simple_function_checker:missing_required"),
        ("```python\ntriangle.area(base=10, height=5)\n```", "ast_decoder:decoder_failed"),
    ],
)
def test_each_fixed_mode_difference_changes_the_verdict(text, faithful_error):
    faithful = run(text)
    assert faithful.passed is False and faithful.notes[0] == f"error_type: {faithful_error}", faithful.notes
    assert run(text, mode="fixed").passed is True


def test_fixed_mode_counts_a_json_call_as_a_call_for_irrelevance():
    irrelevant = item("irrelevance", [WEATHER], [])
    text = '[{"get_weather": {"city": "Paris"}}]'
    assert run(text, irrelevant).passed is True  # officially it fails to decode, so "no call"
    assert run(text, irrelevant, mode="fixed").passed is False
