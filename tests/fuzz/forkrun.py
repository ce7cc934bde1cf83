"""Run many CLI calls fast, each in its own process with a memory cap and a deadline.

Reads a JSON job list on stdin: ``{"db": URL, "timeout": s, "memory": bytes, "jobs":
[{"args": [...], "env": {...}}]}``. The reviewer modules are imported once; each
job is a ``fork`` of this process running ``reviewer.cli.main(args)`` exactly as
the console script does (uncaught exceptions print their traceback, as Python
would), under ``RLIMIT_AS`` = ``memory``, killed at ``timeout``. After each job the
database's whole content is digested (every table's rows), so the caller can see
that a failed import wrote nothing. Prints one JSON result per job: exit code,
seconds, peak RSS (KiB), timed out, stdout, stderr, digest.

Used by tests/fuzz: a fresh interpreter per hostile input would cost ~1 s of
imports each; a fork costs milliseconds and isolates the same way.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import signal
import sys
import tempfile
import time
import traceback


def digest(db: str) -> str:
    """A hash of every row of every table (SQLite file or PostgreSQL schema)."""
    h = hashlib.sha256()
    if db.startswith("postgresql"):
        import psycopg

        with psycopg.connect(db) as conn:
            tables = [r[0] for r in conn.execute(
                "select table_name from information_schema.tables where table_schema = current_schema() "
                "order by table_name")]
            for t in tables:
                rows = conn.execute(f'select * from "{t}"').fetchall()
                h.update(t.encode())
                for row in sorted(repr(r) for r in rows):
                    h.update(row.encode())
        return h.hexdigest()
    import sqlite3

    conn = sqlite3.connect(db)
    try:
        for line in conn.iterdump():
            h.update(line.encode())
    finally:
        conn.close()
    return h.hexdigest()


def run_job(job: dict, db: str, timeout: float, memory: int) -> dict:
    out = tempfile.TemporaryFile()
    err = tempfile.TemporaryFile()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: one CLI call
        code = 70
        try:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
            os.environ.update(job.get("env", {}))
            from reviewer import cli

            code = cli.main(["--db", db, *job["args"]])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
        except BaseException:  # what the console script would show: a traceback
            traceback.print_exc()
            code = 1
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    timed_out = False
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() - started > timeout:
            os.kill(pid, signal.SIGKILL)
            _, status, usage = os.wait4(pid, 0)
            timed_out = True
            break
        time.sleep(0.005)
    elapsed = time.monotonic() - started
    out.seek(0)
    err.seek(0)
    return {
        "rc": os.waitstatus_to_exitcode(status), "seconds": round(elapsed, 3), "maxrss_kib": usage.ru_maxrss,
        "timed_out": timed_out, "stdout": out.read().decode(errors="replace")[-4000:],
        "stderr": err.read().decode(errors="replace")[-4000:], "digest": digest(db),
    }


def main() -> None:
    spec = json.load(sys.stdin)
    # Import what the CLI needs once, before any fork (no threads exist yet).
    import reviewer.cli  # noqa: F401
    from reviewer.formats.registry import load_all
    import reviewer.store  # noqa: F401

    load_all()
    db, timeout, memory = spec["db"], spec["timeout"], spec["memory"]
    print(json.dumps({"before": digest(db)}), flush=True)
    for job in spec["jobs"]:
        print(json.dumps(run_job(job, db, timeout, memory)), flush=True)


if __name__ == "__main__":
    main()
