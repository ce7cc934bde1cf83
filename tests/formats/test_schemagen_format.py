"""Schema-constrained generation JSONL: import, write back, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reviewer.errors import InputError
from reviewer.formats.base import ExportItem
from reviewer.formats.registry import find_dataset_format
from reviewer.formats.schemagen import SchemaGenFormat
from reviewer.jobs import silent
from reviewer.samples import DATA_DIR

FMT = SchemaGenFormat()

OBJ = {"type": "object", "properties": {"name": {"type": "string", "minLength": 3}}, "required": ["name"]}
ROWS = [
    {"id": "c1", "subset": "complex", "schema": OBJ},
    {"id": 2, "subset": "custom", "schema": json.dumps(OBJ), "verify_schema": {"properties": {"name": {"const": "abc"}}},
     "prompt": "Make one."},
    {"id": "e1", "subset": "escape", "schema": OBJ, "verify_schema": {"properties": {"name": {"const": "a\\b"}}}, "special_token": "a\\b"},
]


def write_lines(path: Path, rows) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def read_items(path: Path):
    return list(FMT.read(path, silent()).items)


def test_reads_subsets_schemas_and_payload(tmp_path):
    items = read_items(write_lines(tmp_path / "sg.jsonl", ROWS))
    assert [(i.record_id, i.category, i.kind, i.gold) for i in items] == [
        ("c1", "complex", "schema_gen", None), ("2", "custom", "schema_gen", None), ("e1", "escape", "schema_gen", None)]
    assert json.loads(items[0].schema) == OBJ
    assert items[1].schema == json.dumps(OBJ)  # text kept as written
    assert items[1].question == "Make one." and items[1].payload["prompt"] == "Make one."
    assert items[0].payload == {"verify_schema": None, "special_token": None, "subset": "complex"}
    assert items[2].payload["special_token"] == "a\\b"
    assert items[2].payload["verify_schema"] == ROWS[2]["verify_schema"]


def test_round_trip_is_value_equal(tmp_path):
    src = write_lines(tmp_path / "src" / "mine.jsonl", ROWS)
    parsed = FMT.read(src.parent, silent())
    items = [ExportItem(i.record_id, i.raw, i.gold, i.gold, schema=i.schema, payload=i.payload) for i in parsed.items]
    files = FMT.write(parsed.dataset, items, tmp_path / "out", silent())
    assert [f.name for f in files] == ["mine.jsonl"]
    assert [json.loads(x) for x in files[0].read_text().splitlines()] == ROWS


@pytest.mark.parametrize(
    "row, expected",
    [
        ({"id": "x", "subset": "hard", "schema": OBJ}, "line 2, $.subset: expected one of complex, custom, escape, got 'hard'"),
        ({"id": "x", "subset": "complex"}, "line 2, $.schema: missing"),
        ({"id": "x", "subset": "complex", "schema": [1]}, "line 2, $.schema: expected an object or true or false, got an array"),
        ({"id": "x", "subset": "complex", "schema": "{\"type\": "}, "line 2, $.schema: invalid JSON at line 1, column 10"),
        ({"id": "x", "subset": "complex", "schema": {"type": "object", "properties": {"a": {"minLength": -1}}}},
         "line 2, $.schema.properties.a.minLength: not a valid JSON Schema"),
        ({"id": "x", "subset": "custom", "schema": OBJ, "verify_schema": {"type": 5}}, "line 2, $.verify_schema.type: not a valid JSON Schema"),
        ({"id": "x", "subset": "escape", "schema": OBJ, "special_token": 7}, "line 2, $.special_token: expected a string, got an integer"),
        ({"id": None, "subset": "complex", "schema": OBJ}, "line 2, $.id: expected a string or an integer, got null"),
        ({"id": "c1", "subset": "complex", "schema": OBJ}, "line 2, $.id: duplicate id 'c1' (first on line 1)"),
        ("{\"id\": \"x\", \"subset\": \"comp", "line 2, column 28: the line ends in the middle of a JSON value (truncated?)"),
    ],
)
def test_errors_name_file_line_and_json_path(tmp_path, row, expected):
    src = write_lines(tmp_path / "sg.jsonl", [ROWS[0], row])
    with pytest.raises(InputError) as exc:
        read_items(src)
    assert str(exc.value).startswith(str(src))
    assert expected in str(exc.value)


def test_folder_with_two_candidate_files_is_ambiguous(tmp_path):
    write_lines(tmp_path / "a.jsonl", ROWS)
    write_lines(tmp_path / "b.jsonl", ROWS)
    with pytest.raises(InputError, match=r"several schema-generation files in this folder \(a\.jsonl, b\.jsonl\)"):
        FMT.read(tmp_path, silent())


def test_sample_data_imports():
    path = DATA_DIR / "schemagen" / "schemagen.jsonl"
    assert find_dataset_format(path).name == "schemagen"
    items = read_items(path.parent)
    assert len(items) == 5
    assert {i.category for i in items} == {"complex", "custom", "escape"}
    assert all(i.payload["verify_schema"] for i in items if i.category != "complex")
    assert all(i.payload["special_token"] for i in items if i.category == "escape")
