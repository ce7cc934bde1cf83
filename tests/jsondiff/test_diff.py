"""The structural diff on hand-made cases a reviewer meets."""

import copy
import random

import pytest

from reviewer.jobs import Cancelled, JobContext
from reviewer.jsondiff import DiffOptions, NotJsonError, diff
from reviewer.jsondiff.synthetic import filings_pair, nested_document


def summary(changes):
    """(kind, left path, right path) of each change, the part a user reads."""
    return [(c.kind, c.left_path, c.right_path) for c in changes]


def test_equal_documents_have_no_changes():
    doc = {"a": [1, {"b": None}], "c": "x"}
    assert diff(doc, copy.deepcopy(doc)) == []
    assert diff(doc, doc) == []


def test_member_order_never_counts():
    assert diff({"a": 1, "b": [1, 2]}, {"b": [1, 2], "a": 1}) == []


def test_scalar_changes_added_and_removed_members():
    changes = diff({"a": 1, "b": "x", "gone": True}, {"a": 2, "b": "x", "new": None})
    assert summary(changes) == [
        ("changed", ("a",), ("a",)),
        ("removed", ("gone",), None),
        ("added", None, ("new",)),
    ]
    assert (changes[0].left, changes[0].right) == (1, 2)
    assert changes[1].left is True and changes[2].right is None
    assert changes[0].path_text == "$.a"


def test_reordered_list_matched_by_content_has_no_spurious_changes():
    left = [{"name": "a", "v": 1}, {"name": "b", "v": 2}, {"name": "c", "v": 3}, {"name": "d", "v": 4}]
    right = [left[2], left[0], left[1], left[3]]
    changes = diff(left, copy.deepcopy(right))
    # "c" moved to the front; nothing inside any element is reported.
    assert summary(changes) == [("moved", (2,), (0,))]


def test_shuffled_list_reports_only_moves():
    left = [{"name": f"n{i}", "tags": [i, i + 1]} for i in range(60)]
    right = copy.deepcopy(left)
    random.Random(5).shuffle(right)
    changes = diff(left, right)
    assert changes and {c.kind for c in changes} == {"moved"}
    for c in changes:
        assert right[c.right_path[0]] == left[c.left_path[0]]


def test_moves_can_be_turned_off():
    changes = diff([1, 2, 3], [3, 1, 2], DiffOptions(detect_moves=False))
    assert summary(changes) == [("added", None, (0,)), ("removed", (2,), None)]


def test_insert_in_the_middle_of_a_long_list_does_not_cascade():
    left = [{"id": i, "text": f"row {i}"} for i in range(500)]
    right = copy.deepcopy(left)
    right.insert(250, {"id": "new", "text": "inserted"})
    right[400]["text"] = "edited"  # left[399], now at right index 400
    changes = diff(left, right)
    assert summary(changes) == [
        ("added", None, (250,)),
        ("changed", (399, "text"), (400, "text")),
    ]


def test_delete_in_the_middle_of_a_long_list():
    left = list(range(1000))
    right = left[:10] + left[11:]
    assert summary(diff(left, right)) == [("removed", (10,), None)]


def test_key_matched_list_pairs_elements_by_key():
    options = DiffOptions(list_keys={"$.filings[*]": "accessionNumber"})
    left = {"filings": [
        {"accessionNumber": "A", "form": "10-K"},
        {"accessionNumber": "B", "form": "10-Q"},
        {"accessionNumber": "C", "form": "8-K"},
    ]}
    right = {"filings": [
        {"accessionNumber": "C", "form": "8-K"},
        {"accessionNumber": "A", "form": "10-K/A"},
        {"accessionNumber": "D", "form": "S-1"},
    ]}
    changes = diff(left, right, options)
    assert summary(changes) == [
        ("moved", ("filings", 0), ("filings", 1)),
        ("changed", ("filings", 0, "form"), ("filings", 1, "form")),
        ("removed", ("filings", 1), None),
        ("added", None, ("filings", 2)),
    ]
    # Without the key the same lists are only matched by content and position.
    assert summary(diff(left, right)) != summary(changes)


def test_key_matched_list_reports_a_changed_element_in_place():
    options = DiffOptions(list_keys={"$[*]": "id"})
    left = [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}]
    right = [{"id": 1, "v": "a"}, {"id": 2, "v": "B"}]
    assert summary(diff(left, right, options)) == [("changed", (1, "v"), (1, "v"))]


def test_absolute_and_relative_tolerance():
    left = {"small": 1.0, "big": 1_000_000.0, "exact": 5}
    right = {"small": 1.004, "big": 1_000_900.0, "exact": 5}
    assert [c.path for c in diff(left, right)] == [("small",), ("big",)]
    assert [c.path for c in diff(left, right, DiffOptions(abs_tolerance=0.01))] == [("big",)]
    assert [c.path for c in diff(left, right, DiffOptions(rel_tolerance=0.001))] == [("small",)]
    assert diff(left, right, DiffOptions(abs_tolerance=0.01, rel_tolerance=0.001)) == []


def test_type_changes_are_flagged():
    changes = diff({"a": 1, "b": True, "c": None, "d": [1]}, {"a": "1", "b": 1, "c": 0, "d": {"0": 1}})
    assert [(c.kind, c.path) for c in changes] == [
        ("type_changed", ("a",)),
        ("type_changed", ("b",)),
        ("type_changed", ("c",)),
        ("type_changed", ("d",)),
    ]


def test_true_and_one_differ_even_inside_equal_looking_containers():
    # Python says [True] == [1]; JSON does not.
    assert summary(diff({"x": [True, 2]}, {"x": [1, 2]})) == [("type_changed", ("x", 0), ("x", 0))]


def test_one_and_one_point_zero_equal_unless_asked():
    assert diff({"n": [1, 2]}, {"n": [1.0, 2]}) == []
    strict = DiffOptions(int_float_equal=False)
    assert summary(diff({"n": [1, 2]}, {"n": [1.0, 2]}, strict)) == [("changed", ("n", 0), ("n", 0))]


def test_string_normalisation_options():
    left, right = {"s": "Hello   World "}, {"s": "hello world"}
    assert len(diff(left, right)) == 1
    assert len(diff(left, right, DiffOptions(ignore_case=True))) == 1
    assert len(diff(left, right, DiffOptions(normalize_whitespace=True))) == 1
    assert diff(left, right, DiffOptions(ignore_case=True, normalize_whitespace=True)) == []


def test_ignored_paths_with_wildcards():
    left = {
        "meta": {"run": 1, "at": "monday"},
        "items": [{"id": 1, "ts": 10, "v": "a"}, {"id": 2, "ts": 11, "v": "b"}],
    }
    right = {
        "meta": {"run": 2},
        "items": [{"id": 1, "ts": 20, "v": "a"}, {"id": 2, "ts": 21, "v": "c"}],
    }
    options = DiffOptions(ignore_paths=("$.meta", "$.items[*].ts"))
    assert summary(diff(left, right, options)) == [("changed", ("items", 1, "v"), ("items", 1, "v"))]
    anywhere = DiffOptions(ignore_paths=("$..ts", "$.meta.*"))
    assert summary(diff(left, right, anywhere)) == [("changed", ("items", 1, "v"), ("items", 1, "v"))]


def test_ignored_member_missing_on_one_side_is_not_reported():
    options = DiffOptions(ignore_paths=("$.*.debug",))
    assert diff({"a": {"debug": 1, "x": 1}}, {"a": {"x": 1}}, options) == []


def test_deep_nesting_does_not_overflow():
    left, right = nested_document(2000, "bottom"), nested_document(2000, "changed bottom")
    changes = diff(left, right)
    assert len(changes) == 1
    assert changes[0].kind == "changed"
    assert len(changes[0].path) > 2000
    assert changes[0].right == "changed bottom"
    assert diff(left, nested_document(2000, "bottom")) == []


def test_unicode_strings_and_keys():
    left = {"名前": "東京", "emoji": "party 🎉", "ß": "straße"}
    right = {"名前": "大阪", "emoji": "party 🎉", "ß": "STRASSE"}
    changes = diff(left, right)
    assert [(c.path_text, c.right) for c in changes] == [('$["名前"]', "大阪"), ('$["ß"]', "STRASSE")]
    # Case folding knows that "ß" folds to "ss".
    assert [c.path for c in diff(left, right, DiffOptions(ignore_case=True))] == [("名前",)]


def test_character_level_ops_for_long_strings():
    before = "The quick brown fox jumps over the lazy dog near the river bank."
    after = "The quick red fox jumps over the lazy cat near the river bank!"
    (change,) = diff({"t": before}, {"t": after})
    ops = change.string_ops
    assert ops is not None
    assert all(tag in ("replace", "delete", "insert") for tag, *_ in ops)
    assert apply_ops(before, after, ops) == after
    # Only the edited words are marked, not the whole string.
    assert sum(i2 - i1 for _, i1, i2, _, _ in ops) < 12
    # Short strings carry no ops.
    (short,) = diff({"t": "cat"}, {"t": "dog"})
    assert short.string_ops is None


def test_values_that_are_not_json_are_named():
    with pytest.raises(NotJsonError, match=r"\$\.a\[1\]: not a JSON value \(set\)"):
        diff({"a": [1, {1, 2}]}, {"a": [1, 2]})


def test_five_megabyte_documents_report_exactly_the_changed_values():
    left, right, changed = filings_pair(records=3000, changes=20, seed=7)
    changes = diff(left, right)
    assert [c.path for c in changes] == changed
    assert {c.kind for c in changes} == {"changed"}
    assert all(c.left_path == c.right_path for c in changes)


def test_a_long_diff_can_be_cancelled():
    ctx = JobContext()
    ctx.cancel()
    big_left = {"x": [{"n": i, "v": [i] * 5} for i in range(3000)]}
    big_right = {"x": [{"n": i, "v": [i + 1] * 5} for i in range(3000)]}
    with pytest.raises(Cancelled):
        diff(big_left, big_right, ctx=ctx)


def test_lists_of_repeated_values():
    assert summary(diff([1, 2, 1, 2, 3], [1, 2, 3])) == [("removed", (2,), None), ("removed", (3,), None)]
    assert summary(diff(["a", "a", "b"], ["a", "b", "a"])) == [("moved", (1,), (2,))]
    rng = random.Random(4)
    left = [rng.randint(0, 9) for _ in range(2000)]
    right = left[:]
    rng.shuffle(right)
    changes = diff(left, right)
    # Same values in another order: nothing is added, removed or changed.
    assert {c.kind for c in changes} == {"moved"}
    assert all(left[c.left_path[0]] == right[c.right_path[0]] for c in changes)


def test_repeated_values_edited_in_place_are_not_moves():
    left = ["retail", "retail", "industrial", "retail"]
    right = ["retail (edited)", "retail", "industrial (edited)", "retail (edited)"]
    assert summary(diff(left, right)) == [("changed", (i,), (i,)) for i in (0, 2, 3)]


def test_many_changed_values_are_found_exactly():
    left, right, changed = filings_pair(records=200, changes=1500, seed=8)
    assert [c.path for c in diff(left, right)] == changed


def apply_ops(before, after, ops):
    rebuilt, last = [], 0
    for _, i1, i2, j1, j2 in ops:
        rebuilt.append(before[last:i1])
        rebuilt.append(after[j1:j2])
        last = i2
    rebuilt.append(before[last:])
    return "".join(rebuilt)


def test_character_ops_in_very_long_strings():
    words = " ".join(f"word{i}" for i in range(20000))
    edited = words.replace("word12345 ", "WORD ", 1)
    (change,) = diff({"t": words}, {"t": edited})
    assert apply_ops(words, edited, change.string_ops) == edited
    assert sum(i2 - i1 for _, i1, i2, _, _ in change.string_ops) <= len("word12345")
    # Edits far apart in a long string: the span between them is one replacement.
    edited_twice = edited + " appended"
    (change,) = diff({"t": words}, {"t": edited_twice})
    assert apply_ops(words, edited_twice, change.string_ops) == edited_twice
    assert len(change.string_ops) == 1
    # Long strings with nothing in common: one replaced span, at once.
    other = "x" * 30000
    (change,) = diff({"t": words}, {"t": other})
    assert change.string_ops == (("replace", 0, len(words), 0, len(other)),)


def test_swapped_elements_are_the_ones_reported_moved():
    # The middle element stays where it was; the two swapped ones moved.
    assert summary(diff(["A", "B", "C"], ["C", "B", "A"])) == [("moved", (0,), (2,)), ("moved", (2,), (0,))]
