"""Bad bytes and closed pipes, as a first-time user met them: a message naming the file and
the right line, exit code 1 (or 141 when the reader of our output left), never a traceback,
and nothing written."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from reviewer.samples import DATA_DIR


def reviewer(*args: str, db: Path, stdout=subprocess.PIPE) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "REVIEWER_DB"}
    return subprocess.run([sys.executable, "-m", "reviewer.cli", *args, "--db", str(db)], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, env=env, timeout=120)


def _outputs(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("select count(*) from output").fetchone()[0]


def _with_bad_byte(src: Path, dst: Path, line: int, newline: bytes = b"\n") -> Path:
    """``src`` with ``newline`` line endings and a Latin-1 é (not UTF-8) inside ``line``."""
    lines = src.read_bytes().splitlines()
    assert line <= len(lines)
    lines[line - 1] = lines[line - 1].replace(b'"', b'"\xe9', 1)
    dst.write_bytes(newline.join(lines) + newline)
    return dst


def test_a_bad_byte_in_a_prediction_file_names_its_line_without_a_traceback(tmp_path):
    db = tmp_path / "db.sqlite3"
    assert reviewer("import", "dataset", str(DATA_DIR / "bfcl"), db=db).returncode == 0
    outputs = sorted((DATA_DIR / "bfcl" / "outputs").glob("*.jsonl"))[0]
    dataset = "bfcl"
    before = _outputs(db)
    for newline in (b"\n", b"\r\n", b"\r"):
        bad = _with_bad_byte(outputs, tmp_path / f"run{len(newline)}{newline[-1]}.jsonl", 4, newline)
        proc = reviewer("import", "run", dataset, str(bad), db=db)  # the format is detected
        assert proc.returncode == 1, proc.stderr
        assert "Traceback" not in proc.stderr
        assert f"{bad}: line 4: not UTF-8 text" in proc.stderr, proc.stderr
        assert _outputs(db) == before


def test_a_bad_byte_far_into_a_dataset_file_names_its_own_line(tmp_path):
    """The text reader decodes 8 KB ahead: the error used to name the line being read, not the bad one."""
    import json

    rows = [json.loads(x) for x in (DATA_DIR / "schemagen" / "schemagen.jsonl").read_text().splitlines() if x.strip()]
    lines = [json.dumps({**rows[i % len(rows)], "id": f"s{i}"}, ensure_ascii=False).encode() for i in range(300)]
    assert sum(len(x) for x in lines[:120]) > 8192
    lines[119] = lines[119].replace(b'"', b'"\xe9', 1)
    path = tmp_path / "schemagen.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    proc = reviewer("import", "dataset", str(path), "--format", "schemagen", db=tmp_path / "db.sqlite3")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert f"{path}: line 120: not UTF-8 text" in proc.stderr, proc.stderr


def test_a_byte_order_mark_does_not_hide_a_tooljson_prediction_file(tmp_path):
    db = tmp_path / "db.sqlite3"
    assert reviewer("import", "dataset", str(DATA_DIR / "tooljson"), db=db).returncode == 0
    source = sorted((DATA_DIR / "tooljson" / "predictions").rglob("*.json"))[0]
    with_bom = tmp_path / source.name
    with_bom.write_bytes(b"\xef\xbb\xbf" + source.read_bytes())
    proc = reviewer("import", "run", "tooljson", str(with_bom), db=db)
    assert proc.returncode == 0, proc.stderr
    assert "outputs added" in proc.stdout


def test_a_reader_that_closes_the_pipe_ends_the_command_quietly(tmp_path):
    """``reviewer list | head``: head may be gone before the first line is written."""
    db = tmp_path / "db.sqlite3"
    assert reviewer("import", "dataset", str(DATA_DIR / "nestools"), db=db).returncode == 0
    for args in (("formats",), ("list",), ("show", "nestools", "1")):
        read_end, write_end = os.pipe()
        os.close(read_end)
        try:
            proc = reviewer(*args, db=db, stdout=write_end)
        finally:
            os.close(write_end)
        assert proc.returncode == 141, (args, proc.stderr)
        assert proc.stderr == "", (args, proc.stderr)


def test_agree_to_a_file_with_no_annotations_says_no_file_was_written(tmp_path):
    db = tmp_path / "db.sqlite3"
    assert reviewer("import", "dataset", str(DATA_DIR / "nestools"), db=db).returncode == 0
    report = tmp_path / "report.html"
    proc = reviewer("agree", "nestools", "--output", str(report), db=db)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "no annotations yet in nestools" in proc.stderr and "was not written" in proc.stderr
    assert not report.exists()


def test_a_report_without_resamples_does_not_claim_bootstrap_intervals():
    from reviewer.agreement import build_report
    from reviewer.agreement.render import render_text
    from reviewer.testing.agreement import synthetic_review

    ratings = synthetic_review(n_items=60, seed=1)
    assert "Values in brackets are 95% bootstrap intervals" in render_text(build_report(ratings, bootstrap=20))
    text = render_text(build_report(ratings, bootstrap=0))
    assert "bootstrap intervals." not in text and "No bootstrap was run" in text
