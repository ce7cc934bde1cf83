"""The ``reviewer`` command as a user runs it: a real process, real files, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reviewer.samples import DATA_DIR


def reviewer(*args: str, db: Path | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("REVIEWER_DB", None)
    cmd = [sys.executable, "-m", "reviewer.cli", *args]
    if db is not None:
        cmd += ["--db", str(db)]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=120)


def test_help_everywhere():
    for args in ([], ["import"], ["import", "dataset"], ["import", "run"], ["list"], ["show"], ["export"]):
        proc = reviewer(*args, "--help")
        assert proc.returncode == 0 and "usage: reviewer" in proc.stdout, (args, proc.stderr)


def test_import_list_show_export_round_trip(tmp_path):
    db = tmp_path / "cli.sqlite3"
    src = DATA_DIR / "nestools"
    proc = reviewer("import", "dataset", str(src / "test_data.jsonl"), "--name", "chains", db=db)
    assert proc.returncode == 0, proc.stderr
    assert "dataset 'chains': 6 items added, 0 already present" in proc.stdout
    proc = reviewer("import", "run", "chains", str(src / "predictions" / "chainsmith-8b" / "raw_response.jsonl"), db=db)
    assert proc.returncode == 0 and "6 outputs added" in proc.stdout, proc.stderr
    again = reviewer("import", "dataset", str(src / "test_data.jsonl"), "--name", "chains", db=db)
    assert "0 items added, 6 already present" in again.stdout

    listing = reviewer("list", db=db)
    assert listing.returncode == 0
    row = next(line for line in listing.stdout.splitlines() if line.startswith("chains"))
    assert row.split()[1:] == ["call_chain", "nestools", "6", "1"]
    runs = reviewer("list", "chains", db=db)
    assert "chainsmith-8b" in runs.stdout

    first_id = json.loads((src / "test_data.jsonl").read_text().splitlines()[0])["test_id"]
    shown = reviewer("show", "chains", str(first_id), "--json", db=db)
    doc = json.loads(shown.stdout)
    assert doc["kind"] == "call_chain" and doc["outputs"][0]["run"] == "chainsmith-8b"
    assert isinstance(doc["gold"], list) and doc["gold"][0]["api_name"]

    out = tmp_path / "export"
    proc = reviewer("export", "chains", str(out), db=db)
    assert proc.returncode == 0, proc.stderr
    for name in ("test_data.jsonl", "test_api_ids.jsonl"):
        exported = [json.loads(x) for x in next(out.rglob(name)).read_text().splitlines() if x.strip()]
        original = [json.loads(x) for x in (src / name).read_text().splitlines() if x.strip()]
        assert exported == original, name

    jsonl = tmp_path / "all.jsonl"
    proc = reviewer("export", "chains", str(jsonl), "--as", "jsonl", db=db)
    assert proc.returncode == 0 and len(jsonl.read_text().splitlines()) == 6


def test_export_gold_only_leaves_out_a_pass_without_ambiguity_and_says_why(tmp_path):
    """The tester's repro: alice presses P with a rating, erin presses P and nothing else; the item
    settles but is not Gold (paper 001: ambiguity Low or Medium), and the export says so."""
    from reviewer.review.annotate import save_annotation
    from reviewer.review.rubric import Draft
    from reviewer.store import Store

    db = tmp_path / "cli.sqlite3"
    tools = [{"name": "Weather", "description": "forecasts"}, {"name": "Calendar", "description": "meetings"}]
    source = tmp_path / "select.jsonl"
    source.write_text("".join(json.dumps({"id": f"t{i}", "message": f"message {i}", "tools": tools,
                                          "expected": ["Weather"]}) + "\n" for i in range(3)), encoding="utf-8")
    store = Store(str(db))
    try:
        store.import_dataset(source, "toolselect", name="select")
        t0, t1 = (store.find_item("select", f"t{i}").id for i in (0, 1))
        for who in ("alice", "erin"):
            save_annotation(store, t0, who, Draft(verdict="pass", ambiguity="low"), None)
            save_annotation(store, t1, who, Draft(verdict="pass"), None)  # stored rubric: ambiguity null
    finally:
        store.close()
    out = tmp_path / "gold.jsonl"
    proc = reviewer("export", "select", str(out), "--as", "jsonl", "--gold-only", db=db)
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(x)["record_id"] for x in out.read_text().splitlines()] == ["t0"]
    assert "wrote 1 released Gold item to" in proc.stdout
    lines = [line.split(None, 1) for line in proc.stdout.splitlines()[2:]]
    assert proc.stdout.splitlines()[1] == "withheld 2 items:"
    assert sorted(lines) == [["1", "ambiguity not rated"], ["1", "not settled by dual review yet"]]


def test_bad_input_names_file_and_line_and_writes_nothing(tmp_path):
    db = tmp_path / "cli.sqlite3"
    lines = (DATA_DIR / "nestools" / "test_data.jsonl").read_text().splitlines()
    broken = tmp_path / "test_data.jsonl"
    broken.write_text("\n".join(lines[:3] + [lines[3][:40]] + lines[4:]) + "\n")
    (tmp_path / "test_api_ids.jsonl").write_text((DATA_DIR / "nestools" / "test_api_ids.jsonl").read_text())
    proc = reviewer("import", "dataset", str(broken), "--format", "nestools", db=db)
    assert proc.returncode == 1
    assert str(broken) in proc.stderr and "line 4" in proc.stderr and "Traceback" not in proc.stderr
    assert "no datasets yet" in reviewer("list", db=db).stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["show", "nope", "1"], "no dataset 'nope'"),
        (["import", "dataset", "/does/not/exist.jsonl"], "no such file or folder"),
        (["import", "dataset", str(DATA_DIR / "nestools" / "test_data.jsonl"), "--format", "bogus"],
         "unknown dataset format 'bogus'"),
    ],
)
def test_user_errors_exit_1_with_a_clear_message(tmp_path, args, message):
    proc = reviewer(*args, db=tmp_path / "cli.sqlite3")
    assert proc.returncode == 1 and message in proc.stderr and "Traceback" not in proc.stderr


def test_usage_error_exits_2(tmp_path):
    assert reviewer("frobnicate").returncode == 2


def test_list_items_gives_the_ids_show_takes(tmp_path):
    """A user who imported a dataset finds its item ids from the command line (before, `list`
    gave only runs, and `show` needs an id): --items lists them in dataset order, --text
    narrows, --limit says how many were left out, empty columns are left out."""
    db = tmp_path / "cli.sqlite3"
    assert reviewer("import", "dataset", str(DATA_DIR / "nestools" / "test_data.jsonl"), "--name", "chains",
                    db=db).returncode == 0
    hint = reviewer("list", "chains", db=db)
    assert "its items: reviewer list chains --items" in hint.stdout
    listed = reviewer("list", "chains", "--items", "--limit", "2", db=db)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0].split() == ["item", "depth", "question"]  # NesTools has no category or difficulty
    ids = [line.split()[0] for line in lines[2:4]]
    assert lines[4] == "2 of 6 items shown; --limit 0 shows all"
    shown = reviewer("show", "chains", ids[1], db=db)
    assert shown.returncode == 0 and ids[1] in shown.stdout
    everything = reviewer("list", "chains", "--items", "--limit", "0", db=db).stdout.splitlines()
    assert len(everything) == 2 + 6 and "shown" not in everything[-1]
    found = reviewer("list", "chains", "--text", ids[1], db=db)
    assert [line.split()[0] for line in found.stdout.splitlines()[2:]][0] == ids[1]
    none = reviewer("list", "chains", "--text", "no item says this", db=db)
    assert none.returncode == 0 and none.stdout.strip() == "no items of chains hold 'no item says this'"
    usage = reviewer("list", "--items", db=db)
    assert usage.returncode == 2 and "name it" in usage.stderr and "Traceback" not in usage.stderr


def test_import_dataset_takes_the_nestools_ids_file_from_elsewhere(tmp_path):
    """A NesTools data file copied away from its test_api_ids.jsonl: the error says how to give
    it, --api-ids imports it, and --api-ids on another format is a usage error."""
    db = tmp_path / "cli.sqlite3"
    (tmp_path / "data").mkdir()
    (tmp_path / "ids").mkdir()
    data = tmp_path / "data" / "test_data.jsonl"
    data.write_text((DATA_DIR / "nestools" / "test_data.jsonl").read_text())
    ids = tmp_path / "ids" / "my_ids.jsonl"
    ids.write_text((DATA_DIR / "nestools" / "test_api_ids.jsonl").read_text())
    alone = reviewer("import", "dataset", str(data), db=db)
    assert alone.returncode == 1 and "--api-ids PATH" in alone.stderr and "Traceback" not in alone.stderr
    given = reviewer("import", "dataset", str(data), "--api-ids", str(ids), "--name", "chains", db=db)
    assert given.returncode == 0, given.stderr
    assert "dataset 'chains': 6 items added" in given.stdout
    shown = json.loads(reviewer("show", "chains", "1", "--json", db=db).stdout)
    first_ids = json.loads((DATA_DIR / "nestools" / "test_api_ids.jsonl").read_text().splitlines()[0])["api_ids"]
    assert shown["payload"]["api_ids"] == first_ids
    other = reviewer("import", "dataset", str(DATA_DIR / "schemagen" / "schemagen.jsonl"), "--api-ids", str(ids), db=db)
    assert other.returncode == 2 and "--api-ids is for NesTools datasets" in other.stderr


def test_an_empty_file_is_called_empty(tmp_path):
    """An empty NesTools data file beside its ids file: 'holds no items', not 'the ids file has
    more records'; an empty file of no known format: 'is empty', not 'cannot tell the format'."""
    db = tmp_path / "cli.sqlite3"
    (tmp_path / "test_data.jsonl").write_text("")
    (tmp_path / "test_api_ids.jsonl").write_text((DATA_DIR / "nestools" / "test_api_ids.jsonl").read_text())
    named = reviewer("import", "dataset", str(tmp_path / "test_data.jsonl"), "--format", "nestools", db=db)
    assert named.returncode == 1 and "test_data.jsonl: holds no items; nothing was imported" in named.stderr
    detected = reviewer("import", "dataset", str(tmp_path / "test_data.jsonl"), db=db)
    assert detected.returncode == 1 and "test_data.jsonl: is empty; nothing to import" in detected.stderr
