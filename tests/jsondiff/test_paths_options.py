"""Paths people read and type, and options stored per dataset."""

import json

import pytest

from reviewer.jsondiff import DiffOptions, DiffOptionsError, PathPattern, PathSyntaxError, parse_path, render_path


@pytest.mark.parametrize(
    "path, text",
    [
        ((), "$"),
        (("filings", 3, "form type"), '$.filings[3]["form type"]'),
        (("données", 0), '$["données"][0]'),
        (('say "hi"', "a.b"), '$["say \\"hi\\""]["a.b"]'),
        (("_x1", 12), "$._x1[12]"),
    ],
)
def test_paths_render_readably_and_parse_back(path, text):
    assert render_path(path) == text
    assert parse_path(text) == path


def test_numeric_member_names_stay_strings():
    # A member called "3" is not list index 3.
    assert parse_path(render_path(("3",))) == ("3",)
    assert PathPattern.compile("$[3]").matches((3,))
    assert not PathPattern.compile("$[3]").matches(("3",))


@pytest.mark.parametrize(
    "pattern, matching, not_matching",
    [
        ("$.filings[*].filed", [("filings", 0, "filed"), ("filings", 99, "filed")], [("filings", 0), ("filings", 0, "x")]),
        ("$.*.id", [("a", "id"), ("b", "id")], [("a", "b", "id")]),
        ("$..timestamp", [("timestamp",), ("a", 3, "timestamp")], [("a", "timestamps")]),
        ("$.a..[*]", [("a", 0), ("a", "b", 2)], [("a",)]),
    ],
)
def test_patterns_with_wildcards(pattern, matching, not_matching):
    compiled = PathPattern.compile(pattern)
    assert all(compiled.matches(p) for p in matching)
    assert not any(compiled.matches(p) for p in not_matching)


@pytest.mark.parametrize("text", ["filings", "$.", "$[", "$[abc]", "$..", '$["unterminated]'])
def test_bad_paths_say_where(text):
    with pytest.raises(PathSyntaxError, match="character"):
        PathPattern.compile(text)


def test_wildcards_are_refused_in_concrete_paths():
    with pytest.raises(PathSyntaxError, match="only allowed in patterns"):
        parse_path("$.a[*]")


def test_options_round_trip_through_json():
    options = DiffOptions(
        list_keys={"$.filings[*]": "accessionNumber"},
        ignore_paths=("$..timestamp", "$.meta"),
        abs_tolerance=0.01,
        rel_tolerance=1e-6,
        int_float_equal=False,
        ignore_case=True,
        normalize_whitespace=True,
        string_ops_min_length=10,
        detect_moves=False,
    )
    stored = json.loads(json.dumps(options.to_dict()))
    assert DiffOptions.from_dict(stored) == options
    assert DiffOptions.from_dict({}) == DiffOptions()


@pytest.mark.parametrize(
    "data, message",
    [
        ({"tolerance": 1}, "unknown setting"),
        ({"abs_tolerance": -1}, "abs_tolerance must be >= 0"),
        ({"rel_tolerance": "0.1"}, "rel_tolerance must be a number"),
        ({"ignore_case": "yes"}, "ignore_case must be true or false"),
        ({"ignore_paths": "$.a"}, "ignore_paths must be a list"),
        ({"ignore_paths": ["$.a", "$.b["]}, r"ignore_paths\[1\]: bad JSON path"),
        ({"list_keys": {"$.a[*]": ""}}, "must be a member name"),
        ([], "must be an object"),
    ],
)
def test_bad_options_name_the_setting(data, message):
    with pytest.raises(DiffOptionsError, match=message):
        DiffOptions.from_dict(data)
