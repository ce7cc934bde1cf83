"""Exports are standard JSON, always: a database that holds NaN or Infinity (written
before imports refused them, or by hand) stops the export with the item and JSON
path to fix, and leaves no file; a normal export parses with a strict parser."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from reviewer.samples import DATA_DIR

ROOT = Path(__file__).resolve().parents[2]


def cli(db: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reviewer.cli", "--db", str(db), *args], capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)


def strict_loads(text: str):
    def refuse(name):
        raise ValueError(f"non-standard JSON constant {name}")

    return json.loads(text, parse_constant=refuse)


def test_exports_refuse_nan_and_infinity_and_write_nothing(tmp_path):
    db = tmp_path / "db.sqlite3"
    assert cli(db, "import", "dataset", str(DATA_DIR / "toolselect/appendix_a.jsonl"), "--format", "toolselect",
               "--name", "ts").returncode == 0
    good = cli(db, "export", "ts", str(tmp_path / "good.jsonl"), "--as", "jsonl")
    assert good.returncode == 0
    rows = [strict_loads(line) for line in (tmp_path / "good.jsonl").read_text().splitlines()]
    assert len(rows) == 32

    with sqlite3.connect(db) as conn:  # what an old database may hold
        conn.execute("update item set gold = '[\"Website information\", NaN]' where record_id = 'alex-01'")
        conn.execute("update item set payload = '{\"x\": Infinity}' where record_id = 'alex-02'")
    jsonl = cli(db, "export", "ts", str(tmp_path / "bad.jsonl"), "--as", "jsonl")
    assert jsonl.returncode == 1 and "Traceback" not in jsonl.stderr
    assert jsonl.stderr.startswith("reviewer: error: item 'alex-01', $.gold[1]: holds NaN"), jsonl.stderr
    assert not (tmp_path / "bad.jsonl").exists() and not list(tmp_path.glob(".bad.jsonl.*"))

    source = cli(db, "export", "ts", str(tmp_path / "src"))
    assert source.returncode == 1 and "Traceback" not in source.stderr
    assert "item 'alex-01', gold $[1]: holds NaN" in source.stderr, source.stderr
    assert not (tmp_path / "src").exists() or not any((tmp_path / "src").iterdir())
