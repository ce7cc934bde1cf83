"""Imports are all-or-nothing even when killed inside their commit, and two imports of
the same dataset at once end cleanly, on SQLite and PostgreSQL.

kill -9 trials: tests/hostile/commit_victim.py runs the real import and marks the
moment its COMMIT starts and ends. After a calibration import measures how long
the commit takes, each trial kills the victim at a random moment from just
before the commit starts to after it should have ended; the marks say where the
kill landed. Whatever the moment, the database afterwards holds either the whole
import or none of it, and everything that was there before is unchanged.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

from reviewer.samples import DATA_DIR
from reviewer.store import Store
from reviewer.store.models import Dataset, Item

ROOT = Path(__file__).resolve().parents[2]
VICTIM = ROOT / "tests/hostile/commit_victim.py"


def env() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def big_toolselect(path: Path, n: int, text_size: int) -> Path:
    first = json.loads((DATA_DIR / "toolselect/appendix_a.jsonl").read_text().splitlines()[0])
    rng = random.Random(n)
    with path.open("w") as fh:
        for i in range(n):
            filler = "".join(rng.choice("abcdefghij klmnop") for _ in range(text_size))
            fh.write(json.dumps({**first, "id": f"r{i}", "message": f"{i} {filler}"}) + "\n")
    return path


def snapshot(url: str) -> dict:
    from sqlmodel import SQLModel

    from reviewer.store.migrations import schema_table

    store = Store(url)
    try:
        with store.engine.connect() as conn:
            return {t.name: sorted(repr(tuple(r)) for r in conn.execute(select(t)))
                    for t in [*SQLModel.metadata.sorted_tables, schema_table]}
    finally:
        store.close()


def victim_state(url: str) -> tuple[int, int]:
    """(datasets named victim, their items)."""
    store = Store(url)
    try:
        with store.engine.connect() as conn:
            ds = conn.execute(select(Dataset.__table__.c.id).where(Dataset.__table__.c.name == "victim")).all()
            items = conn.execute(select(func.count()).select_from(Item.__table__).join(
                Dataset.__table__, Dataset.__table__.c.id == Item.__table__.c.dataset_id).where(
                Dataset.__table__.c.name == "victim")).scalar_one()
        return len(ds), items
    finally:
        store.close()


def wait_file(path: Path, proc: subprocess.Popen, timeout: float = 120) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            return True
        if proc.poll() is not None:
            return path.exists()
        time.sleep(0.0005)
    raise AssertionError(f"{path.name} never appeared")


def copy_db(src_url: str, dst: Path) -> str:
    """A copy of the SQLite database (checkpointed first, so one file holds everything)."""
    import sqlite3

    src = sqlite3.connect(src_url)
    dst_conn = sqlite3.connect(dst)
    src.backup(dst_conn)
    src.close()
    dst_conn.close()
    return str(dst)


def _prepared(url: str) -> None:
    from reviewer.samples import ensure_samples

    store = Store(url)
    try:
        ensure_samples(store)
    finally:
        store.close()


def _reset_pg(url: str) -> None:
    """Drop what a trial may have committed, so the next trial starts from the same rows."""
    store = Store(url)
    try:
        with store.engine.begin() as conn:
            ids = [r[0] for r in conn.execute(select(Dataset.__table__.c.id).where(Dataset.__table__.c.name == "victim"))]
            if ids:
                from sqlmodel import SQLModel

                audit = SQLModel.metadata.tables["audit_log"]
                conn.execute(Item.__table__.delete().where(Item.__table__.c.dataset_id.in_(ids)))
                conn.execute(Dataset.__table__.delete().where(Dataset.__table__.c.id.in_(ids)))
                conn.execute(audit.delete().where(audit.c.entity == "dataset", audit.c.entity_id.in_(ids)))
    finally:
        store.close()


def kill_trials(tmp_path: Path, base_url: str, trials: int, items: int, text_size: int, sqlite: bool) -> dict:
    source = big_toolselect(tmp_path / "big.jsonl", items, text_size)
    _prepared(base_url)
    before = snapshot(base_url)

    def run_one(i: int, delay: float | None) -> tuple[str, int, int]:
        url = copy_db(base_url, tmp_path / f"trial{i}.sqlite3") if sqlite else base_url
        marks = str(tmp_path / f"m{i}")
        proc = subprocess.Popen([sys.executable, str(VICTIM), url, str(source), marks], env=env(),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        started = Path(marks + ".started")
        wait_file(started, proc)
        t0 = time.monotonic()
        if delay is None:
            wait_file(Path(marks + ".done"), proc)
            elapsed = time.monotonic() - t0  # the commit's duration, as seen from here
            proc.wait(timeout=300)
            assert proc.returncode == 0, proc.stderr.read().decode()[-2000:]
            where = "completed"
        else:
            while time.monotonic() - t0 < delay:
                pass
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            done = Path(marks + ".done").exists()
            where = "after commit" if done else "inside commit"
            elapsed = time.monotonic() - t0
        n_ds, n_items = victim_state(url)
        state = snapshot(url)
        if n_ds == 0:  # nothing of the import: everything exactly as before
            assert state == before, f"trial {i} ({where}): no dataset but the database changed"
        else:  # all of it, and nothing else changed
            assert (n_ds, n_items) == (1, items), f"trial {i} ({where}): partial import {n_ds}, {n_items}"
            assert all(set(before[t]) <= set(state[t]) for t in before), f"trial {i}: earlier rows changed"
        if not sqlite:
            _reset_pg(url)
            assert snapshot(url) == before
        return where, n_ds, elapsed

    where, n_ds, commit_seconds = run_one(0, None)  # calibration: how long the commit takes here
    assert n_ds == 1
    if not sqlite:
        _reset_pg(base_url)
    rng = random.Random(9)
    outcome = {"inside commit": 0, "after commit": 0, "complete": 0, "nothing": 0, "partial": 0}
    for i in range(1, trials + 1):
        where, n_ds, _ = run_one(i, rng.uniform(0, 1.5 * commit_seconds))
        outcome[where] += 1
        outcome["complete" if n_ds else "nothing"] += 1
    outcome["commit_ms"] = round(commit_seconds * 1000, 1)
    return outcome


def test_kill_9_inside_the_commit_on_sqlite(tmp_path):
    base = str(tmp_path / "base.sqlite3")
    outcome = kill_trials(tmp_path, base, trials=int(os.environ.get("REVIEWER_KILL_TRIALS", "12")),
                          items=3000, text_size=4000, sqlite=True)
    print(f"\nsqlite kill -9 trials: {outcome}")
    assert outcome["inside commit"] >= 3, outcome  # the kills did land inside the commit
    assert outcome["partial"] == 0


@pytest.mark.postgres
def test_kill_9_inside_the_commit_on_postgresql(tmp_path, pg_url):
    outcome = kill_trials(tmp_path, pg_url, trials=int(os.environ.get("REVIEWER_KILL_TRIALS", "10")),
                          items=1500, text_size=2000, sqlite=False)
    print(f"\npostgresql kill -9 trials: {outcome}")
    assert outcome["inside commit"] >= 1, outcome
    assert outcome["partial"] == 0


# --- two imports of the same dataset at once ------------------------------------------------


def test_two_processes_importing_the_same_dataset_end_cleanly(tmp_path, db_url):
    source = big_toolselect(tmp_path / "same.jsonl", 4000, 300)
    Store(db_url).close()  # the schema exists before the race starts
    results = []
    for trial in range(3):
        name = f"same-{trial}"
        procs = [subprocess.Popen([sys.executable, "-m", "reviewer.cli", "--db", db_url, "import", "dataset",
                                   str(source), "--format", "toolselect", "--name", name],
                                  env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
        outs = [(p.wait(timeout=300), *(s.decode() for s in p.communicate())) for p in procs]
        for rc, out, err in outs:
            assert "Traceback" not in err, err[-2000:]
            assert rc == 0 or (rc == 1 and err.startswith("reviewer: error: ")), (rc, err)
        assert any(rc == 0 for rc, _, _ in outs)
        store = Store(db_url)
        try:
            assert store.dataset(name).items == 4000
        finally:
            store.close()
        results.append([("ok: " + out.strip()) if rc == 0 else ("refused: " + err.strip()) for rc, out, err in outs])
    print(f"\nconcurrent imports: {results}")
