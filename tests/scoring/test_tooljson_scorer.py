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
    ("1000", "1e3", False),  # the official prediction pattern drops the exponent: 1e3 is read as 1
    ("19", "-19", True),  # ... and the sign
    ("1", "-0.5", True),
    ("9", "0.90e1", False),
    ("-19", "19", False),  # the gold keeps its sign
])
def test_approx_number_faithful(gold, pred, exact):
    assert score(gold, pred, task_type="AGGREGATION").metrics["exact_match"] is exact


@pytest.mark.parametrize("gold,pred,exact", [
    ("19", "-19", False), ("1", "-0.5", False), ("9", "0.90e1", True), ("1000", "1e3", True),
    ("-19", "-19", True), ("1234", "1,234", True),
])
def test_fixed_mode_keeps_sign_exponent_and_separators(gold, pred, exact):
    res = score(gold, pred, "fixed", task_type="AGGREGATION")
    assert res.metrics["exact_match"] is exact


def test_stored_none_prediction_with_code_is_false_faithfully():
    """A prediction file's record with predicted_answer None: the code is not run (officially all False)."""
    code = "def f(r):\n    return '3'\n"
    out = ScoringOutput(code, None, {"setup_type": "code_generation", "code_exec_status": "Code execution error"})
    res = scorer_for("tool_qa").score(item("3"), out)
    assert (res.metrics["exact_match"], res.metrics["contains"]) == (False, False)
    assert res.metrics["code_exec_passed"] is False
    fixed = scorer_for("tool_qa").score(item("3"), out, "fixed")
    assert fixed.metrics["contains"] is True  # fixed mode runs the code in the sandbox


def test_list_match_shortens_the_prediction_contains_reads():
    # officially unordered_list_str_match drops "." from "abc.." before contains drops another one
    res = score("abc.", "abc..", task_type="FILTERING")
    assert res.metrics["contains"] is False
    assert score("abc.", "abc..", "fixed", task_type="FILTERING").metrics["contains"] is True


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
    endpoint_rows, compared = {}, 0
    all_pairs = []
    for ev_path in evaluations:
        pred_path = RESULTS / "predictions" / ev_path.name.replace("_eval_woLLM", "_predictions")
        official = json.loads(ev_path.read_text())
        predictions = json.loads(pred_path.read_text())
        pairs = []
        for off, rec in zip(official, predictions, strict=True):
            assert off["uid"] == rec["uid"]
            it = ScoringItem(rec["uid"], "tool_qa", rec["gold_answer"], raw=rec,
                             payload={"exact_match_metric": rec["metrics"]["exact_match_metric"],
                                      "endpoint": rec["endpoint"]}, category=rec["task_type"],
                             context=json.dumps(rec["api_response"]))
            # as the prediction importer builds it
            res = sc.score(it, ScoringOutput(rec["model_output"], rec["predicted_answer"],
                                             {"setup_type": rec["setup_type"], "metrics": rec["metrics"],
                                              "code_exec_status": rec["code_exec_status"]}))
            for metric in ("exact_match", "contains", "hallucination"):
                assert res.metrics[metric] == off["metrics"][metric], (rec["uid"], metric)
            compared += 1
            pairs.append((it, res))
        all_pairs += pairs
        [row] = sc.aggregate(pairs)["official"]["per_endpoint"].values()
        endpoint_rows[row["task"]] = row
    assert compared == 267 + 228
    # The official workbook metric_aggregation/all_results.xlsx, every column the app reports.
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.load_workbook(RESULTS / "metric_aggregation" / "all_results.xlsx", read_only=True)
    rows = list(book["per_endpoint"].iter_rows(values_only=True))
    checked = 0
    for values in rows[1:]:
        if values[0] is None:
            continue
        official_row, ours = dict(zip(rows[0], values)), endpoint_rows[values[0]]
        for column, value in official_row.items():
            if column in ours:
                assert ours[column] == pytest.approx(value), (values[0], column)
                checked += 1
    assert checked >= 2 * 27
    rows = list(book["per_model_setup"].iter_rows(values_only=True))
    [official_row] = [dict(zip(rows[0], v)) for v in rows[1:] if v[0] == "gpt-4o" and v[1] == "code_generation"]
    ours = sc.aggregate(all_pairs)["official"]["per_model_setup"]
    for column, value in official_row.items():
        if column in ours:
            assert ours[column] == pytest.approx(value), column
    assert ours["total_code_exec_status_accuracy"] == official_row["total_code_exec_status_accuracy"] == 495


def test_aggregate_reports_every_official_figure():
    """code execution totals, hallucination, count_context_exceeded, per endpoint x task type, official rows."""
    sc = scorer_for("tool_qa")
    code = "def f(r):\n    return r['filings'][0]['nope']\n"  # reads a key the response lacks: hallucination
    rows = [  # gold, prediction, status, task type, endpoint
        ("10-K", "10-K", ["10-K"], "EXTRACTIVE", "e1"),
        ("10-K", None, "Code execution error", "EXTRACTIVE", "e1"),
        ("3", "context length exceeded", None, "AGGREGATION", "e1"),
        ("a, b", "b, a", 25, "FILTERING", "e2"),
    ]
    pairs = []
    for n, (gold, pred, status, tt, ep) in enumerate(rows):
        it = item(gold, tt, uid=f"u{n}", endpoint=ep)
        out = ScoringOutput(code, pred, {"setup_type": "code_generation", "code_exec_status": status})
        pairs.append((it, sc.score(it, out)))
    agg = sc.aggregate(pairs)
    assert agg["overall"]["code_exec_status_total"] == 3  # only "Code execution error" fails; a list passes
    assert agg["overall"]["hallucination_total"] == 4 and agg["overall"]["hallucination_decided"] == 4
    assert agg["count_context_exceeded"] == 1
    assert agg["by_endpoint_task_type"]["sec_e1"]["EXTRACTIVE"]["exact_match_total"] == 1
    assert agg["by_endpoint_task_type"]["sec_e2"]["FILTERING"]["exact_match"] == 1.0
    e2 = agg["official"]["per_endpoint"]["sec_e2"]
    assert e2["task"] == "sec_e2"
    assert e2["EXTRACTIVE_total_samples"] == 0 and e2["avg_EXTRACTIVE_exact_match_accuracy"] is None
    assert "total_llm_as_a_judge" not in e2  # no judge ran: no judge figures
    setup = agg["official"]["per_model_setup"]
    assert (setup["total_samples"], setup["total_exact_match_accuracy"], setup["total_code_exec_status_accuracy"]) == (4, 2, 3)
    assert any("count_context_exceeded: 1" in line for line in agg["report_lines"])
    assert any(line.startswith("sec_e1 x EXTRACTIVE: 2 samples") for line in agg["report_lines"])
