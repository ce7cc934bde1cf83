"""The NesTools scorer reproduces the official evaluation tables on the synthetic runs.

Reads ../shared/refdata/NesTools: the test set, the api ids, two prediction
files ("perfect", "mixed") and the official script's CSV output for each table
(main, depth1/2/345, paraerr, struct0/2/3/7), compared at printed precision.
"""

import csv
import json
from pathlib import Path

import pytest

from reviewer.scoring.base import ScoringItem, ScoringOutput
from reviewer.scoring.nestools import SCORER
from reviewer.scoring.nestools_aggregate import official_row

REFDATA = Path(__file__).resolve().parents[2].parent / "shared" / "refdata" / "NesTools"
pytestmark = pytest.mark.refdata


@pytest.fixture(scope="module")
def items():
    if not (REFDATA / "data" / "test_data.jsonl").exists():
        pytest.skip(f"{REFDATA} not found: the NesTools reference data is not beside the project")
    ids = {}
    with open(REFDATA / "inference" / "build_test_prompt" / "test_api_ids.jsonl", encoding="utf8") as f:
        for line in f:
            record = json.loads(line)
            ids[record["test_id"]] = record["api_ids"]
    out = {}
    with open(REFDATA / "data" / "test_data.jsonl", encoding="utf8") as f:
        for line in f:
            r = json.loads(line)
            payload = {"apis": r["api"], "api_ids": ids[r["test_id"]], "task": r["task"]}
            out[r["test_id"]] = ScoringItem(str(r["test_id"]), "call_chain", r["call"], raw=r, payload=payload)
    return out


def run_pairs(items, run, mode):
    pairs = []
    with open(REFDATA / "_synthetic" / "predictions" / run / "raw_response.jsonl", encoding="utf8") as f:
        for line in f:
            r = json.loads(line)
            failed = r["response"] == -1
            output = ScoringOutput(text=None if failed else r["response"], status="error" if failed else "ok")
            item = items[r["test_id"]]
            pairs.append((item, SCORER.score(item, output, mode)))
    return pairs


def official(table, run):
    with open(REFDATA / "_synthetic" / "evaluation" / f"{table}.csv", encoding="utf8") as f:
        for row in csv.reader(f):
            if row[0].endswith(f"/{run}/raw_response.jsonl"):
                return row[1:]
    raise AssertionError(f"{table}.csv has no row for {run}")


@pytest.mark.parametrize("run", ["perfect", "mixed"])
def test_every_official_table_is_reproduced(items, run):
    summary = SCORER.aggregate(run_pairs(items, run, "faithful"))
    tables = {"main": summary, "paraerr": summary, **summary["by_depth"]}
    tables.update({k: summary["by_official_structure"][k] for k in ("struct0", "struct2", "struct3", "struct7")})
    for name, table in tables.items():
        assert official_row(table) == official(name, run), name


def test_mixed_run_details(items):
    pairs = run_pairs(items, "mixed", "faithful")
    summary = SCORER.aggregate(pairs)
    assert summary["skipped"] == 10 and summary["items"] == 990
    assert 0 < summary["tree_pass_rate"] < 1
    errors = summary["parameter_errors"]
    assert errors["nested"]["omission"] > 0 and errors["non_nested"]["extraction"] > 0
    # Fixed mode stops double-counting nested mistakes as non-nested omissions.
    fixed = SCORER.aggregate(run_pairs(items, "mixed", "fixed"))
    assert fixed["parameter_errors"]["non_nested"]["omission"] < errors["non_nested"]["omission"]
    assert fixed["selection_f1"] == summary["selection_f1"]  # no string ids in this run
