"""Run import and ``compare`` as a user runs them: what is printed, exit codes, the database file."""

from __future__ import annotations

from reviewer.samples import DATA_DIR
from tests.test_cli import reviewer

BFCL = DATA_DIR / "bfcl"
OUTPUTS = BFCL / "outputs" / "toolformer-xl.jsonl"


def _bfcl(tmp_path):
    db = tmp_path / "cli.sqlite3"
    proc = reviewer("import", "dataset", str(BFCL), db=db)
    assert proc.returncode == 0, proc.stderr
    return db


def test_reimporting_a_changed_run_file_says_what_differs(tmp_path):
    db = _bfcl(tmp_path)
    copy = tmp_path / "toolformer-xl.jsonl"
    copy.write_text(OUTPUTS.read_text())
    assert reviewer("import", "run", "bfcl", str(copy), db=db).returncode == 0
    copy.write_text(OUTPUTS.read_text().replace("bill=84.5", "bill=99.9"))
    proc = reviewer("import", "run", "bfcl", str(copy), db=db)
    assert proc.returncode == 0, proc.stderr
    assert ("run 'toolformer-xl' of dataset 'bfcl': 0 outputs added, 5 already present, 1 differ from the stored "
            "version and were kept as stored (first: simple_0)") in proc.stdout
    shown = reviewer("show", "bfcl", "simple_0", db=db)
    assert "bill=84.5" in shown.stdout and "bill=99.9" not in shown.stdout


def test_a_run_that_answers_part_of_the_dataset_says_how_much(tmp_path):
    db = _bfcl(tmp_path)
    part = tmp_path / "part.jsonl"
    part.write_text("\n".join(OUTPUTS.read_text().splitlines()[:3]) + "\n")  # the header and two outputs
    proc = reviewer("import", "run", "bfcl", str(part), db=db)
    assert proc.returncode == 0, proc.stderr
    assert "2 outputs added, 0 already present; the run covers 2 of 6 items" in proc.stdout
    full = reviewer("import", "run", "bfcl", str(OUTPUTS), "--name", "full", db=db)
    assert "covers" not in full.stdout


def test_empty_files_are_refused_and_write_nothing(tmp_path):
    db = _bfcl(tmp_path)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    before = db.read_bytes()
    proc = reviewer("import", "dataset", str(empty), "--format", "schemagen", db=db)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert f"{empty}: holds no items; nothing was imported" in proc.stderr
    proc = reviewer("import", "run", "bfcl", str(empty), "--format", "outputs-jsonl", db=db)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert f"{empty}: holds no outputs; nothing was imported" in proc.stderr
    assert db.read_bytes() == before
    listing = reviewer("list", db=db).stdout
    assert "empty" not in listing and listing.split("\n")[2].split()[-1] == "0"  # bfcl: still no run


def test_compare_says_what_each_run_has_scores_for_and_what_the_limit_cut(tmp_path):
    db = _bfcl(tmp_path)
    header, *lines = OUTPUTS.read_text().splitlines()
    (tmp_path / "a.jsonl").write_text("\n".join([header, *lines[:3]]) + "\n")
    (tmp_path / "b.jsonl").write_text("\n".join([header, *lines[3:]]) + "\n")
    for name in ("a", "b"):
        assert reviewer("import", "run", "bfcl", str(tmp_path / f"{name}.jsonl"), "--name", name, db=db).returncode == 0
    assert reviewer("import", "run", "bfcl", str(OUTPUTS), "--name", "full", db=db).returncode == 0

    proc = reviewer("compare", "bfcl", "a", "full", db=db)
    assert proc.returncode == 0
    assert proc.stdout.strip() == ("neither run has scores (faithful mode); score them first with: "
                                   "reviewer score bfcl --mode faithful")
    assert reviewer("score", "bfcl", "--run", "a", db=db).returncode == 0
    proc = reviewer("compare", "bfcl", "a", "full", db=db)
    assert "run 'full' has no scores (faithful mode); score it first with: reviewer score bfcl --run full" in proc.stdout
    assert reviewer("score", "bfcl", db=db).returncode == 0

    proc = reviewer("compare", "bfcl", "a", "b", db=db)
    assert proc.returncode == 0
    assert proc.stdout.strip() == ("no item has scores in both runs (faithful mode): 'a' has scores for 3 items, "
                                   "'b' for 3, and they share none")
    proc = reviewer("compare", "bfcl", "a", "full", db=db)
    assert "compared: the 3 items scored in both runs ('a' has scores for 3 items, 'full' for 6)" in proc.stdout
    assert "shown" not in proc.stdout
    proc = reviewer("compare", "bfcl", "full", "b", "--limit", "2", db=db)
    assert "2 of 3 items shown (largest difference first); --limit 0 shows all" in proc.stdout
    proc = reviewer("compare", "bfcl", "full", "b", "--limit", "0", db=db)
    assert "shown" not in proc.stdout and len([x for x in proc.stdout.splitlines() if "_" in x]) == 3


def test_an_empty_tooljson_predictions_file_is_refused(tmp_path):
    db = tmp_path / "cli.sqlite3"
    assert reviewer("import", "dataset", str(DATA_DIR / "tooljson"), db=db).returncode == 0
    empty = tmp_path / "citybikes.example.org_v1_stations_gamma-1b_direct_prompting_predictions.json"
    empty.write_text("[]")
    before = db.read_bytes()
    proc = reviewer("import", "run", "tooljson", str(empty), "--format", "tooljson-predictions", db=db)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert f"{empty}: holds no outputs; nothing was imported" in proc.stderr
    assert db.read_bytes() == before


def test_the_official_tooljson_predictions_folder_imports_as_one_run(tmp_path):
    """`reviewer import run DATASET FOLDER` on the real toolJSONprocessing results: the
    per-endpoint files of gpt-4o make one run covering every item; a file of another model
    named like them is refused from that run, and the database file is unchanged."""
    import json

    from tests.conftest import refdata

    data = refdata("toolJSONprocessing", "generate_qa_pairs", "data")
    preds = refdata("toolJSONprocessing", "_synthetic", "experimental_scripts", "results", "predictions")
    db = tmp_path / "cli.sqlite3"
    assert reviewer("import", "dataset", str(data), db=db).returncode == 0
    proc = reviewer("import", "run", "generate_qa_pairs", str(preds), db=db)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["run 'gpt-4o_code_generation' of dataset 'generate_qa_pairs': 495 outputs "
                                        "added, 0 already present (from 2 files)"]
    listed = reviewer("list", "generate_qa_pairs", db=db).stdout.splitlines()
    assert [line.split() for line in listed[1:] if line.startswith("gpt-4o")] == [
        ["gpt-4o_code_generation", "Azure/gpt-4o", "code_generation", "495", "0"]]
    assert not [line for line in listed if line.startswith("last10k") or line.startswith("real-time")]

    mini = tmp_path / next(p.name for p in preds.iterdir()).replace("gpt-4o", "gpt-4o-mini")
    records = json.loads(next(preds.iterdir()).read_text(encoding="utf-8"))
    mini.write_text(json.dumps([dict(r, model="Azure/gpt-4o-mini") for r in records]), encoding="utf-8")
    before = db.read_bytes()
    proc = reviewer("import", "run", "generate_qa_pairs", str(mini), "--name", "gpt-4o_code_generation", db=db)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert (f"{mini}: run 'gpt-4o_code_generation' of dataset 'generate_qa_pairs' already holds model "
            "'Azure/gpt-4o', but this file has model 'Azure/gpt-4o-mini'; one run holds one model and setup; "
            "import the file as a run of another name (--name)") in proc.stderr
    assert db.read_bytes() == before
    # its own file name gives it its own run
    proc = reviewer("import", "run", "generate_qa_pairs", str(mini), db=db)
    assert proc.returncode == 0 and "run 'gpt-4o-mini_code_generation'" in proc.stdout, proc.stderr
