"""Strings that are lists in disguise are read as lists for the diff display, and
ordinary text stays text (reviewer.jsondiff.listlike)."""

from __future__ import annotations

import glob
import json
from pathlib import Path

import pytest

from reviewer.jsondiff import diff
from reviewer.jsondiff.listlike import read_as_list, read_pair

REFDATA = Path(__file__).resolve().parents[2].parent / "shared" / "refdata" / "toolJSONprocessing"


def _kinds(changes):
    return sorted((c.kind, c.left if c.left is not None else c.right) for c in changes)


def test_comma_gold_against_semicolon_output_diffs_element_by_element():
    pair = read_pair("Black, Gray/Black, Red", "Black; Red; Blue")
    assert pair.left == ["Black", "Gray/Black", "Red"] and pair.right == ["Black", "Red", "Blue"]
    assert pair.left_note == "read as a list of 3, split at ', '"
    assert pair.right_note == "read as a list of 3, split at '; '"
    assert _kinds(diff(pair.left, pair.right)) == [("added", "Blue"), ("removed", "Gray/Black")]


def test_python_and_json_list_literals_are_read_not_evaluated():
    assert read_as_list("['a', 'b']").elements == ["a", "b"]
    assert read_as_list("['a', 'b']").how == "a Python list"
    assert read_as_list('["a", 2]').how == "a JSON list"
    assert read_as_list("[__import__('os').system('true')]") is None  # literal_eval refuses calls
    assert read_as_list("[{'a': 1}]") is None  # only lists of scalars


def test_a_real_list_against_a_printed_list():
    pair = read_pair(["Maps"], "['Maps', 'Weather']")
    assert pair.left_note is None and pair.right_note == "read as a list of 2, a Python list"
    assert _kinds(diff(pair.left, pair.right)) == [("added", "Weather")]


def test_numbers_read_from_text_match_numbers_in_a_list():
    pair = read_pair([42, 7.0], "42, 7")
    assert diff(pair.left, pair.right) == []


@pytest.mark.parametrize("left, right", [
    ("ARS", "I don't know, sorry"),  # the gold is no list: the output's comma is prose
    ("7", "8"),
    ("Avenida Ribeira", "Avenida Ribeira"),
    ({"a": 1}, "a, b"),
    (3, "3, 4"),
    ("1,234", "1234"),  # a comma without a space is a thousands separator, not a list
])
def test_ordinary_values_are_left_alone(left, right):
    pair = read_pair(left, right)
    assert (pair.left, pair.right, pair.read) == (left, right, False)


def test_a_one_word_output_against_a_list_gold_is_one_element():
    pair = read_pair("a, b, c", "b")
    assert pair.right == ["b"] and pair.right_note == "read as a one-element list"
    assert _kinds(diff(pair.left, pair.right)) == [("removed", "a"), ("removed", "c")]


@pytest.mark.skipif(not REFDATA.is_dir(), reason="../shared/refdata/toolJSONprocessing is not here")
def test_real_tooljson_list_answers_are_read_per_element():
    """Every toolJSON gold answer joined with ', ' reads as its elements; against the
    models' real predictions a list answer gives element changes, not one string change."""
    golds = [r["gold_answer"] for f in glob.glob(str(REFDATA / "generate_qa_pairs/data/qa_pairs/*.json"))
             for r in json.loads(Path(f).read_text())]
    joined = [g for g in golds if isinstance(g, str) and ", " in g]
    assert len(joined) > 50
    for g in joined:
        reading = read_as_list(g)
        assert reading is not None and ", ".join(reading.elements) == g.strip().rstrip(",;").strip()
    pairs = [(r["gold_answer"], r["predicted_answer"])
             for f in glob.glob(str(REFDATA / "_synthetic/experimental_scripts/results/predictions/*.json"))
             for r in json.loads(Path(f).read_text())
             if isinstance(r["gold_answer"], str) and ", " in r["gold_answer"] and isinstance(r["predicted_answer"], str)]
    read = [read_pair(g, p) for g, p in pairs if g != p]
    assert read and all(p.read for p in read)
    # "Gray/Black, Black, Black" against "Black, Gray/Black": only a duplicate is reported.
    pair = read_pair("Black, Gray/Black", "Gray/Black, Black, Black")
    assert [c.kind for c in diff(pair.left, pair.right)] in (["added"], ["moved", "added"], ["added", "moved"])
