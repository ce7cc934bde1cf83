"""Tool-selection JSONL: import, write back, errors, and the paper 002 Appendix A sample."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reviewer.errors import InputError
from reviewer.formats.base import ExportItem
from reviewer.formats.registry import find_dataset_format
from reviewer.formats.toolselect import ToolSelectFormat
from reviewer.jobs import silent
from reviewer.samples import DATA_DIR

FMT = ToolSelectFormat()

TOOLS = [{"name": "Weather", "description": "forecasts"}, {"name": "Calendar", "description": "meetings"},
         {"name": "Email", "description": "mail"}]
ROWS = [
    {"id": "t1", "message": "Rain tomorrow? Also book a meeting.", "tools": TOOLS, "expected": ["Weather", "Calendar"], "category": "a"},
    {"id": "t2", "message": "Thanks!", "tools": TOOLS, "expected": []},
]


def write_lines(path: Path, rows) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def read_items(path: Path):
    return list(FMT.read(path, silent()).items)


def values(path: Path) -> list:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def test_reads_message_tools_and_sorted_gold(tmp_path):
    items = read_items(write_lines(tmp_path / "ts.jsonl", ROWS))
    assert [(i.record_id, i.kind, i.gold, i.category) for i in items] == [
        ("t1", "tool_select", ["Calendar", "Weather"], "a"), ("t2", "tool_select", [], None)]
    assert items[0].question == ROWS[0]["message"]
    assert items[0].payload == {"tools": TOOLS}


def test_round_trip_and_edited_gold_in_place(tmp_path):
    src = write_lines(tmp_path / "src" / "ts.jsonl", ROWS)
    parsed = FMT.read(src, silent())
    items = list(parsed.items)
    unchanged = [ExportItem(i.record_id, i.raw, i.gold, i.gold, payload=i.payload) for i in items]
    (out,) = FMT.write(parsed.dataset, unchanged, tmp_path / "a", silent())
    assert values(out) == ROWS  # the unsorted expected list is written as it was

    edited = [ExportItem(i.record_id, i.raw, ["Email"] if i.record_id == "t2" else i.gold, i.gold, payload=i.payload) for i in items]
    (out,) = FMT.write(parsed.dataset, edited, tmp_path / "b", silent())
    assert values(out) == [ROWS[0], {**ROWS[1], "expected": ["Email"]}]
    assert list(values(out)[1]) == ["id", "message", "tools", "expected"]


def test_write_rejects_a_gold_naming_an_unknown_tool(tmp_path):
    parsed = FMT.read(write_lines(tmp_path / "ts.jsonl", ROWS), silent())
    items = [ExportItem(i.record_id, i.raw, ["Fax"], i.gold, payload=i.payload) for i in parsed.items]
    with pytest.raises(InputError, match=r"record 't1': \$\.expected\[0\]: 'Fax' is not one of the tools"):
        FMT.write(parsed.dataset, items, tmp_path / "out", silent())


@pytest.mark.parametrize(
    "row, expected",
    [
        ({**ROWS[1], "id": "t3", "expected": ["Fax"]}, "line 2, $.expected[0]: 'Fax' is not one of the tools (Calendar, Email, Weather)"),
        ({**ROWS[1], "id": "t3", "expected": ["Email", "Email"]}, "line 2, $.expected: names a tool twice"),
        ({**ROWS[1], "id": "t3", "expected": "Email"}, "line 2, $.expected: expected an array, got a string"),
        ({**ROWS[1], "id": "t3", "tools": [TOOLS[0], {"name": "Weather", "description": "again"}]},
         "line 2, $.tools[1].name: tool 'Weather' listed twice (first at $.tools[0])"),
        ({**ROWS[1], "id": "t3", "tools": [{"name": "Weather"}]}, "line 2, $.tools[0].description: expected a string, got null"),
        ({**ROWS[1], "id": "t3", "message": ["hi"]}, "line 2, $.message: expected a string, got an array"),
        ({**ROWS[1], "id": "t1"}, "line 2, $.id: duplicate id 't1' (first on line 1)"),
        ("[1, 2", "line 2, column 1: the line ends in the middle of a JSON value (truncated?)"),
    ],
)
def test_errors_name_file_line_and_json_path(tmp_path, row, expected):
    src = write_lines(tmp_path / "ts.jsonl", [ROWS[0], row])
    with pytest.raises(InputError) as exc:
        read_items(src)
    assert str(exc.value).startswith(str(src))
    assert expected in str(exc.value)


def test_paper_002_appendix_a_sample():
    path = DATA_DIR / "toolselect" / "appendix_a.jsonl"
    assert find_dataset_format(path).name == "toolselect"
    items = read_items(path.parent)  # the folder holds one top-level file
    assert len(items) == 32
    by_id = {i.record_id: i for i in items}
    assert len(by_id["alex-01"].payload["tools"]) == 7 and len(by_id["sage-01"].payload["tools"]) == 8
    assert by_id["alex-04"].gold == ["Available discounts", "List of upcoming events", "Recent social media posts", "Website information"]
    assert by_id["sage-16"].gold == []
    assert sum(not i.gold for i in items) == 6  # "No tool expected": Alex 7, 16; Sage 7, 9, 14, 16
    perturbed = read_items(path.parent / "perturbed")
    assert [i.gold for i in perturbed] == [i.gold for i in items]
    assert [i.payload["tools"][0]["description"] for i in perturbed][0] != by_id["alex-01"].payload["tools"][0]["description"]
