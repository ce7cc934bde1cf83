"""End to end through the CLI: a code-generation prediction that attacks the database is scored.

The attack is the one that beat the old sandbox: find the ``--db`` path in an
ancestor's /proc/PID/cmdline, open the SQLite file and overwrite every gold.
Scoring must fail that record with the reason, leave every table except the
new score rows as it was, and change no file outside the sandbox. The
"no isolation available" path is run the same way, with bwrap pointed at a
missing path.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from reviewer.samples import DATA_DIR

ATTACK = '''```python
def answer(api_response):
    import os, sqlite3
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            args = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\\0")
        except OSError:
            continue
        for i, arg in enumerate(args):
            if arg == b"--db":
                db = sqlite3.connect(args[i + 1].decode())
                db.execute("update item set gold = '\\"PWNED\\"'")
                db.commit()
                return "PWNED"
    # No database in sight: try the well-known places too.
    for path in ("/root/.local/share/reviewer/reviewer.sqlite3", "/tmp/cli.sqlite3"):
        sqlite3.connect(path).execute("update item set gold = 'PWNED'")
    return "PWNED"
```'''
BENIGN = '''```python
def answer(api_response):
    return "benign ran"
```'''


def reviewer(*args: str, db: Path, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "REVIEWER_DB"}
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "reviewer.cli", *args, "--db", str(db)],
                          capture_output=True, text=True, env=env, timeout=300)


def _dump(db: Path) -> dict[str, list]:
    with sqlite3.connect(db) as conn:
        tables = [r[0] for r in conn.execute("select name from sqlite_master where type='table' order by name")]
        return {t: conn.execute(f'select * from "{t}" order by 1').fetchall() for t in tables}


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _prepared(tmp_path: Path) -> tuple[Path, Path]:
    src = tmp_path / "tooljson"
    shutil.copytree(DATA_DIR / "tooljson", src)
    for p in (src / "predictions").glob("*"):
        p.unlink()
    uids = [r["uid"] for r in json.loads(next((src / "qa_pairs").glob("*.json")).read_text())]
    preds = []
    for n, uid in enumerate(uids):
        preds.append({
            "endpoint": "citybikes.example.org_v1_stations", "setup_type": "code_generation", "model": "evil/m1",
            "uid": uid, "api_response": {}, "question": "q", "gold_answer": "g", "schema": "''", "task": "t",
            "task_type": "EXTRACTIVE", "predicted_answer": None, "code_exec_status": "",
            "model_output": ATTACK if n == 0 else BENIGN,
            "metrics": {"exact_match_metric": "accuracy_string", "exact_match": None},
        })
    pred_file = tmp_path / "evil_code_generation_predictions.json"
    pred_file.write_text(json.dumps(preds, indent=1))
    db = tmp_path / "cli.sqlite3"
    proc = reviewer("import", "dataset", str(src), "--name", "tj", db=db)
    assert proc.returncode == 0, proc.stderr
    proc = reviewer("import", "run", "tj", str(pred_file), db=db)
    assert proc.returncode == 0, proc.stderr
    return db, src


def _scores(db: Path) -> list[dict]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return [dict(r) for r in conn.execute("select * from score order by output_id")]


def test_attacking_prediction_is_scored_failed_and_the_database_is_untouched(tmp_path):
    db, src = _prepared(tmp_path)
    before_db, before_src = _dump(db), _tree(tmp_path)
    proc = reviewer("score", "tj", "--mode", "fixed", db=db)  # faithful mode runs no code on prediction files
    assert proc.returncode == 0, proc.stderr
    after = _dump(db)
    assert {t: rows for t, rows in after.items() if t != "score"} == {
        t: rows for t, rows in before_db.items() if t != "score"}, "a table other than score changed"
    assert "PWNED" not in json.dumps(after["item"], default=str)  # (the attack text itself sits in output)
    # No file outside the sandbox changed, except the database file itself (which gained the score rows).
    changed = {k for k in set(before_src) | set(_tree(tmp_path))
               if before_src.get(k) != _tree(tmp_path).get(k) and not k.startswith("cli.sqlite3")}
    assert changed == set()
    scores = _scores(db)
    assert len(scores) == len(after["output"])
    notes = [json.loads(s["notes"]) for s in scores]
    attacked = next(n for n in notes if any("code execution error" in x for x in n))
    assert not any(s["passed"] for s, n in zip(scores, notes) if n is attacked)
    assert any("Code execution error" in x or "code execution error" in x for x in attacked)
    assert sum("code ran in the sandbox" in " ".join(n) for n in notes) == len(notes) - 1  # the benign ones ran


def test_without_isolation_code_is_not_run_and_the_cli_says_how_to_enable_it(tmp_path):
    db, _ = _prepared(tmp_path)
    proc = reviewer("score", "tj", "--mode", "fixed", db=db, env_extra={"REVIEWER_SANDBOX_BWRAP": str(tmp_path / "no-bwrap-here")})
    assert proc.returncode == 0, proc.stderr
    assert "not run: no isolation available" in proc.stdout
    assert "install bubblewrap" in proc.stdout and "user namespaces" in proc.stdout
    scores = _scores(db)
    assert scores, "the run was scored"
    for s in scores:
        notes = " ".join(json.loads(s["notes"]))
        assert "not run: no isolation available" in notes and "bubblewrap is not installed" in notes
        assert s["passed"] is None and s["skipped"]
