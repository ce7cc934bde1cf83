"""DeepJSONEval workbooks, JSON Lines and output workbooks: reading, round trip, edits, errors.

Fixtures are small workbooks the tests build with openpyxl; the refdata tests
at the end read ../shared/refdata when it is there.
"""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest

from reviewer.errors import InputError, ReviewerError
from reviewer.formats.base import ExportItem
from reviewer.formats.deepjson import DeepJsonDataset, DeepJsonPredictions
from reviewer.jobs import silent
from reviewer.samples import DATA_DIR
from tests.conftest import refdata

DATASET = DeepJsonDataset()
PREDS = DeepJsonPredictions()
HEADER = ["schema", "text", "json", "category", "true_depth"]

SCHEMA = json.dumps({"type": "object", "properties": {"Name": {"type": "string"}, "Tags": {"type": "array"}}}, indent=2)
ZH_TEXT = "\n这是一段关于植物“月光兰”的介绍：它生长在海拔两千米的山谷中，花期为五月。"
GOLDS = [
    {"Name": "Moon Orchid", "Habitat": {"Altitude": {"Meters": 2000}}, "Tags": ["rare", "alpine"]},
    {"Name": "Falcon X", "Specs": {"Engine": {"Type": "electric", "Power": {"kW": 150.5}}}, "Features": [{"Name": "ABS", "Std": True}]},
    {"Name": "月光兰", "花期": {"月份": [5]}},
]
ROWS = [
    [SCHEMA, "\nThe Moon Orchid grows at 2000 m.", json.dumps(GOLDS[0], indent=2), "plant", 4],
    [SCHEMA, "The Falcon X has a 150.5 kW electric engine and ABS.", json.dumps(GOLDS[1], indent=2), "viecle", 6],
    [SCHEMA, ZH_TEXT, json.dumps(GOLDS[2], indent=2, ensure_ascii=False), "plant", 3],
]


def make_xlsx(path: Path, rows=ROWS, header=HEADER, sheet="sheet1", extra_sheets=()) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = sheet
    ws.append(header)
    for r in rows:
        ws.append(r)
    for name in extra_sheets:
        wb.create_sheet(name)
    wb.save(path)
    return path


def make_jsonl(path: Path, records) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def cells(path: Path, sheet="sheet1") -> list[tuple]:
    wb = openpyxl.load_workbook(path, read_only=True)
    try:
        return list(wb[sheet].iter_rows(values_only=True))
    finally:
        wb.close()


def read(path: Path):
    parsed = DATASET.read(path, silent())
    return parsed.dataset, list(parsed.items)


def export_items(items, edits: dict | None = None) -> list[ExportItem]:
    edits = edits or {}
    return [
        ExportItem(it.record_id, it.raw, edits.get(it.record_id, it.gold), it.gold, it.context, it.schema, it.payload)
        for it in items
    ]


def error_of(path: Path) -> str:
    with pytest.raises(InputError) as exc:
        read(path)
    return str(exc.value)


# --------------------------------------------------------------------------- reading


def test_reads_rows_as_items_numbered_by_data_row(tmp_path):
    path = make_xlsx(tmp_path / "d.xlsx")
    assert DATASET.detect(path) and not PREDS.detect(path)
    dataset, items = read(path)
    assert [it.record_id for it in items] == ["1", "2", "3"]
    assert [it.gold for it in items] == GOLDS
    assert [(it.depth, it.difficulty) for it in items] == [(4, "Medium"), (6, "Hard"), (3, "Medium")]
    assert items[1].category == "viecle" and items[0].schema == SCHEMA
    assert items[2].payload == {"text": ZH_TEXT}  # Chinese and the leading newline intact
    assert items[0].source_line == 2 and items[0].kind == "extraction"
    assert dataset.meta["header"] == HEADER


def test_id_column_names_the_records(tmp_path):
    rows = [["a-1", *ROWS[0]], [7, *ROWS[1]]]
    _, items = read(make_xlsx(tmp_path / "d.xlsx", rows, ["id", *HEADER]))
    assert [it.record_id for it in items] == ["a-1", "7"]


def test_reads_jsonl_with_json_as_text_or_object(tmp_path):
    recs = [dict(zip(HEADER, r, strict=True)) for r in ROWS]
    recs[1]["json"] = GOLDS[1]  # the object itself instead of its text
    path = make_jsonl(tmp_path / "d.jsonl", recs)
    assert DATASET.detect(path)
    _, items = read(path)
    assert [it.gold for it in items] == GOLDS
    assert [it.record_id for it in items] == ["1", "2", "3"]


# --------------------------------------------------------------------------- writing


def test_xlsx_round_trip_is_cell_equal(tmp_path):
    src = make_xlsx(tmp_path / "d.xlsx")
    dataset, items = read(src)
    dataset.meta = json.loads(json.dumps(dataset.meta))  # as the store keeps it
    [out] = DATASET.write(dataset, export_items(items), tmp_path / "out", silent())
    assert out.name == "d.xlsx"
    assert cells(out) == cells(src)


def test_edited_gold_is_written_in_place_in_the_original_style(tmp_path):
    rows = [list(r) for r in ROWS]
    rows[0][2] = json.dumps(GOLDS[0], indent=4)  # this cell was indented by 4
    src = make_xlsx(tmp_path / "d.xlsx", rows)
    dataset, items = read(src)
    new0 = {**GOLDS[0], "Tags": ["rare"]}
    new2 = {"Name": "月光兰", "花期": {"月份": [5, 6]}}
    [out] = DATASET.write(dataset, export_items(items, {"1": new0, "3": new2}), tmp_path / "out", silent())
    before, after = cells(src), cells(out)
    assert after[1][2] == json.dumps(new0, indent=4, ensure_ascii=False)
    assert after[3][2] == json.dumps(new2, indent=2, ensure_ascii=False)  # Chinese not escaped
    assert after[2] == before[2]  # unedited row untouched
    assert [r[:2] + r[3:] for r in after] == [r[:2] + r[3:] for r in before]


def test_jsonl_round_trip_and_conversion_both_ways(tmp_path):
    src = make_xlsx(tmp_path / "d.xlsx")
    dataset, items = read(src)
    [jl] = DATASET.write(dataset, export_items(items), tmp_path / "j", silent(), as_format="jsonl")
    assert [json.loads(line) for line in jl.read_text(encoding="utf-8").splitlines()] == [dict(zip(HEADER, r, strict=True)) for r in ROWS]
    ds2, items2 = read(jl)
    assert [(i.record_id, i.gold, i.payload) for i in items2] == [(i.record_id, i.gold, i.payload) for i in items]
    [jl2] = DATASET.write(ds2, export_items(items2), tmp_path / "j2", silent())
    assert jl2.suffix == ".jsonl" and jl2.read_text(encoding="utf-8") == jl.read_text(encoding="utf-8")
    [back] = DATASET.write(ds2, export_items(items2), tmp_path / "x", silent(), as_format="xlsx")
    assert cells(back) == cells(src)


def test_jsonl_edit_keeps_an_object_an_object(tmp_path):
    recs = [dict(zip(HEADER, ROWS[0], strict=True))]
    recs[0]["json"] = GOLDS[0]
    dataset, items = read(make_jsonl(tmp_path / "d.jsonl", recs))
    [out] = DATASET.write(dataset, export_items(items, {"1": {"Name": "x"}}), tmp_path / "o", silent())
    assert json.loads(out.read_text())["json"] == {"Name": "x"}


def test_a_control_character_cannot_go_to_xlsx_but_goes_to_jsonl(tmp_path):
    recs = [dict(zip(HEADER, ROWS[0], strict=True))]
    recs[0]["text"] = "bell \x07 inside"
    dataset, items = read(make_jsonl(tmp_path / "d.jsonl", recs))
    with pytest.raises(ReviewerError, match="row 2: a cell holds a control character"):
        DATASET.write(dataset, export_items(items), tmp_path / "o", silent(), as_format="xlsx")
    [out] = DATASET.write(dataset, export_items(items), tmp_path / "o", silent())
    assert json.loads(out.read_text())["text"] == "bell \x07 inside"


# --------------------------------------------------------------------------- bad input


def test_bad_json_cell_names_file_sheet_row_and_column(tmp_path):
    rows = [list(r) for r in ROWS]
    rows[1][2] = '{\n  "Name": "Falcon X",\n  "Specs": {'
    msg = error_of(make_xlsx(tmp_path / "bad.xlsx", rows))
    assert "bad.xlsx: sheet 'sheet1', row 3, column C (json): invalid JSON at line 3" in msg and "truncated" in msg
    rows[1][2] = '{"Name" "x"}'
    msg = error_of(make_xlsx(tmp_path / "bad2.xlsx", rows))
    assert "row 3, column C (json): invalid JSON at line 1, column 9 of the text: Expecting ':' delimiter" in msg


def test_missing_sheet_lists_the_sheets_found(tmp_path):
    msg = error_of(make_xlsx(tmp_path / "d.xlsx", sheet="Data", extra_sheets=["Notes"]))
    assert "d.xlsx: no sheet named 'sheet1' (sheets found: 'Data', 'Notes')" in msg


def test_missing_column_lists_the_columns_found(tmp_path):
    msg = error_of(make_xlsx(tmp_path / "d.xlsx", [r[:3] for r in ROWS], HEADER[:3]))
    assert "sheet 'sheet1', row 1: missing column(s) category, true_depth (columns found: 'schema', 'text', 'json')" in msg


def test_wrong_cell_types_are_named(tmp_path):
    rows = [list(r) for r in ROWS]
    rows[2][4] = "deep"
    assert "row 4, column E (true_depth): expected a whole number, got 'deep'" in error_of(make_xlsx(tmp_path / "a.xlsx", rows))
    rows = [list(r) for r in ROWS]
    rows[0][2] = 42
    assert "row 2, column C (json): expected the gold object as JSON text, got an integer" in error_of(make_xlsx(tmp_path / "b.xlsx", rows))


def test_a_value_under_no_header_is_refused(tmp_path):
    rows = [list(r) for r in ROWS]
    rows[1] = [*rows[1], None, "stray note"]
    assert "sheet 'sheet1', row 3, column G: a value in a column with no header" in error_of(make_xlsx(tmp_path / "d.xlsx", rows))


def test_duplicate_ids_name_both_rows(tmp_path):
    rows = [["a", *ROWS[0]], ["b", *ROWS[1]], ["a", *ROWS[2]]]
    msg = error_of(make_xlsx(tmp_path / "d.xlsx", rows, ["id", *HEADER]))
    assert "row 4, column A (id): duplicate id 'a' (first at row 2)" in msg


def test_a_wrong_dimension_tag_does_not_hide_rows(tmp_path):
    import re
    import zipfile

    good = make_xlsx(tmp_path / "good.xlsx")
    bad = tmp_path / "bad.xlsx"
    with zipfile.ZipFile(good) as zin, zipfile.ZipFile(bad, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "xl/worksheets/sheet1.xml":
                data = re.sub(rb'<dimension ref="[^"]*"', b'<dimension ref="A1:B2"', data)
            zout.writestr(info, data)
    _, items = read(bad)
    assert [it.gold for it in items] == GOLDS


def test_not_a_workbook_is_named(tmp_path):
    path = tmp_path / "d.xlsx"
    path.write_text("schema,text\n")
    assert "not a readable .xlsx workbook" in error_of(path)
    assert not DATASET.detect(path)


def test_bad_jsonl_lines_are_named(tmp_path):
    rec = dict(zip(HEADER, ROWS[0], strict=True))
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(rec) + "\n\n" + json.dumps(rec)[:40] + "\n")
    assert "d.jsonl: line 3, column" in error_of(path)
    path.write_text(json.dumps({**rec, "json": "{oops"}) + "\n")
    assert "line 1, $.json: invalid JSON at line 1, column 2 of the text" in error_of(path)
    path.write_text(json.dumps({k: v for k, v in rec.items() if k != "text"}) + "\n")
    assert "line 1: missing key(s) text" in error_of(path)


# --------------------------------------------------------------------------- predictions


def make_outputs(path: Path, outputs: list[str]) -> Path:
    # Like the benchmark's own files: an unnamed pandas index first, then the sheet.
    rows = [[i, *r, o, 100 + i, 20 + i] for i, (r, o) in enumerate(zip(ROWS, outputs, strict=True))]
    return make_xlsx(path, rows, [None, *HEADER, "model_output", "prompt_tokens", "completion_tokens"])


def test_predictions_match_rows_and_carry_tokens(tmp_path):
    outs = ["```json\n" + json.dumps(GOLDS[0]) + "\n```", "not json at all", json.dumps(GOLDS[2], ensure_ascii=False)]
    path = make_outputs(tmp_path / "model-a.xlsx", outs)
    assert PREDS.detect(path) and not DATASET.detect(path)
    parsed = PREDS.read(path, silent())
    outputs = list(parsed.outputs)
    assert parsed.run.name == "model-a" and parsed.run.format == "deepjson-predictions"
    assert [o.record_id for o in outputs] == ["1", "2", "3"]
    assert [o.text for o in outputs] == outs
    assert [(o.prompt_tokens, o.completion_tokens) for o in outputs] == [(100, 20), (101, 21), (102, 22)]
    assert "text" not in outputs[0].raw and outputs[0].raw["model_output"] == outs[0]


def test_predictions_without_model_output_are_refused(tmp_path):
    path = make_xlsx(tmp_path / "d.xlsx")
    with pytest.raises(InputError, match=r"missing column\(s\) model_output"):
        list(PREDS.read(path, silent()).outputs)


# --------------------------------------------------------------------------- shipped sample data

SAMPLE = DATA_DIR / "deepjson"


def test_sample_data_imports_and_predictions_attach():
    books = sorted(SAMPLE.glob("*.xlsx"))
    assert len(books) == 1
    _, items = read(books[0])
    assert 5 <= len(items) <= 10
    assert {it.difficulty for it in items} == {"Medium", "Hard"}
    assert any("\u4e00" <= ch <= "\u9fff" for it in items for ch in it.payload["text"])
    ids = {it.record_id for it in items}
    golds = {it.record_id: it.gold for it in items}
    pred_books = sorted((SAMPLE / "predictions").glob("*.xlsx"))
    assert len(pred_books) == 2
    for p in pred_books:
        outputs = list(PREDS.read(p, silent()).outputs)
        assert {o.record_id for o in outputs} == ids
        exact = [o for o in outputs if _parses_to(o.text, golds[o.record_id])]
        assert 0 < len(exact) < len(outputs)  # some right, some wrong
    size = sum(p.stat().st_size for p in SAMPLE.rglob("*") if p.is_file())
    assert size < 200_000


def _parses_to(text: str, gold) -> bool:
    body = text.rsplit("```json", 1)[-1].split("```", 1)[0] if "```json" in text else text
    try:
        return json.loads(body) == gold
    except json.JSONDecodeError:
        return False


# --------------------------------------------------------------------------- refdata

DJ = ("DeepJSONEval", "DeepJSONEval.xlsx")


@pytest.mark.refdata
def test_refdata_reads_525_items_and_round_trips(tmp_path):
    src = refdata(*DJ)
    dataset, items = read(src)
    assert len(items) == 525
    assert all(3 <= it.depth <= 7 for it in items)
    assert all(it.difficulty == ("Hard" if it.depth >= 5 else "Medium") for it in items)
    assert {it.difficulty for it in items} == {"Medium", "Hard"}
    original = cells(src)
    chinese = [r[1] for r in original[1:] if any("\u4e00" <= ch <= "\u9fff" for ch in r[1])]
    assert len(chinese) == 262
    assert [it.payload["text"] for it in items] == [r[1] for r in original[1:]]
    [out] = DATASET.write(dataset, export_items(items), tmp_path / "out", silent())
    assert cells(out) == original


@pytest.mark.refdata
def test_refdata_predictions_attach_to_rows():
    _, items = read(refdata(*DJ))
    ids = [it.record_id for it in items]
    books = sorted(refdata("DeepJSONEval", "_synthetic", "predictions").glob("*.xlsx"))
    assert books
    for p in books:
        assert PREDS.detect(p)
        outputs = list(PREDS.read(p, silent()).outputs)
        assert [o.record_id for o in outputs] == ids
        assert all(isinstance(o.text, str) and o.prompt_tokens is not None for o in outputs)


def test_subset_export_keeps_record_ids_with_an_id_column(tmp_path):
    """Writing only some rows adds an id column, so a re-import keeps the ids (and runs still attach)."""
    from reviewer.formats.base import ExportItem
    from reviewer.formats.deepjson import DeepJsonDataset
    from reviewer.jobs import silent
    from reviewer.samples import DATA_DIR

    fmt = DeepJsonDataset()
    parsed = fmt.read(DATA_DIR / "deepjson" / "DeepJSONEval-sample.xlsx", silent())
    items = list(parsed.items)
    keep = [it for it in items if it.record_id in ("2", "5")]
    exported = [ExportItem(it.record_id, it.raw, it.gold, it.gold) for it in keep]
    [path] = fmt.write(parsed.dataset, exported, tmp_path, silent())
    again = list(fmt.read(path, silent()).items)
    assert [it.record_id for it in again] == ["2", "5"]
    assert [it.gold for it in again] == [it.gold for it in keep]
