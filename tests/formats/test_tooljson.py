"""toolJSONprocessing folders and prediction files: reading, round trip, edits, errors.

Fixtures are small folders the tests build; the refdata tests at the end read
../shared/refdata when it is there.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reviewer.errors import InputError
from reviewer.formats.base import ExportItem, blob_hash
from reviewer.formats.tooljson import ToolJsonDataset, ToolJsonPredictions, response_text
from reviewer.jobs import JobContext, silent
from reviewer.samples import DATA_DIR
from tests.conftest import REFDATA, refdata

APP, EP = "shop.example.com", "search?"
Q1 = '"product_name": "Boot", "country": "us"'
Q2 = '"product_name": "Sandal", "country": "us"'
Q_UNUSED = '"product_name": "Clog", "country": "us"'
RESP_FILE = f"api_responses/{APP}_{EP}.json"
SCHEMA_FILE = f"schemas/{APP}_{EP}_schema.txt"
SCHEMA_TEXT = '\n    {\n        "type": "object",\r\n        "properties": {"data": {"type": "array"}}\n    }\n'

DATASET = ToolJsonDataset()
PREDS = ToolJsonPredictions()


def responses() -> dict:
    return {
        APP: {
            EP: {
                Q1: {"status": "OK", "data": [{"id": "b1", "price": 80.5, "name": "Trail Boot"}, {"id": "b2", "price": 120, "name": "Ranch Boot"}]},
                Q2: {"status": "OK", "data": [{"id": "s1", "price": 25, "name": "Beach Sandal ☀"}]},
                Q_UNUSED: {"status": "OK", "data": []},
            }
        }
    }


def qa(uid: str, gold: str = "Trail Boot", query: str = Q1, task_type: str = "EXTRACTIVE", **kw) -> dict:
    rec = {
        "uid": uid,
        "question": f"Question {uid}?",
        "gold_answer": gold,
        "api_response_path": RESP_FILE,
        "api_response_schema": SCHEMA_FILE,
        "app": APP,
        "endpoint": EP,
        "api_query": query,
        "task": "GetName",
        "task_type": task_type,
        "predicted_answer": None,
        "model_output": None,
        "code_exec_status": None,
        "metrics": {"exact_match_metric": "accuracy_string", "exact_match": None, "contains": None, "llm_as_a_judge": None},
    }
    rec.update(kw)
    return rec


def default_records() -> list[dict]:
    return [
        qa("T_1"),
        # Quirks some files carry: Python repr strings instead of JSON values.
        qa("T_2", gold="b1, b2", task_type="FILTERING", predicted_answer="None", model_output="None",
           metrics="{'exact_match_metric': 'unordered_list_str_match', 'exact_match': None}"),
        qa("T_3", gold="25", query=Q2, task_type="AGGREGATION", metrics={}),
    ]


def make_folder(root: Path, records: list | None = None, resp: dict | None = None, qa_text: str | None = None) -> Path:
    """A dataset folder with one QA file, one response file (one query unused) and one schema."""
    for d in ("qa_pairs", "api_responses", "schemas"):
        (root / d).mkdir(parents=True, exist_ok=True)
    qa_path = root / f"qa_pairs/{APP}_{EP}_qa_pairs.json"
    qa_path.write_text(qa_text if qa_text is not None else json.dumps(records if records is not None else default_records()))
    (root / RESP_FILE).write_text(json.dumps(resp if resp is not None else responses(), indent=4, ensure_ascii=False) + "\n")
    (root / SCHEMA_FILE).write_text(SCHEMA_TEXT, newline="")
    return root


def read(path: Path):
    parsed = DATASET.read(path, silent())
    return parsed.dataset, list(parsed.items)


def export_items(items, edits: dict | None = None) -> list[ExportItem]:
    edits = edits or {}
    return [
        ExportItem(it.record_id, it.raw, edits.get(it.record_id, it.gold), it.gold, it.context, it.schema, it.payload)
        for it in items
    ]


def load_tree(root: Path) -> dict[str, object]:
    """Every file under ``root``: JSON files parsed, other files as text."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file():
            text = p.read_text(encoding="utf-8")
            out[p.relative_to(root).as_posix()] = json.loads(text) if p.suffix == ".json" else text
    return out


# --------------------------------------------------------------------------- reading


def test_reads_one_item_per_record_with_response_and_schema(tmp_path):
    root = make_folder(tmp_path / "data")
    assert DATASET.detect(root)
    dataset, items = read(root)
    assert [it.record_id for it in items] == ["T_1", "T_2", "T_3"]
    first = items[0]
    assert first.kind == "tool_qa"
    assert first.gold == "Trail Boot"
    assert first.question == "Question T_1?"
    assert json.loads(first.context) == responses()[APP][EP][Q1]
    assert first.schema == SCHEMA_TEXT  # exact text, \r\n included
    assert first.category == "EXTRACTIVE" and first.domain == EP
    assert first.payload == {"task": "GetName", "app": APP, "endpoint": EP, "api_query": Q1, "exact_match_metric": "accuracy_string"}
    assert first.source_line == 1 and first.source_file.startswith("qa_pairs/")
    assert json.loads(items[2].context)["data"][0]["name"] == "Beach Sandal ☀"
    # The context text is also the blob the dataset keeps, so the store holds it once.
    assert dataset.blobs[blob_hash(first.context)] == first.context


def test_metric_comes_from_repr_metrics_or_task_type(tmp_path):
    _, items = read(make_folder(tmp_path))
    assert items[1].payload["exact_match_metric"] == "unordered_list_str_match"  # parsed from a repr string
    assert items[2].payload["exact_match_metric"] == "approx_number_match"  # metrics empty: from task_type


def test_items_sharing_a_response_share_one_text(tmp_path):
    records = [qa("A"), qa("B", gold="Ranch Boot")]
    _, items = read(make_folder(tmp_path, records))
    assert items[0].context is items[1].context


def test_response_paths_written_differently_name_one_file(tmp_path):
    records = default_records()
    records[0]["api_response_path"] = f"generate_qa_pairs/data/{RESP_FILE}"  # found by name
    records[1]["api_response_path"] = f"qa_pairs/../{RESP_FILE}"
    dataset, items = read(make_folder(tmp_path / "src", records))
    assert [f["file"] for f in dataset.meta["response_files"]] == [RESP_FILE]
    assert json.loads(items[0].context) == responses()[APP][EP][Q1]
    written = DATASET.write(dataset, export_items(items), tmp_path / "out", silent())
    assert len(written) == 3
    out_qa = json.loads((tmp_path / "out" / f"qa_pairs/{APP}_{EP}_qa_pairs.json").read_text())
    assert out_qa[0]["api_response_path"] == f"generate_qa_pairs/data/{RESP_FILE}"  # kept as written


def test_reading_reports_progress_and_stops_when_cancelled(tmp_path):
    from reviewer.jobs import Cancelled

    seen = []
    ctx = JobContext(seen.append)
    list(DATASET.read(make_folder(tmp_path), ctx).items)
    assert seen[-1].done == seen[-1].total == 3
    ctx = JobContext()
    parsed = DATASET.read(tmp_path, ctx)
    ctx.cancel()
    with pytest.raises(Cancelled):
        list(parsed.items)


# --------------------------------------------------------------------------- writing


def test_round_trip_without_edits_rebuilds_every_file(tmp_path):
    src = make_folder(tmp_path / "src")
    dataset, items = read(src)
    # meta and blobs must survive a trip through JSON (the store keeps them so).
    dataset.meta = json.loads(json.dumps(dataset.meta))
    written = DATASET.write(dataset, export_items(items), tmp_path / "out", silent())
    assert len(written) == 3
    assert load_tree(tmp_path / "out") == load_tree(src)
    # The unused response is there too, and the quirky strings are kept as read.
    out_resp = json.loads((tmp_path / "out" / RESP_FILE).read_text())
    assert Q_UNUSED in out_resp[APP][EP]
    assert (tmp_path / "out" / SCHEMA_FILE).read_bytes() == (src / SCHEMA_FILE).read_bytes()
    # Same layout: the response file was indented by 4, with raw non-ASCII.
    assert (tmp_path / "out" / RESP_FILE).read_text() == (src / RESP_FILE).read_text()


def test_edited_gold_replaces_gold_answer_in_place(tmp_path):
    src = make_folder(tmp_path / "src")
    dataset, items = read(src)
    DATASET.write(dataset, export_items(items, {"T_2": "b1"}), tmp_path / "out", silent())
    qa_name = f"qa_pairs/{APP}_{EP}_qa_pairs.json"
    before = json.loads((src / qa_name).read_text())
    after = json.loads((tmp_path / "out" / qa_name).read_text())
    assert [r["uid"] for r in after] == ["T_1", "T_2", "T_3"]
    assert after[1]["gold_answer"] == "b1"
    assert list(after[1]) == list(before[1])  # same keys, same order
    after[1]["gold_answer"] = before[1]["gold_answer"]
    assert after == before


def test_export_of_a_subset_keeps_order_and_all_responses(tmp_path):
    dataset, items = read(make_folder(tmp_path / "src"))
    DATASET.write(dataset, export_items([items[2], items[0]]), tmp_path / "out", silent())
    after = json.loads((tmp_path / "out" / f"qa_pairs/{APP}_{EP}_qa_pairs.json").read_text())
    assert [r["uid"] for r in after] == ["T_1", "T_3"]
    assert len(json.loads((tmp_path / "out" / RESP_FILE).read_text())[APP][EP]) == 3


# --------------------------------------------------------------------------- bad input


def error_of(root: Path) -> str:
    with pytest.raises(InputError) as exc:
        read(root)
    return str(exc.value)


def test_truncated_qa_file_names_line_and_column(tmp_path):
    text = json.dumps(default_records(), indent=1)
    msg = error_of(make_folder(tmp_path, qa_text=text[: len(text) // 2]))
    assert "_qa_pairs.json" in msg and "line " in msg and "column " in msg and "truncated" in msg


def test_gold_answer_of_wrong_type_names_json_path(tmp_path):
    records = default_records()
    records[1]["gold_answer"] = ["b1", "b2"]
    msg = error_of(make_folder(tmp_path, records))
    assert "record 'T_2'" in msg and "$[1].gold_answer: expected a string, got an array" in msg


def test_missing_field_is_named(tmp_path):
    records = default_records()
    del records[2]["api_query"]
    assert "record 'T_3', $[2]: missing field 'api_query'" in error_of(make_folder(tmp_path, records))


def test_missing_response_file_is_named(tmp_path):
    records = default_records()
    records[0]["api_response_path"] = "api_responses/nope.json"
    msg = error_of(make_folder(tmp_path, records))
    assert "record 'T_1'" in msg and "'api_responses/nope.json' not found" in msg


def test_query_missing_from_responses_is_named(tmp_path):
    records = default_records()
    records[2]["api_query"] = '"product_name": "Mule"'
    msg = error_of(make_folder(tmp_path, records))
    assert "record 'T_3'" in msg and "$[2].api_query" in msg and "'\"product_name\": \"Mule\"' not found" in msg


def test_missing_schema_file_is_named(tmp_path):
    records = default_records()
    records[0]["api_response_schema"] = "schemas/gone.txt"
    assert "schema file 'schemas/gone.txt' not found" in error_of(make_folder(tmp_path, records))


def test_duplicate_uid_names_both_places(tmp_path):
    root = make_folder(tmp_path)
    (root / "qa_pairs" / "z_second_qa_pairs.json").write_text(json.dumps([qa("X_1"), qa("T_2")]))
    msg = error_of(root)
    assert "z_second_qa_pairs.json" in msg and "duplicate uid 'T_2'" in msg
    assert "already used in qa_pairs/shop.example.com_search?_qa_pairs.json at line 1 ($[1])" in msg


def test_response_file_of_wrong_shape_names_json_path(tmp_path):
    msg = error_of(make_folder(tmp_path, resp={APP: {EP: ["not", "an", "object"]}}))
    assert RESP_FILE.split("/")[1] in msg and "$['shop.example.com']['search?']: expected an object, got an array" in msg


def test_folder_without_qa_pairs_is_refused(tmp_path):
    assert not DATASET.detect(tmp_path)
    with pytest.raises(InputError, match="expected a qa_pairs/ folder"):
        read(tmp_path)


# --------------------------------------------------------------------------- predictions


def pred(uid: str, answer, model="acme/m1", setup="direct_prompting", **kw) -> dict:
    rec = {
        "endpoint": f"{APP}_{EP}", "setup_type": setup, "model": model, "uid": uid, "api_response": {},
        "question": "q", "gold_answer": "g", "schema": "''", "task": "GetName", "task_type": "EXTRACTIVE",
        "predicted_answer": answer, "code_exec_status": "", "model_output": f"The answer is {answer}",
        "metrics": {"exact_match_metric": "accuracy_string", "exact_match": None},
    }
    rec.update(kw)
    return rec


def read_preds(path: Path):
    parsed = PREDS.read(path, silent())
    return parsed.run, list(parsed.outputs)


def test_predictions_read_with_model_setup_and_extras(tmp_path):
    path = tmp_path / "run_predictions.json"
    path.write_text(json.dumps([pred("T_1", "Trail Boot"), pred("T_3", 25, code_exec_status="ok")], indent=2))
    assert PREDS.detect(path) and not DATASET.detect(path)
    run, outputs = read_preds(path)
    assert (run.model, run.setup, run.name) == ("acme/m1", "direct_prompting", "run_predictions")
    assert [o.record_id for o in outputs] == ["T_1", "T_3"]
    assert outputs[0].text == "The answer is Trail Boot"
    assert outputs[1].prediction == 25  # a non-string answer stays as it was
    assert outputs[1].extra == {"code_exec_status": "ok", "setup_type": "direct_prompting",
                                "metrics": {"exact_match_metric": "accuracy_string", "exact_match": None}}
    lines = path.read_text().splitlines()
    start = outputs[1].source_line - 1
    assert lines[start] == "  {" and '"uid": "T_3"' in "\n".join(lines[start : start + 5])


@pytest.mark.parametrize("file_name, expected", [
    (f"{APP}_{EP}_acme-m1_direct_prompting_predictions.json", "acme-m1_direct_prompting"),
    ("run_predictions.json", "run_predictions"),  # no endpoint in front: the name is kept whole
    (f"{APP}_{EP}_acme-m1_direct_prompting.json", f"{APP}_{EP}_acme-m1_direct_prompting"),  # no _predictions
    (f"{APP}_{EP}_predictions.json", f"{APP}_{EP}_predictions"),  # nothing left between them
])
def test_run_name_is_model_and_setup_without_endpoint_and_suffix(tmp_path, file_name, expected):
    """The official results are one file per endpoint; the files of one model and setup make one run."""
    path = tmp_path / file_name
    path.write_text(json.dumps([pred("T_1", "Trail Boot")]))
    run, _ = read_preds(path)
    assert run.name == expected
    assert run.meta == {}  # a run spans endpoints: each output's raw record keeps its own
    assert [o.raw["endpoint"] for o in read_preds(path)[1]] == [f"{APP}_{EP}"]


def test_code_exec_status_of_any_type_is_imported_as_read(tmp_path):
    """qa_inference.py stores the generated code's return value in code_exec_status: any JSON type."""
    statuses = [["10-K", "8-K"], 25, 2.5, True, {"k": [1]}, None, "Code execution error"]
    path = tmp_path / "code_predictions.json"
    path.write_text(json.dumps([pred(f"T_{n}", s, setup="code_generation", code_exec_status=s)
                                for n, s in enumerate(statuses)]))
    _, outputs = read_preds(path)
    assert [o.extra["code_exec_status"] for o in outputs] == statuses
    assert [o.prediction for o in outputs] == statuses


def test_repeated_uid_is_a_replication(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps([pred("T_1", "a"), pred("T_1", "b")]))
    _, outputs = read_preds(path)
    assert [(o.record_id, o.replication) for o in outputs] == [("T_1", 0), ("T_1", 1)]


def test_mixed_models_in_one_file_are_refused(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps([pred("T_1", "a"), pred("T_2", "b", model="other/m2")]))
    with pytest.raises(InputError, match=r"record 'T_2', \$\[1\]\.model: model 'other/m2' differs"):
        read_preds(path)


def test_bad_prediction_files_are_named(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps([pred("T_1", "a")])[:-20])
    with pytest.raises(InputError, match="line 1, column .*truncated"):
        read_preds(path)
    path.write_text(json.dumps([pred("T_1", "a", model_output=["x"])]))
    with pytest.raises(InputError, match=r"\$\[0\]\.model_output: expected a string or null"):
        read_preds(path)


# --------------------------------------------------------------------------- shipped sample data

SAMPLE = DATA_DIR / "tooljson"


def test_sample_data_imports_and_predictions_attach():
    dataset, items = read(SAMPLE)
    assert 5 <= len(items) <= 10
    assert {it.category for it in items} == {"EXTRACTIVE", "FILTERING", "AGGREGATION"}
    golds = {it.record_id: it.gold for it in items}
    pred_files = sorted((SAMPLE / "predictions").glob("*.json"))
    assert len(pred_files) == 2
    models = set()
    for p in pred_files:
        run, outputs = read_preds(p)
        models.add(run.model)
        assert {o.record_id for o in outputs} <= set(golds)
        right = [o for o in outputs if o.prediction == golds[o.record_id]]
        assert 0 < len(right) < len(outputs)  # some right, some wrong
    assert len(models) == 2
    size = sum(p.stat().st_size for p in SAMPLE.rglob("*") if p.is_file())
    assert size < 200_000


# --------------------------------------------------------------------------- refdata

TJ = ("toolJSONprocessing", "generate_qa_pairs", "data")
TJ_PREDS = ("toolJSONprocessing", "_synthetic", "experimental_scripts", "results", "predictions")


@pytest.mark.refdata
def test_refdata_reads_495_items_and_round_trips(tmp_path):
    root = refdata(*TJ)
    dataset, items = read(root)
    assert len(items) == 495
    assert {it.category for it in items} == {"EXTRACTIVE", "FILTERING", "AGGREGATION"}
    assert all(it.context and it.schema for it in items)
    DATASET.write(dataset, export_items(items), tmp_path / "out", silent())
    assert load_tree(tmp_path / "out") == load_tree(root)


@pytest.mark.refdata
def test_refdata_predictions_attach_to_known_uids():
    _, items = read(refdata(*TJ))
    uids = {it.record_id for it in items}
    files = sorted(refdata(*TJ_PREDS).glob("*.json"))
    assert files, f"no prediction files under {REFDATA.joinpath(*TJ_PREDS)}"
    total = 0
    for p in files:
        assert PREDS.detect(p)
        run, outputs = read_preds(p)
        assert run.model == "Azure/gpt-4o" and run.setup == "code_generation"
        assert {o.record_id for o in outputs} <= uids
        total += len(outputs)
    assert total == 495


def test_context_text_is_deterministic():
    assert response_text({"b": 1, "a": "é"}) == response_text({"b": 1, "a": "é"}) == '{"b": 1, "a": "é"}'
