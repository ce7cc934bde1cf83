"""The official toolJSONprocessing results, one predictions file per endpoint, import as ONE
run per model and setup (file by file, or as a folder); a file of another model, setup or
format is refused from a run it would mix into, and a folder is imported whole or not at all.
On the real reference files (skipped when ../shared is absent)."""

from __future__ import annotations

import json
import shutil

import pytest

from reviewer.errors import InputError, RunMismatch
from tests.conftest import refdata
from tests.store.test_store import snapshot

RUN = "gpt-4o_code_generation"
FILINGS = "last10k-company-v1.p.rapidapi.com_v1_company_filings_gpt-4o_code_generation_predictions.json"
SEARCH = "real-time-product-search.p.rapidapi.com_search?_gpt-4o_code_generation_predictions.json"


@pytest.fixture
def predictions():
    return refdata("toolJSONprocessing", "_synthetic", "experimental_scripts", "results", "predictions")


@pytest.fixture
def dataset(store):
    return store.import_dataset(refdata("toolJSONprocessing", "generate_qa_pairs", "data")).dataset


def _rewritten(src, dst, **fields):
    """A copy of a prediction file with ``fields`` set in every record."""
    records = json.loads(src.read_text(encoding="utf-8"))
    for rec in records:
        rec.update(fields)
    dst.write_text(json.dumps(records, indent=1), encoding="utf-8")
    return dst


def test_the_predictions_folder_is_one_run_covering_every_item(store, dataset, predictions):
    done = store.import_runs(dataset, predictions)
    assert [name for name, _ in done.files] == [FILINGS, SEARCH]  # sorted by name
    [run] = done.runs()
    assert (run.run, run.added, run.unchanged, run.covered, run.dataset_items) == (RUN, 495, 0, 495, 495)
    assert done.describe() == [f"run {RUN!r} of dataset {dataset!r}: 495 outputs added, 0 already present "
                               "(from 2 files)"]
    [info] = store.runs(dataset)
    assert (info.name, info.model, info.setup, info.format, info.outputs) == (
        RUN, "Azure/gpt-4o", "code_generation", "tooljson-predictions", 495)
    # each output keeps its own endpoint; the run spans both
    with store.engine.connect() as conn:
        raw_endpoints = {r[0] for r in conn.exec_driver_sql(
            "select distinct json_extract(raw, '$.endpoint') from output" if store.backend == "sqlite"
            else "select distinct raw->>'endpoint' from output")}
        config = conn.exec_driver_sql("select config from run").scalar()
    assert raw_endpoints == {"last10k-company-v1.p.rapidapi.com_v1_company_filings",
                             "real-time-product-search.p.rapidapi.com_search?"}
    assert config in ({}, "{}")  # no single endpoint claimed for a run that spans two

    again = store.import_runs(dataset, predictions)
    assert [(r.run, r.added, r.unchanged) for r in again.runs()] == [(RUN, 0, 495)]


def test_file_by_file_the_endpoints_add_up_to_one_run(store, dataset, predictions):
    first = store.import_run(dataset, predictions / FILINGS)
    assert (first.run, first.added, first.covered, first.dataset_items) == (RUN, 267, 267, 495)
    second = store.import_run(dataset, predictions / SEARCH)
    assert (second.run, second.added, second.covered) == (RUN, 228, 495)
    assert [r.name for r in store.runs(dataset)] == [RUN]


@pytest.mark.parametrize("change, held, given", [
    ({"model": "Azure/gpt-4o-mini"}, "model 'Azure/gpt-4o'", "model 'Azure/gpt-4o-mini'"),
    ({"setup_type": "direct_prompting"}, "setup 'code_generation'", "setup 'direct_prompting'"),
])
def test_a_file_of_another_model_or_setup_is_refused_from_the_run_and_nothing_is_written(
        store, dataset, predictions, tmp_path, change, held, given):
    store.import_run(dataset, predictions / FILINGS)
    # named as the official files are, so it maps to the same run as the stored one
    other = _rewritten(predictions / SEARCH, tmp_path / SEARCH, **change)
    before = snapshot(store)
    with pytest.raises(RunMismatch) as err:
        store.import_run(dataset, other, name=RUN)
    message = str(err.value)
    assert message.startswith(f"{other}: run {RUN!r} of dataset {dataset!r} already holds ")
    assert held in message and given in message and "--name" in message
    assert snapshot(store) == before
    assert store.run(dataset, RUN).outputs == 267

    # under a name of its own it is imported
    own = store.import_run(dataset, other, name="other")
    assert (own.run, own.added) == ("other", 228)


def test_a_file_of_another_format_is_refused_from_the_run(store, dataset, predictions, tmp_path):
    store.import_run(dataset, predictions / FILINGS)
    jsonl = tmp_path / "outputs.jsonl"
    jsonl.write_text(json.dumps({"run": {"name": RUN, "model": "Azure/gpt-4o", "setup": "code_generation"}}) + "\n"
                     + json.dumps({"id": "SECFilingsTaskList_1", "text": "ARS"}) + "\n")
    before = snapshot(store)
    with pytest.raises(RunMismatch, match="already holds format tooljson-predictions, but this file has format "
                                          "outputs-jsonl; one run holds one model and setup; import the file as "
                                          r"a run of another name \(--name\)$"):
        store.import_runs(dataset, jsonl, name=RUN)
    assert snapshot(store) == before


def test_a_folder_mixing_two_models_into_one_run_writes_nothing(store, dataset, predictions, tmp_path):
    folder = tmp_path / "mixed"
    folder.mkdir()
    shutil.copy(predictions / FILINGS, folder / FILINGS)
    _rewritten(predictions / SEARCH, folder / SEARCH, model="Azure/gpt-4o-mini")
    before = snapshot(store)
    with pytest.raises(RunMismatch) as err:
        store.import_runs(dataset, folder, name=RUN)
    assert str(err.value).startswith(f"{folder / SEARCH}: run {RUN!r}")
    assert f"nothing from {folder} was imported" in str(err.value)
    assert snapshot(store) == before  # not even the first file's outputs


def test_a_bad_file_in_a_folder_is_named_with_its_line_and_nothing_is_written(store, dataset, predictions, tmp_path):
    folder = tmp_path / "preds"
    folder.mkdir()
    shutil.copy(predictions / FILINGS, folder / FILINGS)
    records = json.loads((predictions / SEARCH).read_text(encoding="utf-8"))
    records[3]["uid"] = "NoSuchTask_1"
    (folder / SEARCH).write_text(json.dumps(records, indent=1), encoding="utf-8")
    (folder / "README.md").write_text("how these were made\n")
    before = snapshot(store)
    with pytest.raises(InputError) as err:
        store.import_runs(dataset, folder)
    message = str(err.value)
    assert message.startswith(f"{folder / SEARCH}: line ")
    assert f"id 'NoSuchTask_1' is not an item of dataset {dataset!r}" in message
    assert f"nothing from {folder} was imported (a folder is imported whole or not at all: 2 prediction files)" \
        in message
    assert snapshot(store) == before


def test_files_that_are_not_predictions_are_skipped_and_said(store, dataset, predictions, tmp_path):
    folder = tmp_path / "preds"
    folder.mkdir()
    shutil.copy(predictions / SEARCH, folder / SEARCH)
    (folder / "notes.txt").write_text("gpt-4o, code generation\n")
    done = store.import_runs(dataset, folder)
    assert [name for name, _ in done.files] == [SEARCH] and done.skipped == ["notes.txt"]
    assert done.describe()[-1] == "skipped 1 file(s) that are not predictions for this dataset: notes.txt"


def test_a_folder_without_prediction_files_is_a_clear_error(store, dataset, tmp_path):
    empty = tmp_path / "empty"
    (empty / "sub").mkdir(parents=True)
    with pytest.raises(InputError, match="no prediction file in this folder: it holds no files"):
        store.import_runs(dataset, empty)
    (empty / "notes.txt").write_text("nothing here\n")
    with pytest.raises(InputError, match=r"none of its 1 file\(s\) is a prediction file that answers tooljson "
                                         "datasets; nothing was imported"):
        store.import_runs(dataset, empty)
    with pytest.raises(InputError, match=r"none of its 1 file\(s\) is a prediction file that toolJSONprocessing "
                                         r"predictions \(JSON array\) reads"):
        store.import_runs(dataset, empty, format="tooljson-predictions")
    assert store.runs(dataset) == []
