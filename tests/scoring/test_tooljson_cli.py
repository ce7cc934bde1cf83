"""An official toolJSON prediction file through `reviewer import run` and `reviewer score`, as a user runs them."""

from __future__ import annotations

import json
import shutil

from reviewer.samples import DATA_DIR
from tests.test_cli import reviewer

PREDICTIONS = "citybikes.example.org_v1_stations_beta-13b_code_generation_predictions.json"


def test_prediction_file_with_any_code_exec_status_imports_and_scores_with_official_aggregates(tmp_path):
    data = tmp_path / "tooljson"
    shutil.copytree(DATA_DIR / "tooljson", data)
    path = data / "predictions" / PREDICTIONS
    records = json.loads(path.read_text())
    # qa_inference.py stores the code's return value: a list, a number, ...; one prompt was too long
    records[0]["code_exec_status"] = [records[0]["predicted_answer"]]
    records[1]["code_exec_status"] = 25
    records[2].update(predicted_answer="context length exceeded", code_exec_status=None)
    records[3].update(predicted_answer=None, code_exec_status="Code execution error")
    path.write_text(json.dumps(records))
    db = tmp_path / "cli.sqlite3"
    assert reviewer("import", "dataset", str(data), "--name", "bikes", db=db).returncode == 0
    proc = reviewer("import", "run", "bikes", str(path), db=db)
    assert proc.returncode == 0, proc.stderr
    assert f"{len(records)} outputs added" in proc.stdout

    proc = reviewer("score", "bikes", db=db)
    assert proc.returncode == 0, proc.stderr
    assert "the benchmark's own aggregates" in proc.stdout
    assert "count_context_exceeded: 1" in proc.stdout
    assert f"code exec passed {len(records) - 1} " in proc.stdout  # only "Code execution error" fails
    assert " x EXTRACTIVE: " in proc.stdout

    summary = json.loads(reviewer("score", "bikes", "--json", db=db).stdout)[0]["summary"]
    assert summary["count_context_exceeded"] == 1
    assert summary["official"]["per_model_setup"]["total_code_exec_status_accuracy"] == len(records) - 1
