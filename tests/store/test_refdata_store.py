"""The reference datasets through the store: counts, and export equal to the originals."""

from __future__ import annotations

import json

import openpyxl
import pytest

from tests.conftest import refdata

pytestmark = pytest.mark.refdata


def _rows(path):
    wb = openpyxl.load_workbook(path, read_only=True)
    ws = wb["sheet1"]
    return [tuple(r) for r in ws.iter_rows(values_only=True)]


def test_tooljson_495_items_round_trip(store, tmp_path):
    root = refdata("toolJSONprocessing", "generate_qa_pairs", "data")
    summary = store.import_dataset(root, format="tooljson", name="tj")
    assert summary.added == 495
    out = tmp_path / "out"
    store.export_dataset("tj", out)
    for original in (root / "qa_pairs").glob("*.json"):
        exported = next(out.rglob(original.name))
        assert json.loads(exported.read_text()) == json.loads(original.read_text())
    item = store.find_item("tj", "SECFilingsTaskList_1")
    assert item.context and json.loads(item.context) and item.category == "EXTRACTIVE"


def test_nestools_1000_items_with_api_ids_round_trip(store, tmp_path):
    data = refdata("NesTools", "data", "test_data.jsonl")
    summary = store.import_dataset(data, format="nestools", name="nt")
    assert summary.added == 1000
    assert store.find_item("nt", "1").payload["api_ids"] == [9031, 10894, 1163]
    out = tmp_path / "out"
    store.export_dataset("nt", out)
    exported = [json.loads(x) for x in next(out.rglob("test_data.jsonl")).read_text().splitlines() if x.strip()]
    assert exported == [json.loads(x) for x in data.read_text().splitlines() if x.strip()]
    run = store.import_run("nt", refdata("NesTools", "_synthetic", "predictions", "mixed", "raw_response.jsonl"))
    assert run.added == 1000


def test_deepjsoneval_525_items_round_trip(store, tmp_path):
    book = refdata("DeepJSONEval", "DeepJSONEval.xlsx")
    summary = store.import_dataset(book, format="deepjson", name="dj")
    assert summary.added == 525
    out = tmp_path / "out"
    store.export_dataset("dj", out)
    assert _rows(next(out.rglob("*.xlsx"))) == _rows(book)
    from reviewer.store import ItemQuery

    ds = store.dataset("dj")
    hard = store.count_items(ItemQuery(dataset_id=ds.id, difficulties=["Hard"]))
    medium = store.count_items(ItemQuery(dataset_id=ds.id, difficulties=["Medium"]))
    assert hard + medium == 525 and hard > 0 and medium > 0
