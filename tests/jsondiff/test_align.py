"""The side-by-side layout the diff view shows."""

import json

import pytest

from reviewer.jsondiff import ChangeIndex, CollapsedRun, DiffOptions, align, count_by_kind, diff
from reviewer.jsondiff.synthetic import filings_pair, nested_document


def layout(left, right, options=DiffOptions(), indent=2):
    return align(left, right, diff(left, right, options), indent=indent)


def pretty(value, indent=2):
    return json.dumps(value, indent=indent, ensure_ascii=False)


LEFT = {
    "id": "q1",
    "answer": {"city": "Paris", "population": 2100000, "tags": ["capital", "europe"]},
    "calls": [{"name": "search", "args": {"q": "paris"}}, {"name": "lookup", "args": {"id": 7}}],
    "obsolete": {"x": 1},
}
RIGHT = {
    "id": "q1",
    "answer": {"city": "Lyon", "population": 2100000, "tags": ["capital", "france", "europe"]},
    "calls": [{"name": "lookup", "args": {"id": 7}}, {"name": "search", "args": {"q": "paris"}}],
    "note": "new",
}


def rows(doc):
    return list(zip(doc.left_lines, doc.right_lines, doc.kinds))


def test_each_side_prints_its_document_and_rows_pair_up():
    doc = layout(LEFT, RIGHT)
    assert len(doc.left_lines) == len(doc.right_lines) == len(doc.kinds) == len(doc)
    assert json.loads(doc.left_text()) == LEFT
    assert json.loads(doc.right_text()) == RIGHT
    assert doc.left_text() == pretty(LEFT)


def test_changed_values_line_up_and_inserted_lines_face_fillers():
    doc = layout(LEFT, RIGHT)
    city = doc.row_of_path(("answer", "city"), "left")
    assert city == doc.row_of_path(("answer", "city"), "right")
    assert rows(doc)[city] == ('    "city": "Paris",', '    "city": "Lyon",', "changed")

    added = doc.row_of_path(("answer", "tags", 1), "right")
    assert rows(doc)[added] == (None, '      "france",', "added")
    # The elements around the insertion stay side by side.
    europe = doc.row_of_path(("answer", "tags", 1), "left")
    assert europe == doc.row_of_path(("answer", "tags", 2), "right")
    assert doc.kinds[europe] is None

    removed = doc.row_of_path(("obsolete",), "left")
    assert [r[1:] for r in rows(doc)[removed : removed + 3]] == [(None, "removed")] * 3
    note = doc.row_of_path(("note",), "right")
    assert rows(doc)[note] == (None, '  "note": "new"', "added")


def test_moved_element_shown_at_both_places():
    doc = layout(LEFT, RIGHT)
    moved_rows = [r for r, k in enumerate(doc.kinds) if k == "moved"]
    assert moved_rows
    lefts = {doc.left_path(r)[:2] for r in moved_rows if doc.left_lines[r] is not None}
    rights = {doc.right_path(r)[:2] for r in moved_rows if doc.right_lines[r] is not None}
    assert len(lefts) == len(rights) == 1
    (moved_left,) = lefts
    (moved_right,) = rights
    assert LEFT[moved_left[0]][moved_left[1]] == RIGHT[moved_right[0]][moved_right[1]]


def test_line_paths_and_fillers():
    doc = layout({"a": [1, 2]}, {"a": [1, 2, 3]})
    assert rows(doc) == [
        ("{", "{", None),
        ('  "a": [', '  "a": [', None),
        ("    1,", "    1,", None),
        ("    2", "    2,", None),
        (None, "    3", "added"),
        ("  ]", "  ]", None),
        ("}", "}", None),
    ]
    assert [doc.left_path(r) for r in range(len(doc))] == [(), ("a",), ("a", 0), ("a", 1), None, ("a",), ()]
    assert doc.right_path(4) == ("a", 2)


def test_type_change_of_a_container_pads_the_shorter_side():
    doc = layout({"v": {"a": 1, "b": 2}}, {"v": "text"})
    assert rows(doc)[1:5] == [
        ('  "v": {', '  "v": "text"', "type_changed"),
        ('    "a": 1,', None, "type_changed"),
        ('    "b": 2', None, "type_changed"),
        ("  }", None, "type_changed"),
    ]


def test_other_indent_width():
    doc = layout(LEFT, RIGHT, indent=4)
    assert doc.left_text() == pretty(LEFT, 4)
    assert json.loads(doc.right_text()) == RIGHT


def test_ignored_differences_are_padded_not_marked():
    options = DiffOptions(ignore_paths=("$.debug",))
    left, right = {"debug": [1, 2, 3], "v": 1}, {"debug": [], "v": 2}
    doc = layout(left, right, options)
    assert json.loads(doc.left_text()) == left and json.loads(doc.right_text()) == right
    assert [k for k in doc.kinds if k] == ["changed"]
    assert doc.row_of_path(("v",), "left") == doc.row_of_path(("v",), "right")


def test_ignored_list_element_removed_keeps_the_rest_aligned():
    options = DiffOptions(ignore_paths=("$.items[1]",))
    left, right = {"items": ["a", "scratch", "b", "c"]}, {"items": ["a", "b", "C"]}
    changes = diff(left, right, options)
    assert [(c.kind, c.left_path, c.right_path) for c in changes] == [("changed", ("items", 3), ("items", 2))]
    doc = align(left, right, changes, options=options)
    assert rows(doc)[2:6] == [
        ('    "a",', '    "a",', None),
        ('    "scratch",', None, None),
        ('    "b",', '    "b",', None),
        ('    "c"', '    "C"', "changed"),
    ]


def test_deep_nesting_lays_out():
    left, right = nested_document(2000, "leaf"), nested_document(2000, "other leaf")
    doc = layout(left, right)
    assert [k for k in doc.kinds if k] == ["changed"]
    row = doc.kinds.index("changed")
    assert doc.left_lines[row].strip() == '"child": "leaf"'
    assert doc.right_lines[row].strip() == '"child": "other leaf"'
    assert doc.left_path(row) == doc.right_path(row) and len(doc.left_path(row)) == 2000 + 1000
    assert None not in doc.left_lines and None not in doc.right_lines


def test_keyed_list_lines_up_shifted_elements():
    options = DiffOptions(list_keys={"$.calls[*]": "name"})
    left = {"calls": [{"name": "a", "v": 1}, {"name": "b", "v": 2}]}
    right = {"calls": [{"name": "new", "v": 0}, {"name": "a", "v": 1}, {"name": "b", "v": 3}]}
    doc = layout(left, right, options)
    row = doc.row_of_path(("calls", 1, "v"), "left")
    assert row == doc.row_of_path(("calls", 2, "v"), "right")
    assert rows(doc)[row] == ('      "v": 2', '      "v": 3', "changed")
    added = doc.row_of_path(("calls", 0), "right")
    assert doc.kinds[added : added + 4] == ["added"] * 4
    assert doc.left_lines[added : added + 4] == [None] * 4
    assert json.loads(doc.right_text()) == right


def test_differences_only_collapses_equal_runs():
    left = {"items": list(range(100))}
    right = {"items": list(range(100))}
    right["items"][50] = -1
    doc = layout(left, right)
    view = doc.differences_only(context=2)
    runs = [e for e in view if isinstance(e, CollapsedRun)]
    shown = [e for e in view if isinstance(e, int)]
    assert len(runs) == 2
    assert sum(r.count for r in runs) + len(shown) == len(doc)
    changed = doc.kinds.index("changed")
    assert shown == list(range(changed - 2, changed + 3))
    assert runs[0].label == f"… {changed - 2} equal lines"


def test_differences_only_of_equal_documents_is_one_marker():
    doc = layout({"a": 1}, {"a": 1})
    assert doc.differences_only() == [CollapsedRun(0, 3)]


def test_navigation_between_changed_rows():
    doc = layout(LEFT, RIGHT)
    starts = doc.change_rows()
    assert starts == sorted(starts) and len(starts) >= 4
    assert doc.next_change_row(-1) == starts[0]
    assert doc.next_change_row(starts[0]) == starts[1]
    assert doc.previous_change_row(starts[1]) == starts[0]
    assert doc.previous_change_row(starts[0]) is None
    assert doc.next_change_row(starts[-1]) is None


def test_five_megabyte_pair_aligns_on_exactly_the_changes():
    left, right, changed = filings_pair(records=3000, changes=20, seed=11)
    doc = align(left, right, diff(left, right))
    assert doc.left_text() == pretty(left)
    assert doc.right_text() == pretty(right)
    starts = doc.change_rows()
    assert [doc.left_path(r) for r in starts] == changed
    assert [doc.right_path(r) for r in starts] == changed


def test_counts_and_change_index():
    changes = diff(LEFT, RIGHT)
    counts = count_by_kind(changes)
    assert counts == {"added": 2, "removed": 1, "changed": 1, "type_changed": 0, "moved": 1}
    index = ChangeIndex(changes, LEFT, RIGHT)
    assert index.counts == counts
    first = index.first_change_after(())
    assert first.path == ("answer", "city")
    assert index.first_change_after(("answer", "city")).path == ("answer", "tags", 1)
    assert index.first_change_after(("answer", "population")).kind == "added"
    assert index.last_change_before(("answer", "population")).path == ("answer", "city")
    assert index.last_change_before(("id",)) is None
    assert index.first_change_after(("calls",)).kind == "moved"


@pytest.mark.parametrize("records", [3, 60])
def test_change_index_follows_document_order(records):
    left, right, changed = filings_pair(records=records, changes=5, seed=2)
    index = ChangeIndex(diff(left, right), left, right)
    found, path = [], ()
    while (change := index.first_change_after(path)) is not None:
        found.append(change.path)
        path = change.path
    assert found == changed


def heavily_changed_pair():
    left, _, _ = filings_pair(records=30, changes=1, seed=9)
    right = json.loads(json.dumps(left))
    for record in right["filings"]:
        for item in record["financials"]:
            item["value"] += 1
        record["amended"] = "yes" if record["amended"] else None  # scalar type changes
    return left, right


def reorder_members(document):
    for record in document["filings"][::3]:
        for key in list(record)[:3]:
            record[key] = record.pop(key)  # same members, another order
    return document


@pytest.mark.parametrize(
    "case",
    ["values changed everywhere", "members reordered too", "differences hidden by tolerance", "with an insertion"],
)
def test_dense_layout_equals_member_by_member_layout(case):
    # A region where most members changed is laid out as whole blocks; the
    # result must be exactly what laying it out member by member gives.
    from reviewer.jsondiff.align import _Layout

    left, right = heavily_changed_pair()
    options = DiffOptions()
    if case == "members reordered too":
        right = reorder_members(right)
    elif case == "differences hidden by tolerance":
        right["filings"][4]["ratios"]["pe"] += 0.0001
        options = DiffOptions(abs_tolerance=0.001)
    elif case == "with an insertion":
        right["filings"][2]["tags"].insert(1, "inserted")
    changes = diff(left, right, options)
    dense = align(left, right, changes)
    by_member = _Layout(changes, 2)
    by_member.use_dense_blocks = False
    plain = by_member.run(left, right)
    assert dense.kinds.count("changed") == 150 and dense.kinds.count("type_changed") > 0
    assert (dense.left_lines, dense.right_lines, dense.kinds) == (plain.left_lines, plain.right_lines, plain.kinds)
    rows = range(len(dense))
    assert [dense.left_path(r) for r in rows] == [plain.left_path(r) for r in rows]
    assert [dense.right_path(r) for r in rows] == [plain.right_path(r) for r in rows]
