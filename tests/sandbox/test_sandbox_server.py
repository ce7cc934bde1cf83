"""The start-up server that forks sandboxed programs: it recovers and leaves no zombies."""

from __future__ import annotations

from pathlib import Path

from reviewer.sandbox import run_many, run_python, runner


def test_start_up_server_is_replaced_when_it_dies():
    assert run_python("result = 1").ok
    server = runner._get_server()
    server.proc.kill()
    server.proc.wait()
    res = run_python("result = 2")
    if not res.ok:  # the program in flight when the server died may fail, with the reason named
        assert "start-up server" in res.error
        res = run_python("result = 2")
    assert res.ok and res.value == 2
    assert runner._get_server() is not server


def test_server_children_are_reaped():
    run_many([("result = 1", None, None)] * 8)
    server_pid = runner._get_server().proc.pid
    children = Path(f"/proc/{server_pid}/task/{server_pid}/children")
    if children.exists():
        assert children.read_text().split() == []
