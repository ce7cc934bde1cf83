"""NesTools dataset and prediction files: import, write back, and errors a user can act on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reviewer.errors import InputError
from reviewer.formats.base import ExportItem
from reviewer.formats.nestools import NesToolsFormat, NesToolsPredictionsFormat
from reviewer.formats.registry import find_dataset_format, find_run_format
from reviewer.jobs import Cancelled, JobContext, silent
from reviewer.samples import DATA_DIR

ROOT = Path(__file__).resolve().parents[2]
REFDATA = ROOT.parent / "shared" / "refdata" / "NesTools"
FMT = NesToolsFormat()
PRED = NesToolsPredictionsFormat()


def _api(name, params, responses):
    return {
        "api_name": name,
        "api_description": f"does {name}",
        "parameters": {p: {"type": "str", "description": p} for p in params},
        "required": list(params),
        "responses": {r: {"type": "str", "description": r} for r in responses},
    }


def make_items():
    """Three items: depth 1, depth 2 and depth 3 (the last consumes two producers)."""
    return [
        ({"test_id": 10, "api": [_api("a", ["x"], ["r"])], "task": "do a",
          "call": [{"api_name": "a", "parameters": {"x": "1"}, "responses": ["API_call_0"]}], "field": "Test/One"}, [7]),
        ({"test_id": 11, "api": [_api("a", ["x"], ["r"]), _api("b", ["y"], ["s"])], "task": "a then b",
          "call": [{"api_name": "a", "parameters": {"x": "1"}, "responses": ["API_call_0"]},
                   {"api_name": "b", "parameters": {"y": "API_call_0"}, "responses": ["API_call_1"]}], "field": "Test/Two"}, [7, 8]),
        ({"test_id": 12, "api": [_api("a", ["x"], ["r"]), _api("b", ["y"], ["s"]), _api("c", ["u", "v"], ["t"])],
          "task": "a, b, c",
          "call": [{"api_name": "a", "parameters": {"x": "1"}, "responses": ["API_call_0"]},
                   {"api_name": "b", "parameters": {"y": "API_call_0"}, "responses": ["API_call_1"]},
                   {"api_name": "c", "parameters": {"u": "API_call_1", "v": "API_call_0"}, "responses": ["API_call_2"]}],
          "field": "Test/Three"}, [7, 8, 9]),
    ]


def write_lines(path: Path, rows) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def make_dataset(folder: Path, items=None, ids_rows=None) -> Path:
    items = make_items() if items is None else items
    write_lines(folder / "test_data.jsonl", [rec for rec, _ in items])
    rows = ids_rows if ids_rows is not None else [{"test_id": rec["test_id"], "api_ids": ids} for rec, ids in items]
    write_lines(folder / "test_api_ids.jsonl", rows)
    return folder / "test_data.jsonl"


def read_items(path: Path, **kw):
    return list(FMT.read(path, silent(), **kw).items)


def jsonl_values(path: Path) -> list:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def export_items(items, gold_for=None):
    gold_for = gold_for or {}
    return [ExportItem(i.record_id, i.raw, gold_for.get(i.record_id, i.gold), i.gold, payload=i.payload) for i in items]


def test_reads_items_with_api_ids_depth_and_fields(tmp_path):
    items = read_items(make_dataset(tmp_path))
    assert [i.record_id for i in items] == ["10", "11", "12"]
    assert [i.depth for i in items] == [1, 2, 3]
    assert [i.payload["api_ids"] for i in items] == [[7], [7, 8], [7, 8, 9]]
    first = items[0]
    assert first.kind == "call_chain"
    assert first.question == "do a"
    assert first.domain == "Test/One"
    assert first.gold == [{"api_name": "a", "parameters": {"x": "1"}, "responses": ["API_call_0"]}]
    assert first.payload["apis"][0]["api_name"] == "a"
    assert first.source_line == 1 and first.source_file.endswith("test_data.jsonl")


def test_import_reports_progress_and_stops_when_cancelled(tmp_path):
    data = make_dataset(tmp_path)
    seen = []
    ctx = JobContext(seen.append)
    assert len(list(FMT.read(data, ctx).items)) == 3
    assert (seen[-1].done, seen[-1].total) == (3, 3)
    ctx = JobContext()
    items = FMT.read(data, ctx).items
    next(items)
    ctx.cancel()
    with pytest.raises(Cancelled):
        next(items)


def test_progress_while_reading_says_about_how_many_items_the_file_holds(tmp_path):
    """Every 200 lines the reader estimates the file's items from the bytes read so far (a
    progress bar's total, said "about", rounded to three figures); at the end, the count."""
    from tests.store import records as R

    data = R.nestools_like(tmp_path / "s", 1000)
    seen = []
    assert len(list(FMT.read(data, JobContext(seen.append)).items)) == 1000
    estimates = [(p.done, p.total) for p in seen[:-1]]
    assert [done for done, _ in estimates] == [200, 400, 600, 800, 1000]
    assert all(900 <= total <= 1100 and total >= done for done, total in estimates), estimates
    assert seen[1].message == f"400 of about {seen[1].total:,} NesTools items read"
    assert (seen[-1].done, seen[-1].total, seen[-1].message) == (1000, 1000, "1,000 NesTools items read")


def test_folder_in_repository_layout_finds_the_ids_file(tmp_path):
    data = make_dataset(tmp_path / "data")
    ids = tmp_path / "inference" / "build_test_prompt" / "test_api_ids.jsonl"
    ids.parent.mkdir(parents=True)
    (tmp_path / "data" / "test_api_ids.jsonl").rename(ids)
    parsed = FMT.read(tmp_path, silent())
    assert parsed.dataset.name == tmp_path.name
    assert len(list(parsed.items)) == 3
    assert FMT.detect(tmp_path) and FMT.detect(data)


def test_ids_file_given_as_second_path(tmp_path):
    make_dataset(tmp_path / "a")
    other = tmp_path / "elsewhere" / "ids.jsonl"
    other.parent.mkdir()
    (tmp_path / "a" / "test_api_ids.jsonl").rename(other)
    items = read_items(tmp_path / "a" / "test_data.jsonl", api_ids=other)
    assert items[2].payload["api_ids"] == [7, 8, 9]


def test_round_trip_is_value_equal_and_edited_gold_replaces_call_in_place(tmp_path):
    src = make_dataset(tmp_path / "src")
    parsed = FMT.read(src, silent())
    items = list(parsed.items)
    out = tmp_path / "out"
    files = FMT.write(parsed.dataset, export_items(items), out, silent())
    assert [f.name for f in files] == ["test_data.jsonl", "test_api_ids.jsonl"]
    assert jsonl_values(out / "test_data.jsonl") == jsonl_values(src)
    assert jsonl_values(out / "test_api_ids.jsonl") == jsonl_values(tmp_path / "src" / "test_api_ids.jsonl")

    new_gold = [{"api_name": "a", "parameters": {"x": "2"}, "responses": ["API_call_0"]}]
    FMT.write(parsed.dataset, export_items(items, {"10": new_gold}), out, silent())
    rows = jsonl_values(out / "test_data.jsonl")
    assert rows[0]["call"] == new_gold
    assert list(rows[0]) == ["test_id", "api", "task", "call", "field"]  # key order kept
    assert rows[1:] == jsonl_values(src)[1:]


def test_write_rejects_a_malformed_edited_gold(tmp_path):
    parsed = FMT.read(make_dataset(tmp_path / "src"), silent())
    items = list(parsed.items)
    bad = [{"api_name": "a", "parameters": ["x"], "responses": []}]
    with pytest.raises(InputError, match=r"record '10'.*\$\.call\[0\]\.parameters: expected an object"):
        FMT.write(parsed.dataset, export_items(items, {"10": bad}), tmp_path / "out", silent())


def error_of(path: Path, **kw) -> str:
    with pytest.raises(InputError) as exc:
        read_items(path, **kw)
    return str(exc.value)


def test_truncated_line_names_file_and_line(tmp_path):
    data = make_dataset(tmp_path)
    lines = data.read_text().splitlines()
    data.write_text(lines[0] + "\n" + lines[1][:40] + "\n")
    msg = error_of(data)
    assert "test_data.jsonl: line 2" in msg and "truncated" in msg


def test_wrong_type_names_line_and_json_path(tmp_path):
    items = make_items()
    items[1][0]["call"][1]["parameters"] = "y=API_call_0"
    msg = error_of(make_dataset(tmp_path, items))
    assert "test_data.jsonl: line 2, $.call[1].parameters: expected an object, got a string" in msg


def test_missing_ids_file_says_where_it_looked(tmp_path):
    data = make_dataset(tmp_path)
    (tmp_path / "test_api_ids.jsonl").unlink()
    with pytest.raises(InputError, match=r"test_api_ids\.jsonl not found \(looked for .*inference/build_test_prompt"):
        FMT.read(data, silent())


def test_duplicate_test_id_names_both_lines(tmp_path):
    items = make_items()
    items[2][0]["test_id"] = 10
    msg = error_of(make_dataset(tmp_path, items))
    assert "line 3, $.test_id: duplicate test_id '10' (first on line 1)" in msg


def test_ids_file_with_fewer_lines(tmp_path):
    items = make_items()
    rows = [{"test_id": rec["test_id"], "api_ids": ids} for rec, ids in items][:2]
    msg = error_of(make_dataset(tmp_path, items, rows))
    assert "test_api_ids.jsonl: has fewer records than test_data.jsonl: none for test_id 12 (test_data.jsonl line 3)" in msg


def test_ids_file_with_more_lines(tmp_path):
    items = make_items()
    rows = [{"test_id": rec["test_id"], "api_ids": ids} for rec, ids in items] + [{"test_id": 13, "api_ids": []}]
    msg = error_of(make_dataset(tmp_path, items, rows))
    assert "test_api_ids.jsonl: line 4: has more records than test_data.jsonl" in msg


def test_ids_line_for_another_test_id(tmp_path):
    items = make_items()
    rows = [{"test_id": rec["test_id"], "api_ids": ids} for rec, ids in items]
    rows[1], rows[2] = rows[2], rows[1]
    msg = error_of(make_dataset(tmp_path, items, rows))
    assert "test_api_ids.jsonl: line 2, $.test_id: test_id 12 where test_data.jsonl line 2 has 11" in msg


def test_ids_count_must_match_the_apis(tmp_path):
    items = make_items()
    rows = [{"test_id": rec["test_id"], "api_ids": ids} for rec, ids in items]
    rows[1]["api_ids"] = [7]
    msg = error_of(make_dataset(tmp_path, items, rows))
    assert "line 2, $.api_ids: 1 api ids for the 2 apis of test_id 11" in msg


# ---- predictions -------------------------------------------------------------------------


def test_predictions_read_text_errors_and_prompt(tmp_path):
    pred = write_lines(tmp_path / "model-x" / "raw_response.jsonl", [
        {"test_id": 10, "prompt": "P", "response": "[{\"api_name\": \"a\"}]"},
        {"test_id": 11, "response": -1},
    ])
    parsed = PRED.read(pred.parent, silent())
    outs = list(parsed.outputs)
    assert parsed.run.name == "model-x"
    assert [(o.record_id, o.status, o.text) for o in outs] == [("10", "ok", "[{\"api_name\": \"a\"}]"), ("11", "error", None)]
    assert outs[0].extra == {"prompt": "P"} and outs[1].error
    assert PRED.detect(pred) and PRED.detect(pred.parent)


@pytest.mark.parametrize(
    "row, expected",
    [
        ({"test_id": 10}, "line 2, $.response: missing"),
        ({"test_id": 10, "response": 3}, "line 2, $.response: expected the model's text or -1, got 3"),
        ({"test_id": 10, "response": {"a": 1}}, "line 2, $.response: expected a string or an integer, got an object"),
        ({"test_id": 9, "response": "x"}, "line 2, $.test_id: duplicate test_id '9' (first on line 1)"),
    ],
)
def test_prediction_errors(tmp_path, row, expected):
    pred = write_lines(tmp_path / "raw_response.jsonl", [{"test_id": 9, "response": "x"}, row])
    with pytest.raises(InputError) as exc:
        list(PRED.read(pred, silent()).outputs)
    assert expected in str(exc.value)


# ---- sample data ---------------------------------------------------------------------------


def test_sample_data_imports_with_both_prediction_files():
    folder = DATA_DIR / "nestools"
    assert find_dataset_format(folder / "test_data.jsonl").name == "nestools"
    items = read_items(folder / "test_data.jsonl")
    assert len(items) == 6
    assert {i.depth for i in items} == {1, 2, 3}
    ids = {i.record_id for i in items}
    for model in ("chainsmith-8b", "tiny-planner-1b"):
        path = folder / "predictions" / model / "raw_response.jsonl"
        assert find_run_format(path).name == "nestools-predictions"
        outs = list(PRED.read(path, silent()).outputs)
        assert {o.record_id for o in outs} == ids
    errors = [o for o in PRED.read(folder / "predictions" / "tiny-planner-1b", silent()).outputs if o.status == "error"]
    assert [o.record_id for o in errors] == ["3"]


# ---- reference data ------------------------------------------------------------------------


def refdata(*parts: str) -> Path:
    path = REFDATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"reference data not available: ../shared/refdata/NesTools/{'/'.join(parts)} not found")
    return path


@pytest.mark.refdata
def test_refdata_thousand_items_with_api_ids_round_trip_equal(tmp_path):
    root = refdata()
    parsed = FMT.read(root, silent())
    items = list(parsed.items)
    assert len(items) == 1000
    assert all(len(i.payload["api_ids"]) == len(i.payload["apis"]) for i in items)
    assert items[0].payload["api_ids"] == [9031, 10894, 1163]
    assert {i.depth for i in items} >= {1, 2, 3}
    FMT.write(parsed.dataset, export_items(items), tmp_path, silent())
    assert jsonl_values(tmp_path / "test_data.jsonl") == jsonl_values(root / "data" / "test_data.jsonl")
    ids_src = root / "inference" / "build_test_prompt" / "test_api_ids.jsonl"
    assert jsonl_values(tmp_path / "test_api_ids.jsonl") == jsonl_values(ids_src)


@pytest.mark.refdata
@pytest.mark.parametrize("run", ["perfect", "mixed"])
def test_refdata_predictions_attach_to_items(run):
    items = read_items(refdata("data", "test_data.jsonl"))
    outs = list(PRED.read(refdata("_synthetic", "predictions", run, "raw_response.jsonl"), silent()).outputs)
    assert len(outs) == 1000
    assert {o.record_id for o in outs} == {i.record_id for i in items}
    failed = sum(o.status == "error" for o in outs)
    assert failed == (0 if run == "perfect" else 10)
