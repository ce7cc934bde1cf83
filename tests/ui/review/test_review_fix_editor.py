"""The fix editor's live checks: JSON syntax with line and column, schema errors
by JSON path, the change list and the many-operations warning."""

from __future__ import annotations

import json

import pytest

from reviewer.review.rubric import MANY_FIX_OPERATIONS
from tests.ui.review.conftest import SCHEMA
from reviewer_ui.review.fix_editor import FixEditor

GOLD = {"name": "Ada", "year": 1843, "authors": ["Ada"]}


@pytest.fixture
def editor(qtbot):
    e = FixEditor()
    qtbot.addWidget(e)
    e.load("extraction", GOLD, SCHEMA)
    return e


def type_text(qtbot, editor, text):
    with qtbot.waitSignal(editor.validated):  # the debounced check runs by itself
        editor.text.setPlainText(text)


def test_opens_on_the_gold_as_valid_unchanged_json(editor):
    assert json.loads(editor.text.toPlainText()) == GOLD
    assert "valid JSON" in editor.syntax_label.text() and "matches the item's schema" in editor.schema_label.text()
    assert "No change yet" in editor.ops_label.text()
    assert not editor.save_button.isEnabled()


def test_syntax_error_names_line_and_column(qtbot, editor):
    type_text(qtbot, editor, '{\n  "name": "Ada",\n  "year": 1843\n  "authors": []\n}')
    assert editor.syntax_error == "JSON syntax error at line 4, column 3: Expecting ',' delimiter"
    assert "line 4, column 3" in editor.syntax_label.text()
    [marked] = editor.text.extraSelections()
    assert marked.cursor.blockNumber() == 3  # the offending line is highlighted
    saved = []
    editor.save_requested.connect(saved.append)
    editor.request_save()
    assert saved == [] and not editor.save_button.isEnabled()


def test_schema_errors_are_listed_by_json_path(qtbot, editor):
    type_text(qtbot, editor, json.dumps({"name": "Ada", "year": "1843", "authors": ["Ada", 7]}))
    assert editor.schema_errors == ["$.authors[1]: 7 is not of type 'string'",
                                    "$.year: '1843' is not of type 'integer'"]
    assert "$.year" in editor.schema_label.text() and "2 schema error(s)" in editor.schema_label.text()


def test_changes_listed_against_the_original_with_readable_paths(qtbot, editor):
    type_text(qtbot, editor, json.dumps({"name": "Ada Lovelace", "year": 1843, "authors": ["Ada", "Babbage"]}))
    texts = [editor.change_list.item(i).text() for i in range(editor.change_list.count())]
    assert any("$.name" in t and "Ada Lovelace" in t for t in texts)
    assert any(t.startswith("added $.authors[1]") for t in texts)
    assert editor.op_count == 2 and "2 patch operation(s)" in editor.ops_label.text()
    with qtbot.waitSignal(editor.save_requested) as sig:
        editor.save_button.click()
    assert sig.args[0]["name"] == "Ada Lovelace"


def test_many_operations_warn_that_it_may_be_a_reject(qtbot, editor):
    many = {f"extra{i}": i for i in range(MANY_FIX_OPERATIONS + 1)} | GOLD
    type_text(qtbot, editor, json.dumps(many))
    assert editor.op_count == MANY_FIX_OPERATIONS + 1
    assert "may be a Reject" in editor.ops_label.text()
    assert editor.can_save  # a warning, not a block


def test_answer_string_is_edited_as_a_line(qtbot):
    e = FixEditor()
    qtbot.addWidget(e)
    e.load("tool_qa", "10-K", schema_text='{"type": "object"}')
    assert not e.line.isHidden() and e.text.isHidden() and e.line.text() == "10-K"
    with qtbot.waitSignal(e.validated):
        e.line.setText("10-Q")
    assert e.value == "10-Q" and e.op_count == 1 and e.schema_label.text() == ""  # no schema check for tool_qa


def test_broken_item_schema_is_reported_not_fatal(qtbot):
    e = FixEditor()
    qtbot.addWidget(e)
    e.load("extraction", GOLD, schema_text='{"type": "object",')
    assert "schema is not valid JSON" in e.schema_label.text()
    assert "valid JSON" in e.syntax_label.text()
