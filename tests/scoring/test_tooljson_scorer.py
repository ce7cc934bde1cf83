"""toolJSON scoring: official metrics with their quirks, the fixed mode, code runs, aggregation.

Small cases are built here; the refdata test replays the official evaluation
record by record and the official aggregation workbook.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reviewer.scoring.base import ScoringItem, ScoringOutput
from reviewer.scoring.registry import scorer_for, scorer_named
from reviewer.scoring.tooljson import CODE_EXECUTION_ERROR, ToolJsonScorer, extract_code, metric_name

REFDATA = Path(__file__).resolve().parents[2].parent / "shared" / "refdata" / "toolJSONprocessing"
RESULTS = REFDATA / "_synthetic" / "experimental_scripts" / "results"

RESPONSE = {"filings": [{"formType": "10-K", "size": 1200}, {"formType": "8-K", "size": 300},
                        {"formType": "10-K", "size": 50}]}


def item(gold, task_type="EXTRACTIVE", metric=None, uid="u1", endpoint="filings"):
    payload = {"app": "sec", "endpoint": endpoint}
    if metric:
        payload["exact_match_metric"] = metric
    return ScoringItem(uid, "tool_qa", gold, raw={"question": "q?"}, payload=payload,
                       context=json.dumps(RESPONSE), category=task_type)


def score(gold, pred, mode="faithful", task_type="EXTRACTIVE", text=None, setup="direct_prompting"):
    return scorer_for("tool_qa").score(item(gold, task_type), ScoringOutput(text, pred, {"setup_type": setup}), mode)


def test_registry_finds_the_scorer_by_kind_and_name():
    assert isinstance(scorer_for("tool_qa"), ToolJsonScorer)
    assert scorer_named("tooljson").kind == "tool_qa"


def test_metric_follows_payload_then_repr_metrics_then_task_type():
    assert metric_name(item("x", "FILTERING", metric="accuracy_string")) == "accuracy_string"
    it = item("x", "EXTRACTIVE")
    it.raw["metrics"] = "{'exact_match_metric': 'approx_number_match', 'exact_match': None}"
    assert metric_name(it) == "approx_number_match"
    assert metric_name(item("x", "FILTERING")) == "unordered_list_str_match"
    assert metric_name(item("x", "AGGREGATION")) == "approx_number_match"


@pytest.mark.parametrize("gold,pred,exact,contains", [
    ("ARS", "ars.", True, True),
    ("ARS", "  ARS  ", True, True),
    ("2023-03-16", "The answer is 2023-03-16.", False, True),
    ("v2.", "it is v2.", False, False),  # contains drops one trailing "." from the prediction only
    ("Men's", "I don't know", False, False),
])
def test_accuracy_string(gold, pred, exact, contains):
    res = score(gold, pred)
    assert (res.metrics["exact_match"], res.metrics["contains"]) == (exact, contains)
    assert res.metrics["contains_or_exact"] == (exact or contains)


@pytest.mark.parametrize("gold,pred,exact", [
    ("Black, Gray/Black", "Gray/Black, Black, Black", True),  # order and duplicates ignored
    ("a, b", "A, B.", True),
    ("a, b", "a; b", False),  # split on "," only
    ("a, b", "a, b, c", False),
])
def test_unordered_list(gold, pred, exact):
    assert score(gold, pred, task_type="FILTERING").metrics["exact_match"] is exact


@pytest.mark.parametrize("gold,pred,exact", [
    ("8", "$8.5", True),
    ("1", "2", False),  # strictly within 1
    ("0", "0.", True),
    ("5", "between 2 and 5.4", True),  # any number in the prediction
    ("1234", "1,234", False),  # comma quirk: read as 1 and 234
    ("0", "about .5 units", True),  # ".5" is a number, as in the original pattern
    ("1000", "1e3", True),
])
def test_approx_number_faithful(gold, pred, exact):
    assert score(gold, pred, task_type="AGGREGATION").metrics["exact_match"] is exact


def test_comma_numbers_are_understood_in_fixed_mode_only():
    assert score("1234", "1,234", task_type="AGGREGATION").passed is False
    assert score("1234", "1,234", "fixed", task_type="AGGREGATION").passed is True


def test_numbers_compare_as_numbers_in_fixed_mode():
    assert score("8.50", 8.5).passed is False
    assert score("8.50", 8.5, "fixed").passed is True
    assert score("1234", "1,234.", "fixed").passed is True
    assert score("ARS", "ars", "fixed").passed is True  # text still compares as text


def test_gold_without_number_is_noted_not_raised():
    res = score("none", "3", task_type="AGGREGATION")
    assert res.passed is False
    assert any("contains no number" in n and "raises" in n for n in res.notes)


def test_str_only_quirk_and_its_fix():
    faithful = score("8", 8, task_type="AGGREGATION")
    assert faithful.metrics["exact_match"] is False and faithful.metrics["contains"] is False
    assert any("str-only quirk" in n for n in faithful.notes)
    assert score("8", 8, "fixed", task_type="AGGREGATION").passed is True
    assert score("8", 8.0, "fixed", task_type="EXTRACTIVE").passed is True
    assert score("a, b", ["b", "a"], "fixed", task_type="FILTERING").passed is True


def test_dropping_rule():
    res = score("8", None, text=None)
    assert res.skipped and res.passed is None
    # The string "None" is a string for the original scorer, missing for the fixed one.
    assert not score("8", "None", text="None").skipped
    assert score("8", "None", "fixed", text="None").skipped


def test_aggregate_per_task_type_endpoint_and_overall():
    sc = scorer_for("tool_qa")
    rows = [("ARS", "ARS", "EXTRACTIVE", "e1"), ("ARS", "the ARS form", "EXTRACTIVE", "e1"),
            ("3", "4", "AGGREGATION", "e2"), ("3", None, "AGGREGATION", "e2")]
    pairs = []
    for n, (gold, pred, tt, ep) in enumerate(rows):
        it = item(gold, tt, uid=f"u{n}", endpoint=ep)
        pairs.append((it, sc.score(it, ScoringOutput(None, pred))))
    agg = sc.aggregate(pairs)
    assert agg["dropped"] == 1
    assert agg["overall"]["samples"] == 3
    assert agg["overall"]["exact_match"] == pytest.approx(1 / 3)
    assert agg["overall"]["contains"] == pytest.approx(2 / 3)  # contains OR exact
    assert agg["by_task_type"]["EXTRACTIVE"]["exact_match"] == 0.5
    assert agg["by_endpoint"]["sec_e2"]["samples"] == 1


def test_code_extraction():
    assert extract_code("Here:\n```python\ndef f(d):\n    return 1\n```\nbye") == "def f(d):\n    return 1\n"
    assert extract_code("sure! def f(d): return 2").startswith("def f(d)")
    assert extract_code("no code here") is None


def test_generated_code_runs_in_the_sandbox_on_the_response():
    text = ("```python\ndef count_10k(api_response):\n"
            "    return str(sum(1 for f in api_response['filings'] if f['formType'] == '10-K'))\n```")
    res = score("2", None, task_type="AGGREGATION", text=text, setup="code_generation")
    assert res.passed is True
    assert any("sandbox" in n for n in res.notes)


def test_generated_code_returning_an_int_fails_faithfully_and_passes_fixed():
    text = "def total(api_response):\n    return sum(f['size'] for f in api_response['filings'])\n"
    assert score("1550", None, task_type="AGGREGATION", text=text, setup="code_generation").passed is False
    assert score("1550", None, "fixed", task_type="AGGREGATION", text=text, setup="code_generation").passed is True


def test_broken_or_hostile_code_scores_as_code_execution_error():
    for body in ("    return api_response['nope']\n", "    import os\n    os.fork()\n"):  # fork: refused by the sandbox
        res = score("2", None, text="def f(api_response):\n" + body, setup="code_generation_schema")
        assert res.passed is False
        assert f"scored prediction: {CODE_EXECUTION_ERROR!r}" in res.notes[0]
        assert any(n.startswith("code execution error:") for n in res.notes)


def test_score_many_runs_code_in_parallel_with_the_same_results():
    sc = scorer_for("tool_qa")
    good = "def f(api_response):\n    return str(len(api_response['filings']))\n"
    outputs = [ScoringOutput(good, None, {"setup_type": "code_generation"}),
               ScoringOutput("no code", None, {"setup_type": "code_generation"}),
               ScoringOutput(None, "3", {"setup_type": "code_generation"}),
               ScoringOutput(None, None, {"setup_type": "code_generation"})]
    pairs = [(item("3", "AGGREGATION", uid=f"u{n}"), out) for n, out in enumerate(outputs)]
    batch = sc.score_many(pairs)
    single = [sc.score(it, out) for it, out in pairs]
    assert [r.metrics for r in batch] == [r.metrics for r in single]
    assert [r.passed for r in batch] == [True, False, True, None]
    assert batch[3].skipped


def test_response_that_is_not_json_is_a_code_execution_error():
    it = item("3", "AGGREGATION")
    it.context = "{not json"
    res = scorer_for("tool_qa").score(it, ScoringOutput("def f(r):\n    return '3'\n", None,
                                                        {"setup_type": "code_generation"}))
    assert res.passed is False
    assert any("tool response is not JSON" in n for n in res.notes)


@pytest.mark.refdata
def test_refdata_every_record_matches_the_official_evaluation():
    if not RESULTS.is_dir():
        pytest.skip(f"../shared/refdata/toolJSONprocessing not found at {RESULTS}")
    sc = scorer_for("tool_qa")
    evaluations = sorted((RESULTS / "evaluation").glob("*_eval_woLLM.json"))
    assert len(evaluations) == 2
    totals = {}
    for ev_path in evaluations:
        pred_path = RESULTS / "predictions" / ev_path.name.replace("_eval_woLLM", "_predictions")
        official = json.loads(ev_path.read_text())
        predictions = json.loads(pred_path.read_text())
        pairs = []
        for off, rec in zip(official, predictions, strict=True):
            assert off["uid"] == rec["uid"]
            it = ScoringItem(rec["uid"], "tool_qa", rec["gold_answer"], raw=rec,
                             payload={"exact_match_metric": rec["metrics"]["exact_match_metric"],
                                      "endpoint": rec["endpoint"]}, category=rec["task_type"])
            res = sc.score(it, ScoringOutput(rec["model_output"], rec["predicted_answer"],
                                             {"setup_type": rec["setup_type"]}))
            assert res.metrics["exact_match"] == off["metrics"]["exact_match"], rec["uid"]
            assert res.metrics["contains"] == off["metrics"]["contains"], rec["uid"]
            pairs.append((it, res))
        agg = sc.aggregate(pairs)
        totals[official[0]["endpoint"]] = (agg["overall"]["samples"], agg["overall"]["exact_match_total"],
                                          agg["overall"]["contains_total"])
    # The official per-endpoint sheet of metric_aggregation/all_results.xlsx.
    openpyxl = pytest.importorskip("openpyxl")
    sheet = openpyxl.load_workbook(RESULTS / "metric_aggregation" / "all_results.xlsx", read_only=True)["per_endpoint"]
    rows = list(sheet.iter_rows(values_only=True))
    header = rows[0]
    for row in rows[1:]:
        if row[0] is None:
            continue
        rec = dict(zip(header, row))
        assert totals[rec["task"]] == (rec["total_samples"], rec["total_exact_match"], rec["total_contains"])
