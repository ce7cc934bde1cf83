"""No process the app started outlives it, even when the app is killed with SIGKILL.

The real app (``reviewer gui``, offscreen) starts its JSON-parsing helper and, with
it, multiprocessing's resource tracker. The test records every descendant of the
app from /proc (pid and start time, so a reused pid is not mistaken for a
survivor), kills the app with SIGKILL, and waits, with a deadline, for all of
them to be gone.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")


def _stat(pid: int) -> tuple[int, int] | None:
    """(parent pid, start time) of ``pid``, or None when it is gone (or a zombie)."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2 :].split()
    if fields[0] == "Z":
        return None
    return int(fields[1]), int(fields[19])


def descendants(root: int) -> dict[int, tuple[int, str]]:
    """Every live descendant of ``root``: pid -> (start time, command line)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (st := _stat(int(entry))):
            parents.setdefault(st[0], []).append(int(entry))
    found, todo = {}, [root]
    while todo:
        for child in parents.get(todo.pop(), []):
            st = _stat(child)
            if st is None:
                continue
            try:
                cmd = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                cmd = ""
            found[child] = (st[1], cmd)
            todo.append(child)
    return found


def alive(pid: int, start: int) -> bool:
    st = _stat(pid)
    return st is not None and st[1] == start


def wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")


def test_killing_the_app_with_sigkill_leaves_no_process_it_started(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen",
           "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    app = subprocess.Popen([sys.executable, "-m", "reviewer.cli", "gui", "--db", str(tmp_path / "db.sqlite3")],
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    recorded: dict[int, tuple[int, str]] = {}
    try:
        def helpers_started():
            found = descendants(app.pid)
            cmds = " ".join(c for _, c in found.values())
            return found if ("spawn_main" in cmds and "resource_tracker" in cmds) else None

        recorded = wait_for(helpers_started, 180, "the app's parse helper and resource tracker to start")
        assert app.poll() is None, "the app exited by itself"
        os.kill(app.pid, signal.SIGKILL)
        app.wait(timeout=30)

        def all_gone():
            return not any(alive(pid, start) for pid, (start, _) in recorded.items())

        try:
            wait_for(all_gone, 15, "the app's helper processes to end")
        finally:
            survivors = [(pid, cmd[:120]) for pid, (start, cmd) in recorded.items() if alive(pid, start)]
            print(f"processes started: {len(recorded)}, surviving: {len(survivors)}")
        assert survivors == []
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()
        for pid, (start, _) in recorded.items():  # never leave a survivor behind on failure
            if alive(pid, start):
                os.kill(pid, signal.SIGKILL)
