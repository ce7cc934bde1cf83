"""The diff on real benchmark data: NesTools gold call chains against the
synthetic model outputs kept under ../shared/refdata/NesTools/_synthetic."""

import json

import pytest

from reviewer.jsondiff import DiffOptions, align, diff
from tests.conftest import refdata

# Calls are matched by API name, as a reviewer comparing call chains would set it.
OPTIONS = DiffOptions(list_keys={"$[*]": "api_name"})


def calls_by_test(kind: str) -> tuple[dict, dict]:
    gold_file = refdata("NesTools", "data", "test_data.jsonl")
    predictions = refdata("NesTools", "_synthetic", "predictions", kind, "raw_response.jsonl")
    gold = {}
    for line in gold_file.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        gold[item["test_id"]] = [{"api_name": c["api_name"], "parameters": c["parameters"]} for c in item["call"]]
    predicted = {}
    for line in predictions.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        try:
            calls = json.loads(record["response"])
        except (TypeError, ValueError):
            continue  # failed call (-1) or text that is not plain JSON
        if isinstance(calls, list) and all(isinstance(c, dict) for c in calls):
            predicted[record["test_id"]] = [
                {"api_name": c.get("api_name"), "parameters": c.get("parameters")} for c in calls
            ]
    return gold, predicted


def resolve(document, path):
    for part in path:
        document = document[part]
    return document


@pytest.mark.refdata
def test_perfect_predictions_have_no_differences():
    gold, predicted = calls_by_test("perfect")
    assert len(predicted) > 100
    for test_id, calls in predicted.items():
        assert diff(gold[test_id], calls, OPTIONS) == [], test_id


@pytest.mark.refdata
def test_mixed_predictions_differences_point_at_real_nodes():
    gold, predicted = calls_by_test("mixed")
    differing = 0
    for test_id, calls in predicted.items():
        changes = diff(gold[test_id], calls, OPTIONS)
        differing += bool(changes)
        for c in changes:
            if c.left_path is not None:
                assert resolve(gold[test_id], c.left_path) == c.left
            if c.right_path is not None:
                assert resolve(calls, c.right_path) == c.right
        doc = align(gold[test_id], calls, changes)
        assert json.loads(doc.left_text()) == gold[test_id]
        assert json.loads(doc.right_text()) == calls
        assert (doc.change_rows() != []) == bool(changes)
    assert 0 < differing < len(predicted)
