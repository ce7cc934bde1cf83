"""Each item kind renders its own layout from a project-made store (ui.demo)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.ui.conftest import open_dataset
from reviewer_ui.views.kinds import (
    CallChainLayout,
    ExtractionLayout,
    FunctionCallLayout,
    SchemaGenLayout,
    ToolQaLayout,
    ToolSelectLayout,
)


def _tab(layout, title):
    for i in range(layout.tabs.count()):
        if layout.tabs.tabText(i) == title:
            layout.tabs.setCurrentIndex(i)
            return layout.tabs.widget(i)
    raise AssertionError(f"no tab {title!r}")


def test_tool_qa_shows_response_text_tree_schema_and_code(qtbot, window):
    layout = open_dataset(qtbot, window, "tool_qa")
    assert isinstance(layout, ToolQaLayout)
    assert "free bikes" in layout.question.toPlainText()
    assert "Gold answer" in layout.gold.text()
    lines = layout.response.document().lines
    assert lines[0] == "{" and any('"stations": [' in line for line in lines)
    assert layout.response.document().tokenizer(lines[2])[0][2] == "key"
    assert layout.schema.document().lines[0] == "{"
    # The tree is built when its tab is shown, and the reduced view keeps one element per list.
    layout.docs.setCurrentWidget(layout.tree)
    model = layout.tree.model
    root = model.index(0, 0)
    stations = next(model.index(r, 0, root) for r in range(model.rowCount(root))
                    if model.data(model.index(r, 0, root)) == "stations")
    model.fetchMore(stations)
    assert model.rowCount(stations) == 40
    layout.tree.reduced.setChecked(True)
    root = model.index(0, 0)
    stations = next(model.index(r, 0, root) for r in range(model.rowCount(root))
                    if model.data(model.index(r, 0, root)) == "stations")
    model.fetchMore(stations)
    assert model.rowCount(stations) == 1
    assert "showing 1 of 40" in model.data(stations.siblingAtColumn(1))
    # A code answer is highlighted as Python.
    assert layout.outputs.current().label.startswith("coder-7b")
    text = layout.outputs.text.document()
    assert text.lines[0].startswith("def solve") and text.tokenizer(text.lines[0])[0][2] == "keyword"


def test_tool_qa_diff_reads_code_answers_as_text(qtbot, window):
    layout = open_dataset(qtbot, window, "tool_qa")
    _tab(layout, "Gold vs output")
    qtbot.waitUntil(lambda: layout.diff.result is not None, timeout=5000)
    assert layout.diff.result.changes == []  # "0" (gold) vs 0 (code answer) is no difference
    window.run_box.setCurrentIndex(window.run_box.findText("chatty-3b", Qt.MatchFlag.MatchStartsWith))
    window.next_item()  # bikes-1: gold "7", chatty-3b answered "8"
    qtbot.waitUntil(lambda: window.item_view.bundle.detail.record_id == "bikes-1", timeout=5000)
    qtbot.waitUntil(lambda: layout.diff.result is not None and bool(layout.diff.result.changes), timeout=5000)
    assert layout.diff.title_right.text().startswith("Output of chatty-3b")
    assert [(c.left, c.right) for c in layout.diff.result.changes] == [("7", "8")]


def test_extraction_highlights_supporting_spans(qtbot, window):
    layout = open_dataset(qtbot, window, "extraction")
    assert isinstance(layout, ExtractionLayout)
    html = layout.source.toHtml()
    assert "background-color" in html and "Amelia Rourke" in layout.source.toPlainText()
    assert "found in the text" in layout.support_note.text()
    # the note is as tall as its wrapped lines at a laptop's width (in a splitter pane it was cut)
    window.resize(1366, 768)
    note = layout.support_note
    note.setText(note.text() + "; not found verbatim: " + ", ".join(f"$.field_{i}.value" for i in range(12)))
    qtbot.waitUntil(lambda: note.isVisible() and note.height() >= note.heightForWidth(note.width()), timeout=3000)
    _tab(layout, "Gold vs output")
    qtbot.waitUntil(lambda: layout.diff.result is not None, timeout=5000)
    paths = [c.path_text for c in layout.diff.result.changes]
    assert "$.person.age" in paths and "$.education[1]" in paths


def test_call_chain_aligns_calls_and_marks_the_graph(qtbot, window):
    layout = open_dataset(qtbot, window, "call_chain")
    assert isinstance(layout, CallChainLayout)
    statuses = [layout.calls.item(r, 3).text() for r in range(layout.calls.rowCount())]
    assert statuses[0] == "match"
    assert statuses[1].startswith("params differ")
    assert statuses[2] == "missing"
    assert "wrong producer" in layout.summary.text() and "UNK" in layout.summary.text()
    _tab(layout, "Graph")
    assert len(layout.graph.boxes) == 3  # the three predicted calls
    assert layout.graph.marked_edges == 1  # book_flight got the price, not the flight id
    layout.which.setCurrentIndex(1)  # the gold chain: four calls, three data-flow edges
    assert len(layout.graph.boxes) == 4 and len(layout.graph.edge_items) == 3
    assert layout.graph.marked_edges == 0


def test_call_chain_follows_the_selected_run(qtbot, window):
    layout = open_dataset(qtbot, window, "call_chain")
    index = window.run_box.findText("tiny-planner-1b", Qt.MatchFlag.MatchStartsWith)
    window.run_box.setCurrentIndex(index)
    statuses = [layout.calls.item(r, 3).text() for r in range(layout.calls.rowCount())]
    assert statuses == ["match"] * 4  # its text wraps the right chain in prose


def test_schema_gen_marks_validation_errors_on_their_lines(qtbot, window):
    layout = open_dataset(qtbot, window, "schema_gen")
    assert isinstance(layout, SchemaGenLayout)
    assert "invalid" in layout.verdict.text()
    errors = [layout.errors.item(i).text() for i in range(layout.errors.count())]
    assert len(errors) == 5
    assert any(e.startswith("$.address.zip (line 6)") for e in errors)
    doc = layout.checked.document()
    assert doc.roles.get(5) == "error_bg" and '"zip": "12AB"' in doc.lines[5]
    layout.errors.setCurrentRow(1)
    window.run_box.setCurrentIndex(window.run_box.findText("gen-b", Qt.MatchFlag.MatchStartsWith))
    assert "valid against the schema" in layout.verdict.text() and layout.errors.count() == 0


def test_tool_select_puts_expected_beside_predicted(qtbot, window):
    layout = open_dataset(qtbot, window, "tool_select")
    assert isinstance(layout, ToolSelectLayout)
    t = layout.table
    headers = [t.horizontalHeaderItem(c).text() for c in range(t.columnCount())]
    assert headers[:3] == ["Tool", "Description", "Expected"] and headers[3:] == ["selector-a", "selector-b"]
    rows = {t.item(r, 0).text(): [t.item(r, c).text() for c in range(2, t.columnCount())] for r in range(t.rowCount())}
    assert rows["Maps"] == ["YES", "YES", "NO"]
    assert rows["Weather"] == ["NO", "NO", "YES"]
    assert "selector-b: 2 wrong" in layout.summary.text()


def test_function_call_shows_messages_functions_and_answers(qtbot, window):
    layout = open_dataset(qtbot, window, "function_call")
    assert isinstance(layout, FunctionCallLayout)
    assert "84.50 at 15 percent" in layout.messages.toPlainText()
    assert any("restaurant.tip_amount" in line for line in layout.functions.document().lines)
    assert any("round_up" in line for line in layout.gold.document().lines)
    layout.outputs.picker.setCurrentIndex(1)  # caller-b failed
    assert "error" in layout.outputs.status.text() and "HTTP 500" in layout.outputs.status.text()
