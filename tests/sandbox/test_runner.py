"""The sandbox's public API as the scorers and the quality guards use it (real bubblewrap)."""

from __future__ import annotations

import os
import stat

import pytest

from reviewer.sandbox import LIMIT_NAMES, Limits, availability, run_many, run_python
from reviewer.sandbox import engine


def test_function_gets_its_input_and_returns_its_value_with_output_and_isolation():
    code = "def answer(data):\n    print('rows', len(data['rows']))\n    return sum(r['n'] for r in data['rows'])\n"
    res = run_python(code, "answer", [{"rows": [{"n": 1}, {"n": 2.5}]}])
    assert res.status == "ok" and res.ok, res.error
    assert res.value == 3.5 and res.stdout == "rows 2\n" and res.limit is None and res.error is None
    assert res.isolation[0] == availability().engine
    assert any("namespaces: user, pid, mount, net, ipc, uts" in x for x in res.isolation)
    assert res.duration > 0


def test_values_keep_their_json_types_and_others_come_back_as_repr():
    assert run_python("result = 8").value == 8  # an int stays an int (toolJSON's str-only check needs it)
    assert run_python("result = (1, 'é', None, True)").value == [1, "é", None, True]
    res = run_python("result = {3}")
    assert res.ok and res.value_is_repr and res.value == "{3}"
    cyclic = run_python("x = []\nx.append(x)\nresult = x\n")
    assert cyclic.ok and cyclic.value_is_repr and cyclic.value == "[[...]]"


def test_input_is_json_only():
    res = run_python("def f(x):\n    return x\n", "f", [(1, 2)])
    assert res.value == [1, 2]  # a tuple arrives as a list, as JSON would carry it
    bad = run_python("def f(x):\n    return x\n", "f", [object()])
    assert bad.status == "error" and "not JSON" in bad.error


def test_program_errors_are_named():
    res = run_python("def f(x):\n    return x['missing']\n", "f", [{}])
    assert res.status == "error" and res.error.startswith("KeyError: 'missing'")
    missing = run_python("def g():\n    return 1\n", "f", [])
    assert missing.status == "error" and "no function named 'f'" in missing.error
    assert run_python("raise SystemExit(3)").status == "error"


def test_a_segfault_is_reported_as_killed():
    res = run_python("import ctypes\nctypes.string_at(0)\n")
    assert res.status == "killed" and "SIGSEGV" in res.error


def test_run_many_keeps_order_and_isolates_failures():
    jobs = [(f"result = {i} * 2", None, None) for i in range(6)]
    jobs.insert(3, ("raise ValueError('bad')", None, None))
    results = run_many(jobs, workers=3)
    assert [r.value for r in results if r.ok] == [0, 2, 4, 6, 8, 10]
    assert results[3].status == "error" and results[3].error.startswith("ValueError: bad")
    assert run_many([]) == []


def test_limit_names_are_the_documented_ones():
    assert set(LIMIT_NAMES) == {"cpu_time", "wall_time", "address_space", "file_size", "open_files",
                                "output_size", "processes", "disk"}


@pytest.fixture
def no_bwrap(tmp_path, monkeypatch):
    monkeypatch.setenv(engine.BWRAP_ENV, str(tmp_path / "missing-bwrap"))
    yield
    availability(refresh=True)


def test_without_bubblewrap_nothing_runs_and_the_reason_says_how_to_enable_it(no_bwrap, tmp_path):
    marker = tmp_path / "ran"
    code = f"open({str(marker)!r}, 'w').write('x')\nresult = 1\n"
    res = run_python(code)
    assert res.status == "not_run" and not res.ok and res.isolation == ()
    assert res.error.startswith("not run: no isolation available (bubblewrap is not installed")
    assert "apt-get install bubblewrap" in res.error and "user namespaces" in res.error
    assert [r.status for r in run_many([(code, None, None)] * 3)] == ["not_run"] * 3
    assert not marker.exists()


def test_a_bwrap_that_cannot_make_namespaces_means_not_run(monkeypatch):
    """What a kernel without unprivileged user namespaces looks like to the app: bwrap starts and fails."""
    import shutil
    import tempfile
    from pathlib import Path

    folder = Path(tempfile.mkdtemp(prefix="fake-bwrap-"))  # reachable by the sandbox's host uid (pytest's is 0700)
    folder.chmod(0o755)
    fake = folder / "bwrap"
    fake.write_text("#!/bin/sh\n[ \"$1\" = --version ] && { echo 'bubblewrap 0.8.0'; exit 0; }\n"
                    "echo 'bwrap: No permissions to creating new namespace, likely because the kernel does not "
                    "allow non-privileged user namespaces.' >&2\nexit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    monkeypatch.setenv(engine.BWRAP_ENV, str(fake))
    try:
        res = run_python("result = 1")
        assert res.status == "not_run"
        assert "No permissions to creating new namespace" in res.error and "user namespaces" in res.error
    finally:
        monkeypatch.undo()
        availability(refresh=True)
        shutil.rmtree(folder)
    assert run_python("result = 1").ok  # the real bubblewrap again


def test_seccomp_no_new_privileges_and_no_capabilities_are_in_force():
    code = """
import ctypes, errno, os, socket
status = dict(line.split(':', 1) for line in open('/proc/self/status').read().splitlines() if ':' in line)
libc = ctypes.CDLL(None, use_errno=True)
def err(*call):
    r = libc.syscall(*call)
    return None if r >= 0 else errno.errorcode[ctypes.get_errno()]
try:
    socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
    netlink = None
except OSError as exc:
    netlink = errno.errorcode[exc.errno]
result = {
    'seccomp': status['Seccomp'].strip(), 'no_new_privs': status['NoNewPrivs'].strip(),
    'cap_eff': status['CapEff'].strip(), 'cap_prm': status['CapPrm'].strip(),
    'keyctl': err(250, 0, -4, 0, 0, 0), 'clone3': err(435, 0, 0), 'ptrace': err(101, 16, 1, 0, 0),
    'netlink': netlink,
}
"""
    res = run_python(code)
    assert res.ok, res.error
    v = res.value
    assert v["seccomp"] == "2" and v["no_new_privs"] == "1"  # 2 = filter mode
    assert int(v["cap_eff"], 16) == 0 and int(v["cap_prm"], 16) == 0
    # The errors the filter gives (the kernel alone would answer differently: netlink works in a
    # fresh network namespace, clone3 exists, keyctl reaches the uid's keyring).
    assert v["keyctl"] == "EPERM" and v["ptrace"] == "EPERM"
    assert v["clone3"] == "ENOSYS" and v["netlink"] == "EAFNOSUPPORT"


def test_printed_text_is_capped_and_non_ascii_output_still_comes_back():
    res = run_python("print('é' * 10_000)\nresult = 'ü' * 100\n", limits=Limits(output_bytes=1000))
    assert res.ok, res.error
    assert res.value == "ü" * 100  # 602 bytes of escaped JSON: the value cap counts bytes
    assert res.stdout.startswith("é" * 1000) and "more characters of output dropped" in res.stdout
    big = run_python("print('ж' * 900_000)\nresult = 1\n")  # under the 1,000,000-character cap, 6x escaped
    assert big.ok and big.value == 1 and len(big.stdout) == 900_001
