"""Hostile files for every import format: exit 1, a clear error, nothing written, bounded.

Inputs come from tests/fuzz/hostile.py (every dataset and prediction format of
the bundled samples, made hostile in one of ~20 ways). Each is imported by the
real CLI in its own process (tests/fuzz/forkrun.py forks a warmed-up interpreter)
under a memory cap (RLIMIT_AS) and a deadline, into a database holding the
samples. Each must:

- exit 1 with ``reviewer: error: <the hostile file>: <line / row / JSON path>: ...``
  (file-level refusals, such as a FIFO, name the file);
- print no traceback;
- leave the database's content identical (every row of every table);
- end within TIMEOUT seconds and MEMORY bytes of address space.

The default run checks a fixed sample of 100 inputs on SQLite and 20 on
PostgreSQL; the slow tier 1,000 more. A few run through a fresh
``python -m reviewer.cli`` too, so the console path itself is covered.
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from tests.fuzz.hostile import JSON_VALUE_KINDS, generate

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 60.0  # seconds for one import (they take ~0.1 s; /dev/zero took minutes before)
MEMORY = 3 * 1024**3  # address space; a 100k-deep document or /dev/zero used to exhaust any cap
LOCATION = re.compile(r"line \d+|row \d+|\$|record |column |element |sheet ")


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def _base_db(url: str) -> None:
    """The samples imported: a realistic database for the hostile imports to (not) touch."""
    from reviewer.samples import ensure_samples
    from reviewer.store import Store

    store = Store(url)
    try:
        ensure_samples(store)
    finally:
        store.close()


def run_trials(trials, db: str) -> tuple[str, list[dict]]:
    spec = {"db": db, "timeout": TIMEOUT, "memory": MEMORY,
            "jobs": [{"args": t.args, "env": t.env} for t in trials]}
    proc = subprocess.run([sys.executable, str(ROOT / "tests/fuzz/forkrun.py")], input=json.dumps(spec),
                          capture_output=True, text=True, env=_env(), timeout=60 + TIMEOUT * len(trials))
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    return lines[0]["before"], lines[1:]


def check(trials, before: str, results: list[dict]) -> list[str]:
    """Every violated promise, one line each (empty: all held)."""
    assert len(results) == len(trials)
    problems = []
    previous = before
    for t, r in zip(trials, results):
        err = r["stderr"]
        first = err.strip().splitlines()[0] if err.strip() else ""
        if r["timed_out"]:
            problems.append(f"{t.name}: still running after {TIMEOUT:.0f}s")
            continue
        if r["rc"] != 1:
            problems.append(f"{t.name}: exit {r['rc']}, expected 1: {first or r['stdout'][:200]}")
        if "Traceback" in err:
            problems.append(f"{t.name}: traceback: {err[-600:]}")
        if not first.startswith("reviewer: error: "):
            problems.append(f"{t.name}: no clear error: {err[:300]}")
        elif Path(t.mutated).name not in first:
            problems.append(f"{t.name}: the error does not name {Path(t.mutated).name}: {first}")
        elif t.needs_location and not LOCATION.search(first.split(Path(t.mutated).name, 1)[1]):
            problems.append(f"{t.name}: no line, row or JSON path: {first}")
        if r["digest"] != previous:
            problems.append(f"{t.name}: the database changed")
        previous = r["digest"]
    return problems


def report(label: str, trials, results, problems) -> None:
    kinds = Counter(t.kind for t in trials)
    slowest = max(r["seconds"] for r in results)
    peak = max(r["maxrss_kib"] for r in results) / 1024
    print(f"\n{label}: hostile inputs: {len(trials)}, passed: {len(trials) - len({p.split(':')[0] for p in problems})}, "
          f"slowest: {slowest:.2f} s, peak RSS: {peak:.0f} MiB, kinds: {dict(sorted(kinds.items()))}")


def _fuzz(tmp_path, db: str, n: int, seed: int, label: str, kinds=None) -> None:
    trials = generate(n if kinds is None else 4 * n, seed, tmp_path / "inputs")
    if kinds is not None:
        trials = [t for t in trials if t.kind in kinds][:n]
    before, results = run_trials(trials, db)
    problems = check(trials, before, results)
    report(label, trials, results, problems)
    assert not problems, "\n".join(problems[:40])


def test_fixed_sample_of_hostile_inputs_on_sqlite(tmp_path):
    db = str(tmp_path / "db.sqlite3")
    _base_db(db)
    _fuzz(tmp_path, db, 100, seed=18, label="sqlite default sample")


@pytest.mark.postgres
def test_hostile_inputs_on_postgresql(tmp_path, pg_url):
    _base_db(pg_url)
    # The values PostgreSQL used to treat differently from SQLite (NUL, NaN, surrogates...).
    _fuzz(tmp_path, pg_url, 20, seed=1818, label="postgresql default sample",
          kinds=set(JSON_VALUE_KINDS) | {"cell-json"})


@pytest.mark.slow
def test_a_thousand_hostile_inputs(tmp_path):
    db = str(tmp_path / "db.sqlite3")
    _base_db(db)
    n = int(os.environ.get("REVIEWER_FUZZ_N", "1000"))
    _fuzz(tmp_path, db, n, seed=int(os.environ.get("REVIEWER_FUZZ_SEED", "2026")), label="slow tier")


@pytest.mark.parametrize("kind", ["fifo", "devzero", "deep", "bigint", "surrogate", "nan"])
def test_the_console_command_itself(tmp_path, kind):
    """The same promises through a fresh ``python -m reviewer.cli`` (not a fork)."""
    trial = next(t for t in generate(400, 7, tmp_path / "inputs") if t.kind == kind)
    db = str(tmp_path / "db.sqlite3")
    _base_db(db)
    from tests.fuzz.forkrun import digest

    before = digest(db)

    def limits():
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))

    proc = subprocess.run([sys.executable, "-m", "reviewer.cli", "--db", db, *trial.args],
                          env={**_env(), **trial.env}, capture_output=True, text=True, timeout=TIMEOUT + 30,
                          preexec_fn=limits)
    result = {"rc": proc.returncode, "stderr": proc.stderr, "stdout": proc.stdout, "timed_out": False,
              "digest": digest(db), "seconds": 0.0, "maxrss_kib": 0}
    assert check([trial], before, [result]) == []
