"""Gold programs (paper 000): re-run in the real sandbox; drift flagged with both values;
the Fix that takes the program's answer in one action."""

from __future__ import annotations

import json

import pytest

from reviewer import guards
from reviewer.errors import ReviewerError
from reviewer.jobs import silent
from reviewer.store.importing import import_dataset
from tests.store import records as R

RESPONSE = json.dumps({"data": {"attributes": {"result": [
    {"accessionNumber": "0001-23", "formType": "10-K", "filingDate": "2023-02-01T00:00:00"},
    {"accessionNumber": "0001-24", "formType": "8-K", "filingDate": "2023-05-09T00:00:00"},
]}}})

# Written the way toolJSONprocessing's task templates are (generate_qa_pairs/tasks/SEC_filings.py, GetFormType).
FORM_TYPE = '''
def get_answer(api_response):
    for forms in api_response["data"]["attributes"]["result"]:
        if forms["accessionNumber"] == "0001-24":
            return str(forms["formType"])
    return "None"
'''
COUNT = '''
def count_filings(api_response):
    return len(api_response["data"]["attributes"]["result"])
'''
BROKEN = "def f(r):\n    return r['missing']\n"


def tool_item(i, gold, code):
    return R.item(i, gold=gold, context=RESPONSE, payload={"task": "T", "gold_code": code}, category="EXTRACTIVE")


@pytest.fixture
def ds(store):
    items = [tool_item(0, "8-K", FORM_TYPE), tool_item(1, "10-K", FORM_TYPE), tool_item(2, "2", COUNT),
             tool_item(3, "x", BROKEN), R.item(4, gold="8-K", context=RESPONSE)]  # q4: no program
    summary = import_dataset(store.engine, R.dataset(items), silent())
    return summary.dataset_id, {f"q{i}": store.find_item("demo", f"q{i}").id for i in range(5)}


def test_a_program_whose_answer_drifted_is_flagged_with_both_values(store, ds):
    dataset_id, ids = ds
    summary = guards.run_checks(store, dataset_id, guards=["gold_program"])
    assert summary.counts["gold_program"] == {"pass": 2, "fail": 1, "error": 1, "skip": 1}
    view = guards.item_guards(store, dataset_id)
    drift = view[ids["q1"]].results["gold_program"]
    assert drift.status == "fail"
    assert drift.details["program_answer"] == "8-K" and drift.details["gold"] == "10-K"
    assert drift.summary == "gold drift: the program answers '8-K', the stored gold is '10-K'"
    assert view[ids["q2"]].results["gold_program"].status == "pass"  # 2 (int) reads as the gold "2"
    broken = view[ids["q3"]].results["gold_program"]
    assert broken.status == "error" and "KeyError" in broken.summary


def test_the_fix_takes_the_programs_answer_in_one_action(store, ds):
    dataset_id, ids = ds
    guards.run_checks(store, dataset_id, guards=["gold_program"])
    with pytest.raises(ReviewerError, match="no gold drift"):
        guards.fix_from_program(store, ids["q0"], "alice")
    version = guards.fix_from_program(store, ids["q1"], "alice")
    item = store.item(ids["q1"])
    assert item.gold == "8-K" and item.version == version and item.original_gold == "10-K"
    assert store.history("item", ids["q1"])[-1].after["reason"].startswith("fix: take the gold program's answer")
    assert guards.item_guards(store, dataset_id)[ids["q1"]].results["gold_program"].status == "pass"
    again = guards.run_checks(store, dataset_id, guards=["gold_program"])
    assert again.recomputed == 0  # the stored pass matches the new gold: nothing to re-run


def test_a_changed_gold_makes_the_program_result_stale_and_holds_release(store, ds):
    dataset_id, ids = ds
    guards.run_checks(store, dataset_id, guards=["gold_program"])
    item = store.item(ids["q0"])
    store.set_gold(ids["q0"], "8-K (amended)", "bob", item.version)
    view = guards.item_guards(store, dataset_id, [ids["q0"]])[ids["q0"]]
    assert view.stale == {"gold_program"} and view.blocking() == ["gold_program"]
    with pytest.raises(ReviewerError, match="changed since the program ran"):
        guards.fix_from_program(store, ids["q0"], "alice")
    reasons = guards.release_reasons(store, dataset_id)
    assert reasons[ids["q0"]] == ["guard not re-run since the item changed: Gold program"]
    guards.run_checks(store, dataset_id, guards=["gold_program"])
    assert guards.release_reasons(store, dataset_id)[ids["q0"]] == ["guard failed: Gold program"]


def test_programs_run_in_the_sandbox_not_in_the_app(store, tmp_path):
    marker = tmp_path / "written-by-gold-code"
    evil = f"def f(r):\n    open({str(marker)!r}, 'w').write('x')\n    return 'done'\n"
    summary = import_dataset(store.engine, R.dataset([tool_item(0, "done", evil)]), silent())
    guards.run_checks(store, summary.dataset_id, guards=["gold_program"])
    [view] = guards.item_guards(store, summary.dataset_id).values()
    assert view.results["gold_program"].status == "error"
    assert not marker.exists()


def test_after_import_runs_only_when_items_carry_programs(store, ds):
    dataset_id, _ = ds
    summary = guards.after_import(store, dataset_id)
    assert summary.counts["gold_program"]["fail"] == 1
    plain = import_dataset(store.engine, R.dataset([R.item(0)], name="plain"), silent())
    assert guards.after_import(store, plain.dataset_id) is None


def test_cli_import_of_a_tooljson_folder_reruns_its_gold_programs(tmp_path, capsys):
    from reviewer.cli import main

    root = tmp_path / "tj"
    for d in ("qa_pairs", "api_responses", "schemas"):
        (root / d).mkdir(parents=True)
    (root / "api_responses" / "sec_filings.json").write_text(
        json.dumps({"sec": {"filings": {'{"identifier": "JNJ"}': json.loads(RESPONSE)}}}))
    (root / "schemas" / "sec_filings_schema.txt").write_text('{"type": "object"}')
    base = {"api_response_path": "api_responses/sec_filings.json",
            "api_response_schema": "schemas/sec_filings_schema.txt", "app": "sec", "endpoint": "filings",
            "api_query": '{"identifier": "JNJ"}', "task": "GetFormType", "task_type": "EXTRACTIVE",
            "question": "What is the form type of filing 0001-24?", "gold_code": FORM_TYPE}
    records = [dict(base, uid="a", gold_answer="8-K"), dict(base, uid="b", gold_answer="10-Q")]
    (root / "qa_pairs" / "sec_filings_qa_pairs.json").write_text(json.dumps(records))
    db = str(tmp_path / "db.sqlite3")
    assert main(["--db", db, "import", "dataset", str(root), "--name", "sec"]) == 0
    assert "gold programs re-run: 1 agree with the gold, 1 drifted, 0 failed to run" in capsys.readouterr().out
    assert main(["--db", db, "check", "sec", "--guard", "gold_program"]) == 0
    assert "b: gold drift: the program answers '8-K', the stored gold is '10-Q'" in capsys.readouterr().out
