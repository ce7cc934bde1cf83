"""The sandbox runs model-written code in a separate, locked-down process.

Each test runs a real child interpreter; the calling process must keep working
after every hostile program.
"""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import pytest

from reviewer.sandbox import Limits, run_many, run_python, runner


@pytest.fixture(params=["server", "spawn"], autouse=True)
def start(request, monkeypatch):
    """Every test runs with both ways of starting the sandboxed process."""
    monkeypatch.setattr(runner, "DEFAULT_START", request.param)
    return request.param


def _still_working():
    # The caller can still compute and open files after the child misbehaved.
    assert sum(range(10)) == 45
    assert Path(__file__).read_text()


def test_normal_program_returns_its_value_and_output():
    code = "def answer(data):\n    print('looking at', len(data['rows']))\n    return sum(r['n'] for r in data['rows'])\n"
    result = run_python(code, "answer", [{"rows": [{"n": 1}, {"n": 2.5}]}])
    assert result.ok, result.error
    assert result.value == 3.5
    assert result.stdout == "looking at 2\n"
    assert result.duration > 0


def test_value_types_survive_and_unjsonable_values_come_back_as_repr():
    assert run_python("result = 8").value == 8  # an int stays an int (toolJSON's str check needs it)
    res = run_python("result = {3}")
    assert res.ok and res.value_is_repr and res.value == "{3}"


def test_program_exception_is_reported_with_its_type():
    res = run_python("def f(x):\n    return x['missing']\n", "f", [{}])
    assert not res.ok
    assert res.error.startswith("KeyError: 'missing'")
    _still_working()


def test_missing_entry_function_is_a_clear_error():
    res = run_python("def g():\n    return 1\n", "f", [])
    assert not res.ok and "no function named 'f'" in res.error


@pytest.fixture
def listening_server():
    """A loopback TCP server in the test's own network namespace."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(3)
    accepted = []

    def accept():
        try:
            accepted.append(server.accept()[0])
        except OSError:
            pass

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1], accepted
    server.close()
    thread.join(timeout=5)
    for conn in accepted:
        conn.close()


@pytest.mark.parametrize("network", ["auto", "audit"])
def test_network_access_fails(listening_server, network):
    port, accepted = listening_server
    code = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)\nresult = 'connected'\n"
    res = run_python(code, limits=Limits(network=network))
    assert not res.ok
    if network == "audit":
        assert "network access is refused" in res.error
        assert "audit" in res.isolation
    else:
        assert res.isolation[0] in ("netns", "audit")  # which layer applied is reported
    assert not accepted, "the sandboxed program reached the caller's loopback server"
    # The caller's own network still works.
    with socket.create_connection(("127.0.0.1", port), timeout=2):
        pass


def test_writing_outside_the_sandbox_directory_fails(tmp_path):
    target = tmp_path / "escaped.txt"
    res = run_python(f"open({str(target)!r}, 'w').write('x')")
    assert not res.ok
    assert "writing outside the sandbox directory is refused" in res.error
    assert not target.exists()
    _still_working()


def test_writing_inside_the_sandbox_directory_works_and_is_deleted_after():
    code = "import os\nopen('scratch.txt', 'w').write('hello')\nresult = [open('scratch.txt').read(), os.getcwd()]\n"
    res = run_python(code)
    assert res.ok, res.error
    assert res.value[0] == "hello"
    assert not os.path.exists(res.value[1]), "the private working directory was not deleted"


def test_fork_bomb_fails_and_leaves_no_processes():
    res = run_python("import os\nwhile True:\n    os.fork()\n", limits=Limits(wall_seconds=5))
    assert not res.ok
    assert "creating or signalling processes is refused" in res.error
    res = run_python("import subprocess\nsubprocess.run(['sh', '-c', ':(){ :|:& };:'])\n")
    assert not res.ok and "refused" in res.error
    _still_working()


def test_process_limit_holds_below_the_audit_hook():
    # Threads pass the audit hook; the pids cgroup (root) or RLIMIT_NPROC (other users) stops them.
    def our_cgroups():
        return set(Path("/sys/fs/cgroup/pids").glob("reviewer-sandbox-*")) if os.geteuid() == 0 else set()

    before = our_cgroups()  # other programs' cgroups (a concurrent run) are not this test's business
    res = run_python("import threading\nt = threading.Thread(target=print)\nt.start()\nresult = 'started'\n")
    if os.geteuid() == 0 and "pids-cgroup" not in res.isolation:
        pytest.skip("running as root without a usable pids cgroup: the kernel ignores RLIMIT_NPROC for uid 0")
    assert not res.ok
    assert "can't start new thread" in res.error
    assert our_cgroups() - before == set(), "a finished program left its pids cgroup behind"


def test_memory_bomb_fails_with_the_limit_named():
    res = run_python("blocks = []\nwhile True:\n    blocks.append(bytearray(50 * 2**20))\n",
                     limits=Limits(memory_mb=256))
    assert not res.ok
    assert "memory limit (256 MB)" in res.error
    _still_working()


def test_infinite_loop_hits_the_cpu_limit():
    res = run_python("while True:\n    pass\n", limits=Limits(cpu_seconds=1, wall_seconds=10))
    assert not res.ok
    assert "CPU time limit exceeded" in res.error
    assert res.duration < 5


def test_sleeping_program_hits_the_wall_clock_timeout():
    res = run_python("import time\ntime.sleep(60)\n", limits=Limits(wall_seconds=1))
    assert not res.ok
    assert res.error.startswith("wall-clock timeout after 1 s")
    assert res.duration < 3


def test_output_is_capped():
    res = run_python("print('x' * 10000)\nresult = 1\n", limits=Limits(output_bytes=100))
    assert res.ok
    assert res.stdout.startswith("x" * 100)
    assert "more characters of output dropped" in res.stdout
    res = run_python("result = 'y' * 10000\n", limits=Limits(output_bytes=100))
    assert not res.ok and "output cap" in res.error


def test_run_many_keeps_order_and_isolates_failures():
    jobs = [(f"result = {i} * 2", None, None) for i in range(6)]
    jobs.insert(3, ("raise ValueError('bad')", None, None))
    results = run_many(jobs, limits=Limits(), workers=2)
    assert [r.value for r in results if r.ok] == [0, 2, 4, 6, 8, 10]
    assert not results[3].ok and results[3].error.startswith("ValueError: bad")

