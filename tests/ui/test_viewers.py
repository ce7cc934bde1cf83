"""The fast line viewer, the JSON tokenizers and the lazy JSON tree."""

from __future__ import annotations

import json

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QGuiApplication

from reviewer_ui.models.json_tree import JsonTreeModel
from tests.ui.modeltest import model_tester
from reviewer_ui.textdoc import LineDocument, json_tokens, prepare_json_text, python_tokens
from reviewer_ui.widgets.line_view import LineView


def test_json_tokens_tell_keys_from_values():
    line = '    "name": "Praça \\"1\\"", "n": -1.5e3, "ok": true, "x": null'
    kinds = [(line[s:e], k) for s, e, k in json_tokens(line)]
    assert ('"name"', "key") in kinds and ('"Praça \\"1\\""', "string") in kinds
    assert ("-1.5e3", "number") in kinds and ("true", "keyword") in kinds and ("null", "keyword") in kinds


def test_python_tokens():
    line = "    return match[0]['free_bikes'] if match else None  # done"
    kinds = {line[s:e]: k for s, e, k in python_tokens(line)}
    assert kinds["return"] == "keyword" and kinds["'free_bikes'"] == "string"
    assert kinds["0"] == "number" and kinds["# done"] == "comment"


def test_bad_json_is_shown_raw_with_the_position():
    parsed = prepare_json_text('{"a": 1,\n "b": }', "the tool response")
    assert not parsed.ok
    assert parsed.document.lines == ['{"a": 1,', ' "b": }']
    assert "the tool response is not valid JSON" in parsed.document.banner and "line 2" in parsed.document.banner


def test_only_visible_lines_are_tokenized(qtbot):
    calls = []

    def counting(line):
        calls.append(line)
        return json_tokens(line)

    view = LineView()
    qtbot.addWidget(view)
    view.resize(600, 400)
    view.show()
    lines = json.dumps([{"i": i} for i in range(50_000)], indent=2).split("\n")
    with qtbot.waitSignal(view.painted, timeout=3000):
        view.set_document(LineDocument(lines, counting))
    assert 0 < len(calls) <= view.visible_line_count() + 2
    calls.clear()
    with qtbot.waitSignal(view.painted, timeout=3000):
        view.scroll_to_line(100_000)
    first = view.first_visible_line()
    assert 99_000 < first <= 100_000
    assert all(lines.index(c) >= 0 for c in calls[:1]) and len(calls) <= view.visible_line_count() + 2


def test_selection_and_copy(qtbot):
    view = LineView()
    qtbot.addWidget(view)
    view.resize(500, 300)
    view.show()
    view.set_lines(["alpha beta", "gamma delta", "epsilon"])
    view.select_all()
    view.copy()
    assert QGuiApplication.clipboard().text() == "alpha beta\ngamma delta\nepsilon"
    # Drag from the start of line 1 to line 2, column 5.
    y0 = view._lh // 2
    x = lambda col: int(view._gw + col * view._cw)
    qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x(6), y0))
    qtbot.mouseMove(view.viewport(), QPoint(x(5), y0 + view._lh))
    qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x(5), y0 + view._lh))
    assert view.selected_text() == "beta\ngamma"


def _value():
    return {"a": [{"b": i, "c": [1, 2]} for i in range(1200)], "s": "x" * 500, "n": None}


def test_tree_model_passes_qt_model_tester(qtbot):
    model = JsonTreeModel(_value())
    # The tester walks (and so fetches) the whole tree, checking every step. One kept
    # tester per state: a tester alive across a reset calls fetchMore from inside the
    # modelReset signal (before it clears its own reset-in-flight flag) and reports the
    # rows it fetched itself.
    with model_tester(model):
        pass
    model.set_reduced(True)
    with model_tester(model):
        pass
    model.set_value([1, [2, 3], {"x": []}])
    with model_tester(model):
        pass


def test_tree_model_builds_children_lazily(qtbot):
    model = JsonTreeModel(_value())
    root = model.index(0, 0)
    assert model.rowCount(root) == 0 and model.canFetchMore(root)  # nothing built yet
    model.fetchMore(root)
    assert model.rowCount(root) == 3
    a = model.index(0, 0, root)
    assert model.data(a.siblingAtColumn(1)) == "[1200 items]"
    model.fetchMore(a)
    assert model.rowCount(a) == 500  # one batch at a time
    while model.canFetchMore(a):
        model.fetchMore(a)
    assert model.rowCount(a) == 1200
    leaf = model.index(7, 0, a)
    model.fetchMore(leaf)
    assert model.path(model.index(0, 0, leaf)) == "$.a[7].b"
    assert model.data(model.index(1, 1, root)).endswith("…")  # long strings are cut in the preview
    model.set_reduced(True)
    root = model.index(0, 0)
    model.fetchMore(root)
    a = model.index(0, 0, root)
    model.fetchMore(a)
    assert model.rowCount(a) == 1 and not model.canFetchMore(a)


def test_find_moves_through_matches_and_wraps(qtbot):
    view = LineView()
    qtbot.addWidget(view)
    view.resize(500, 200)
    view.show()
    lines = [f'  "name": "station {i}",' for i in range(300)] + ['  "city": "Lisbon"']
    view.set_document(LineDocument(lines, json_tokens))
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Slash)
    assert view.find_bar.isVisible()
    qtbot.keyClicks(view.find_bar, "LISBON")
    qtbot.keyClick(view.find_bar, Qt.Key.Key_Return)
    assert view.selected_text() == "Lisbon"
    first = view.first_visible_line()
    assert first <= 300 < first + view.visible_line_count()  # scrolled to the match
    assert view.find_next("station 29")
    assert view._anchor == (29, 11)
    assert view.find_next("station 29")  # next: "station 290"
    assert view._anchor[0] == 290
    assert view.find_next("station 29", backwards=True)
    assert view._anchor[0] == 29
    assert view.find_next("station 29", backwards=True)  # wraps to the last match
    assert view._anchor[0] == 299
    assert not view.find_next("no such text")
    qtbot.keyClick(view.find_bar, Qt.Key.Key_Escape)
    assert not view.find_bar.isVisible()


def test_find_in_a_big_block_indexed_document(qtbot):
    from reviewer_ui.textdoc import big_document

    text = json.dumps({"rows": [{"id": i, "tag": f"t{i}"} for i in range(20000)]}, indent=2)
    view = LineView()
    qtbot.addWidget(view)
    view.resize(500, 300)
    view.show()
    view.set_document(big_document(text))
    assert view.find_next('"t19999"')
    line, col = view._anchor
    assert view.document().lines[line][col:col + 8] == '"t19999"'
