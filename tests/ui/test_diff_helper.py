"""Big diffs are diffed and laid out in the helper process (reviewer_ui.diffproc): the panes
the app gets from there show exactly what the in-app layout shows (lines, backgrounds, line
numbers, character marks, change rows, paths, "differences only"), small pairs and values
orjson cannot write stay in the app, and the view's features work on a helper's result."""

from __future__ import annotations

import pickle

import pytest
from PySide6.QtCore import Qt

from reviewer_ui import diffdoc
from reviewer_ui.diffdoc import IN_HELPER_FROM, _build_diff, build_diff
from reviewer_ui.diffproc import RemoteAlignment, RunRoles, role_runs
from reviewer_ui.runtime import parsepool
from reviewer_ui.textdoc import ByteLines, TextLines
from tests.ui.test_diff_handoff import shown_diff_view

LONG = "The committee met on Tuesday and agreed the budget for the coming year after a long debate. " * 3


def big_pair():
    left = {"title": LONG, "records": [{"id": i, "name": f"record {i}", "tags": ["a", "b"], "n": i * 1.5}
                                       for i in range(4000)]}
    right = {"title": LONG.replace("Tuesday", "Thursday"), "records": [dict(r) for r in left["records"]]}
    right["records"][10]["name"] = "record ten"
    right["records"][2900]["tags"] = "ab"  # a list became a string: a type change over several rows
    del right["records"][1500]
    right["records"].insert(3500, {"id": "new"})
    right["extra"] = {"k": [1, 2, 3]}
    return left, right


@pytest.fixture(scope="module")
def helper():
    parsepool.run(len, "")  # the app starts the helper at start-up


def pane_rows(doc):
    return [(doc.lines[i], doc.roles.get(i), doc.number(i)) for i in range(len(doc))]


def test_a_big_pair_laid_out_in_the_helper_shows_what_the_app_would(helper):
    left, right = big_pair()
    remote = build_diff(None, left, right)
    local = _build_diff(None, left, right, None, None)
    assert isinstance(remote.left.lines, ByteLines) and isinstance(remote.aligned, RemoteAlignment)
    assert isinstance(local.left.lines, TextLines)
    assert [c.describe() for c in remote.changes] == [c.describe() for c in local.changes]
    assert remote.change_rows == local.change_rows
    for got, want in ((remote.left, local.left), (remote.right, local.right)):
        assert pane_rows(got) == pane_rows(want)
        assert got.spans == want.spans and got.spans, "the long changed string is marked character by character"
        assert got.max_len == want.max_len
        assert got.text() == want.text()  # what "copy" takes
    for row in (0, 3, remote.change_rows[1], remote.change_rows[-1], len(remote.left) - 1):
        assert remote.aligned.left_path(row) == local.aligned.left_path(row)
        assert remote.aligned.right_path(row) == local.aligned.right_path(row)
    got, want = remote.differences_only(), local.differences_only()
    assert got[2] == want[2] and pane_rows(got[0]) == pane_rows(want[0]) and pane_rows(got[1]) == pane_rows(want[1])


def test_small_pairs_and_values_orjson_cannot_write_stay_in_the_app(helper):
    small = build_diff(None, {"a": 1}, {"a": 2})
    assert isinstance(small.left.lines, TextLines) and small.aligned is not None
    left, right = big_pair()
    left["huge"] = 2**70  # past 64 bits: orjson refuses it, the app diffs it exactly
    right["huge"] = 2**70 + 1
    assert diffdoc._compact_pair(left, right) is None
    r = build_diff(None, left, right)
    assert isinstance(r.left.lines, TextLines)
    assert any(c.path == ("huge",) for c in r.changes)


def test_the_threshold_is_the_size_of_both_sides():
    left, right = big_pair()
    data = diffdoc._compact_pair(left, right)
    assert diffdoc._size(data) >= IN_HELPER_FROM, "the pair above is laid out in the helper"


def test_the_pair_reaches_the_helper_in_files_written_in_short_pieces(helper, monkeypatch):
    """Nothing big is pickled into the helper's pipe (pushing 10 MB through it 64 KB at a time
    kept the GIL changing hands with the GUI thread: diff stalls of 60-195 ms under load), and
    the app writes the pair in pieces that join to exactly what one orjson call writes."""
    import orjson

    left, right = big_pair()
    pieces = diffdoc._compact_pair(left, right)
    assert [b"".join(p) for p in pieces] == [orjson.dumps(left), orjson.dumps(right)]
    assert max(len(part) for p in pieces for part in p) < 256 * 1024, "no piece is one long call"
    sent = []
    real_submit = parsepool.submit

    def recording_submit(fn, *args):
        sent.append(args)
        return real_submit(fn, *args)

    monkeypatch.setattr(parsepool, "submit", recording_submit)
    r = build_diff(None, left, right, on_partial=lambda _first: None)
    assert isinstance(r.left.lines, ByteLines), "laid out in the helper"
    biggest = max(len(pickle.dumps(args)) for args in sent)
    assert biggest < 64 * 1024, f"{biggest} bytes went through the helper's pipe in one call"


def test_run_roles_answer_as_the_role_dict():
    roles = {0: "filler", 1: "changed", 2: "changed", 3: "filler", 4: "changed", 7: "added", 8: "added", 9: "removed"}
    mapped = RunRoles(*role_runs(roles))
    assert {row: mapped.get(row) for row in range(12) if row in mapped} == roles
    assert dict(mapped.items()) == roles and len(mapped) == len(roles)
    assert mapped.get(5) is None and 5 not in mapped
    with pytest.raises(KeyError):
        mapped[11]


def test_the_view_navigates_folds_and_names_paths_of_a_helper_diff(qtbot, runner, helper):
    left, right = big_pair()
    view = shown_diff_view(qtbot, runner)
    with qtbot.waitSignal(view.ready, timeout=30000):
        view.compare(left, right)
    r = view.result
    assert isinstance(r.left.lines, ByteLines)
    assert view.changes.count() == len(r.changes) >= 5
    for _ in range(3):
        qtbot.keyClick(view.left, Qt.Key.Key_F8)
    row = r.change_rows[2]
    first = view.left.first_visible_line()
    assert view.current_change == 2 and first <= row < first + view.left.visible_line_count()
    assert view.path_at(row, "left") == "$.records[1500]"
    view.only_diffs.setChecked(True)  # "differences only": folded rows from the helper
    folded = view.left.document()
    assert len(folded) < len(r.left) / 10
    assert any(folded.roles.get(i) == "collapsed" for i in range(len(folded)))
    view.go_to_change(1)
    assert "record ten" in view.right.document().lines[view.right._current]
    assert view.path_at(view.left._current, "right") == "$.records[10].name"


def test_a_diff_replaced_while_laid_out_leaves_no_file_behind(qtbot, runner, helper):
    import glob
    import os

    from reviewer_ui.diffproc import _memory_dir

    pattern = os.path.join(_memory_dir() or "/tmp", "reviewer-*")  # the panes and the pairs handed over
    before = set(glob.glob(pattern))
    left, right = big_pair()
    view = shown_diff_view(qtbot, runner)
    with qtbot.waitSignal(view.first_screen, timeout=30000):
        view.compare(left, right)
    with qtbot.waitSignal(view.ready, timeout=30000):
        view.compare(right, left)  # the user moved on before the first diff was whole
    assert view.result.changes[0].describe().startswith("changed $.title")
    assert view.title_left.text() == "Gold" and isinstance(view.result.left.lines, ByteLines)
    assert view.result.left.lines[1].startswith('  "title": "The committee met on Thursday')
    parsepool.run(len, "")  # the helper's queue is through with the first pair
    qtbot.waitUntil(lambda: set(glob.glob(pattern)) <= before, timeout=10000)
