"""``align(..., as_text=True)`` (what the diff view uses) lays out exactly the rows of
the line mode: the same text on each side, the same fillers, the same changed rows,
the same paths, and the first-rows callback sees final rows."""

from __future__ import annotations

import copy

import pytest

from reviewer.jsondiff import DiffOptions, align, diff
from reviewer.jsondiff.synthetic import filings_pair, nested_document


def _moved_and_edited():
    left = {"items": [{"id": i, "v": [i, i + 1], "tag": f"t{i}"} for i in range(40)], "meta": {"n": 40}}
    right = copy.deepcopy(left)
    right["items"].insert(3, right["items"].pop(30))  # a move
    del right["items"][10]  # a removal
    right["items"].append({"id": 99, "v": [], "tag": "new"})  # an addition
    right["items"][5]["v"] = {"now": "a dict"}  # a type change
    right["meta"]["n"] = 39
    right["extra"] = [1, 2, 3]
    return left, right


def _pairs():
    left, right, _ = filings_pair(records=60, changes=25, seed=3)
    yield "filings", left, right, DiffOptions()
    yield "moves", *_moved_and_edited(), DiffOptions()
    dense_left = {"values": list(range(300))}
    dense_right = {"values": [v + 1 if v % 2 else v for v in range(300)]}  # mostly changed in place
    yield "dense", dense_left, dense_right, DiffOptions()
    yield "deep", nested_document(300, {"a": 1}), nested_document(300, {"a": 2}), DiffOptions()
    yield "scalars", 1, "1", DiffOptions()
    yield "empty", {}, {"a": {}}, DiffOptions()


@pytest.mark.parametrize("name,left,right,options", list(_pairs()), ids=lambda v: v if isinstance(v, str) else "")
def test_text_mode_lays_out_the_same_rows(name, left, right, options):
    changes = diff(left, right, options)
    lines = align(left, right, changes)
    text = align(left, right, changes, as_text=True)
    assert text.kinds == lines.kinds
    for chunks, fillers, line_list in ((text.left_chunks, text.left_fillers, lines.left_lines),
                                       (text.right_chunks, text.right_fillers, lines.right_lines)):
        assert "\n".join(chunks).split("\n") == ["" if line is None else line for line in line_list]
        assert fillers == [row for row, line in enumerate(line_list) if line is None]
    marked = {row: kind for start, stop, kind in text.changed_runs for row in range(start, stop)}
    assert marked == {row: kind for row, kind in enumerate(lines.kinds) if kind is not None}
    for row in range(0, len(lines), max(1, len(lines) // 50)):
        assert text.left_path(row) == lines.left_path(row) and text.right_path(row) == lines.right_path(row)
    assert text.left_lines == [] and text.right_lines == []


def test_the_first_rows_callback_sees_final_rows():
    left, right = _moved_and_edited()
    changes = diff(left, right)
    whole = align(left, right, changes, as_text=True)
    seen = []
    align(left, right, changes, as_text=True, first_rows=50,
          on_first_rows=lambda doc: seen.append(("\n".join(doc.left_chunks), list(doc.kinds))))
    assert len(seen) == 1
    partial_text, partial_kinds = seen[0]
    n = len(partial_kinds)
    assert 50 <= n < len(whole)
    assert partial_text.split("\n") == "\n".join(whole.left_chunks).split("\n")[:n]
    assert partial_kinds == whole.kinds[:n]


def test_no_callback_when_the_layout_is_shorter():
    seen = []
    align([1, 2], [1, 3], diff([1, 2], [1, 3]), as_text=True, first_rows=50, on_first_rows=seen.append)
    assert seen == []
