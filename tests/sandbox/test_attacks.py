"""Attacks a hostile model output could contain, each run in the real bubblewrap sandbox.

Every attack program returns a string starting with "ESCAPED" when the thing it
tried worked. Each test asserts both that the attempt failed (no such value)
and that its effect did not happen: every file of the test's 'world' (victim
files, the SQLite database, the Python runtime) is byte-identical with the same
mode, owner, times and extended attributes; no socket the test serves was
reached; the test process (the 'app') is alive; no sandbox process is left.
"""

from __future__ import annotations

import os
import textwrap
import threading
import time

import pytest

from reviewer.sandbox import Limits, run_python
from tests.sandbox.conftest import SECRET, build_world, close_world, sandbox_processes, ticks_now

LIMITS = Limits(cpu_seconds=2, wall_seconds=8)


def _attacks(w) -> dict[str, str]:
    """name -> program. ``w`` is the World (paths and ports the attacker is handed outright)."""
    victim, vdir, db = str(w.victim), str(w.victim_dir), str(w.db)
    app = os.getpid()
    scan_proc = f"""
        import os
        def pids():
            return [p for p in os.listdir('/proc') if p.isdigit()]
    """
    return {
        # --- writing outside the private folder ---------------------------------
        "open_victim_for_write": f"open({victim!r}, 'w').write('pwned'); result = 'ESCAPED'",
        "dir_fd_write": f"""
            import os
            d = os.open({vdir!r}, os.O_RDONLY)
            fd = os.open('created.txt', os.O_WRONLY | os.O_CREAT, dir_fd=d)
            os.write(fd, b'x'); result = 'ESCAPED'""",
        "dir_fd_via_proc_fd": f"""
            import os
            for p in os.listdir('/proc'):
                if p.isdigit():
                    for fd in os.listdir(f'/proc/{{p}}/fd'):
                        try:
                            os.open('x', os.O_WRONLY | os.O_CREAT, dir_fd=int(fd))
                            result = 'ESCAPED'
                        except Exception:
                            pass""",
        "mkfifo_outside": f"import os; os.mkfifo({vdir + '/fifo'!r}); result = 'ESCAPED'",
        "mknod_outside": f"import os, stat; os.mknod({vdir + '/node'!r}, 0o600 | stat.S_IFREG); result = 'ESCAPED'",
        "mknod_device": "import os, stat; os.mknod('/tmp/mem', 0o600 | stat.S_IFCHR, os.makedev(1, 1)); result = 'ESCAPED'",
        "chmod_victim": f"import os; os.chmod({victim!r}, 0o777); result = 'ESCAPED'",
        "fchmod_victim": f"import os; fd = os.open({victim!r}, os.O_RDONLY); os.fchmod(fd, 0o777); result = 'ESCAPED'",
        "chown_victim": f"import os; os.chown({victim!r}, 65534, 65534); result = 'ESCAPED'",
        "setxattr_victim": f"import os; os.setxattr({victim!r}, 'user.pwned', b'1'); result = 'ESCAPED'",
        "remove_victim": f"import os; os.remove({victim!r}); result = 'ESCAPED'",
        "rename_victim": f"import os; os.rename({victim!r}, {victim + '.moved'!r}); result = 'ESCAPED'",
        "truncate_victim": f"import os; os.truncate({victim!r}, 0); result = 'ESCAPED'",
        "utime_victim": f"import os; os.utime({victim!r}, (0, 0)); result = 'ESCAPED'",
        "hardlink_victim": f"import os; os.link({victim!r}, '/tmp/hard'); result = 'ESCAPED'",
        "symlink_then_write": f"""
            import os
            os.symlink({victim!r}, '/tmp/link')
            open('/tmp/link', 'w').write('pwned'); result = 'ESCAPED'""",
        "write_host_tmp": "open('/tmp/escaped-host-tmp', 'w').write('x'); import os; result = 'ESCAPED' if not os.path.ismount('/tmp') else 'own tmpfs'",
        "write_root_of_sandbox": "open('/escaped-root', 'w').write('x'); result = 'ESCAPED'",
        "trojan_stdlib": "open('/python/lib/python3.11/json/__init__.py', 'a').write('\\nraise SystemExit'); result = 'ESCAPED'",
        "write_python_exe": "import sys; open(sys.executable, 'r+b').write(b'x'); result = 'ESCAPED'",
        "write_proc_self_exe": "open('/proc/self/exe', 'r+b').write(b'x'); result = 'ESCAPED'",
        "write_shared_libs": "import glob; open(glob.glob('/usr/lib/*/libc.so.6')[0], 'r+b').write(b'x'); result = 'ESCAPED'",
        "proc_root_traversal": f"""
            import os
            for p in os.listdir('/proc'):
                if p.isdigit():
                    try:
                        open(f'/proc/{{p}}/root' + {victim!r}, 'a').write('pwned'); result = 'ESCAPED'
                    except OSError:
                        pass""",
        "proc_cwd_traversal": f"""
            import os
            for p in os.listdir('/proc'):
                if p.isdigit():
                    try:
                        os.listdir(f'/proc/{{p}}/cwd/' + {vdir!r}); result = 'ESCAPED'
                    except OSError:
                        pass""",
        # --- the database ---------------------------------------------------------
        "sqlite_rewrite_db": f"""
            import sqlite3
            c = sqlite3.connect({db!r}); c.execute("update gold set answer='PWNED'"); c.commit()
            result = 'ESCAPED'""",
        "sqlite_db_from_ancestor_cmdline": """
            import os, sqlite3
            found = []
            for p in os.listdir('/proc'):
                if p.isdigit():
                    try:
                        args = open(f'/proc/{p}/cmdline', 'rb').read().split(b'\\0')
                    except OSError:
                        continue
                    for i, a in enumerate(args):
                        if a == b'--db' and i + 1 < len(args):
                            found.append(args[i + 1].decode())
            for path in found:
                c = sqlite3.connect(path); c.execute("update item set gold='PWNED'"); c.commit()
                result = 'ESCAPED'""",
        "read_db_bytes": f"result = 'ESCAPED' if open({db!r}, 'rb').read(16) else ''",
        "ancestor_ppid_walk": """
            import os
            pid, seen = os.getppid(), []
            while pid > 0 and len(seen) < 10:
                seen.append(open(f'/proc/{pid}/cmdline', 'rb').read())
                pid = int(open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()[1])
            result = 'ESCAPED' if any(b'pytest' in s or b'--db' in s for s in seen) else len(seen)""",
        # --- secrets and other files the app can read ----------------------------------
        "read_etc_shadow": "result = 'ESCAPED' if open('/etc/shadow').read() else ''",
        "read_etc_passwd": "result = 'ESCAPED' if open('/etc/passwd').read() else ''",
        "list_root_home": "import os; result = 'ESCAPED' if os.listdir('/root') else ''",
        "list_home": "import os; result = 'ESCAPED' + str(os.listdir('/home'))",
        "read_victim_secret": f"result = 'ESCAPED' if {SECRET!r} in open({vdir + '/secret.txt'!r}).read() else ''",
        "own_environment": f"import os; result = 'ESCAPED' if {SECRET!r} in repr(dict(os.environ)) else sorted(os.environ)",
        "all_proc_environ": f"""
            import os
            result = 'clean'
            for p in os.listdir('/proc'):
                if p.isdigit():
                    try:
                        if {SECRET!r}.encode() in open(f'/proc/{{p}}/environ', 'rb').read():
                            result = 'ESCAPED'
                    except OSError:
                        pass""",
        "app_cmdline_by_pid": f"result = 'ESCAPED' + open('/proc/{app}/cmdline').read()",
        "project_tree": f"import os; result = 'ESCAPED' if os.path.exists({os.getcwd()!r}) else ''",
        "sys_filesystem": "import os; result = 'ESCAPED' + str(os.listdir('/sys'))",
        "run_folder": "import os; result = 'ESCAPED' + str(os.listdir('/run'))",
        "site_packages_visible": "import os; result = 'ESCAPED' if os.listdir('/python/lib/python3.11/site-packages') else ''",
        # --- sockets and network -----------------------------------------------------
        "postgres_unix_socket": """
            import socket
            s = socket.socket(socket.AF_UNIX); s.connect('/var/run/postgresql/.s.PGSQL.5432'); result = 'ESCAPED'""",
        "postgres_tcp": "import socket; socket.create_connection(('127.0.0.1', 5432), timeout=2); result = 'ESCAPED'",
        "served_unix_socket": f"import socket; s = socket.socket(socket.AF_UNIX); s.connect({w.unix_path!r}); result = 'ESCAPED'",
        "abstract_unix_socket": f"import socket; s = socket.socket(socket.AF_UNIX); s.connect('\\0{w.abstract_name}'); result = 'ESCAPED'",
        "tcp_loopback": f"import socket; socket.create_connection(('127.0.0.1', {w.tcp_port}), timeout=2); result = 'ESCAPED'",
        "udp_loopback": f"""
            import socket
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b'hello', ('127.0.0.1', {w.udp_port}))
            result = 'sent (the test checks whether it arrived)'""",
        "tcp_ipv4_mapped_ipv6": f"import socket; socket.create_connection(('::ffff:127.0.0.1', {w.tcp_port}), timeout=2); result = 'ESCAPED'",
        "dns_lookup": "import socket; result = 'ESCAPED' + str(socket.getaddrinfo('example.com', 80))",
        "public_ip": "import socket; socket.create_connection(('1.1.1.1', 53), timeout=2); result = 'ESCAPED'",
        "raw_packet_socket": "import socket; socket.socket(socket.AF_PACKET, socket.SOCK_RAW); result = 'ESCAPED'",
        "netlink_socket": "import socket; socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0); result = 'ESCAPED'",
        "bring_up_loopback_and_connect": f"""
            import socket, fcntl, struct
            s = socket.socket()
            fcntl.ioctl(s, 0x8914, struct.pack('16sH14s', b'lo', 0x1 | 0x40, b''))
            socket.create_connection(('127.0.0.1', {w.tcp_port}), timeout=2); result = 'ESCAPED'""",
        # --- processes and signals -----------------------------------------------------
        "pidfd_kill_app": f"""
            import os, signal
            fd = os.pidfd_open({app})
            signal.pidfd_send_signal(fd, signal.SIGKILL); result = 'ESCAPED'""",
        "kill_app_pid": f"import os; os.kill({app}, 9); result = 'ESCAPED'",
        "kill_every_pid": """
            import os, signal
            killed = 0
            for pid in range(1, 5000):
                if pid != os.getpid():
                    try:
                        os.kill(pid, signal.SIGKILL); killed += 1
                    except OSError:
                        pass
            result = 'ESCAPED' if killed > 1 else f'killed {killed}'""",
        "kill_minus_one": "import os; os.kill(-1, 9); result = 'survived'",
        "signal_parent_group": "import os; os.killpg(os.getpgid(0), 15); result = 'survived'",
        "fork_bomb": "import os\nwhile True:\n    os.fork()",
        "thread_bomb": "import threading, time\nwhile True:\n    threading.Thread(target=time.sleep, args=(60,)).start()",
        "subprocess_shell": "import subprocess; subprocess.run(['/bin/sh', '-c', 'echo pwned > /tmp/escaped-shell']); result = 'ESCAPED'",
        "spawn_interpreter": "import subprocess, sys; subprocess.run([sys.executable, '-c', 'print(1)']); result = 'ESCAPED'",
        "exec_shell": "import os; os.execv('/bin/sh', ['sh', '-c', 'touch /tmp/escaped-exec'])",
        "multiprocessing_pool": "import multiprocessing; multiprocessing.Pool(2).map(abs, [1]); result = 'ESCAPED'",
        # --- ctypes and raw syscalls -------------------------------------------------------
        "ctypes_kill_app": f"import ctypes; r = ctypes.CDLL(None).kill({app}, 9); result = 'ESCAPED' if r == 0 else r",
        "ctypes_ptrace_init": """
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            r = libc.ptrace(16, 1, 0, 0)  # PTRACE_ATTACH to bwrap's init
            result = 'ESCAPED' if r == 0 else ctypes.get_errno()""",
        "ctypes_unshare_user": """
            import ctypes
            r = ctypes.CDLL(None).unshare(0x10000000)
            result = 'ESCAPED' if r == 0 else 'refused'""",
        "ctypes_mount_tmpfs": """
            import ctypes
            r = ctypes.CDLL(None).mount(b'none', b'/python', b'tmpfs', 0, None)
            result = 'ESCAPED' if r == 0 else 'refused'""",
        "ctypes_setns_init": """
            import ctypes, os
            fd = os.open('/proc/1/ns/mnt', os.O_RDONLY)
            r = ctypes.CDLL(None).setns(fd, 0)
            result = 'ESCAPED' if r == 0 else 'refused'""",
        "ctypes_chroot": "import ctypes; r = ctypes.CDLL(None).chroot(b'/tmp'); result = 'ESCAPED' if r == 0 else 'refused'",
        "keyctl_root_keyring": """
            import ctypes
            r = ctypes.CDLL(None).syscall(250, 0, -4, 0, 0, 0)  # keyctl(KEYCTL_GET_KEYRING_ID, user keyring)
            result = 'ESCAPED' if r >= 0 else 'refused'""",
        "add_key": """
            import ctypes
            r = ctypes.CDLL(None).syscall(248, b'user', b'pwned', b'x', 1, -4)
            result = 'ESCAPED' if r >= 0 else 'refused'""",
        "io_uring_setup": """
            import ctypes
            buf = ctypes.create_string_buffer(120)
            r = ctypes.CDLL(None).syscall(425, 8, buf)
            result = 'ESCAPED' if r >= 0 else 'refused'""",
        "bpf_syscall": """
            import ctypes
            r = ctypes.CDLL(None).syscall(321, 0, ctypes.create_string_buffer(64), 64)
            result = 'ESCAPED' if r >= 0 else 'refused'""",
        "userfaultfd": "import ctypes; r = ctypes.CDLL(None).syscall(323, 0); result = 'ESCAPED' if r >= 0 else 'refused'",
        "perf_event_open": """
            import ctypes
            r = ctypes.CDLL(None).syscall(298, ctypes.create_string_buffer(128), 0, -1, -1, 0)
            result = 'ESCAPED' if r >= 0 else 'refused'""",
        "clone3_process": """
            import ctypes
            args = (ctypes.c_uint64 * 11)()
            r = ctypes.CDLL(None).syscall(435, args, 88)
            if r == 0:
                ctypes.CDLL(None)._exit(0)
            result = 'ESCAPED' if r > 0 else 'refused'""",
        "process_vm_readv_init": """
            import ctypes
            r = ctypes.CDLL(None).syscall(310, 1, None, 0, None, 0, 0)
            result = 'ESCAPED' if r >= 0 else 'refused'""",
        "setuid_root": "import os; os.setuid(0); result = 'ESCAPED'",
        "tiocsti_inject": """
            import fcntl, termios, os
            for fd in (0, 1, 2, os.open('/dev/tty', os.O_RDWR)):
                fcntl.ioctl(fd, termios.TIOCSTI, b'x')
            result = 'ESCAPED'""",
        "write_core_pattern": "open('/proc/sys/kernel/core_pattern', 'w').write('|/tmp/pwn'); result = 'ESCAPED'",
        "sysrq_trigger": """
            import os
            f = open('/proc/sysrq-trigger', 'w')
            same_as_null = os.fstat(f.fileno()).st_rdev == os.stat('/dev/null').st_rdev
            f.write('h')
            result = 'only a cover over it' if same_as_null else 'ESCAPED'""",
        "write_every_sysctl": """
            import os
            changed = []
            for dp, _, fns in os.walk('/proc/sys'):
                for f in fns:
                    try:
                        with open(os.path.join(dp, f), 'w') as fh:
                            fh.write('0')
                        changed.append(f)
                    except OSError:
                        pass
            result = 'ESCAPED' + str(changed) if changed else 'none'""",
        "write_init_memory": """
            import os
            if os.getpid() == 1:
                result = 'the program is pid 1: no other process to write into'
            else:
                open('/proc/1/mem', 'r+b'); result = 'ESCAPED'""",
        "other_processes_visible": "import os; result = 'ESCAPED' if [p for p in os.listdir('/proc') if p.isdigit() and p != str(os.getpid())] else 'alone'",
        "fill_dev_shm": "open('/dev/shm/fill', 'wb').write(b'x' * 2**20); result = 'ESCAPED'",
        "file_in_dev": "open('/dev/owned', 'wb').write(b'x'); result = 'ESCAPED'",
        "file_in_dev_pts": "open('/dev/pts/owned', 'wb').write(b'x'); result = 'ESCAPED'",
        "writable_folders_scan": """
            import os
            found = []
            for dp, dns, _ in os.walk('/'):
                if dp.startswith('/proc'):
                    dns[:] = []
                    continue
                if os.access(dp, os.W_OK) and dp not in ('/tmp', '/dev/pts'):
                    found.append(dp)
            result = 'ESCAPED' + str(found) if found else 'only /tmp'""",
        "raise_own_rlimits": """
            import resource
            resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
            result = 'ESCAPED'""",
        "raise_process_rlimit": """
            import resource
            resource.setrlimit(resource.RLIMIT_NPROC, (10000, 10000)); result = 'ESCAPED'""",
        # --- the audit hook and the result channel ----------------------------------------
        "disable_audit_hooks_then_write": f"""
            import gc, sys
            for o in gc.get_objects():
                if callable(o) and getattr(o, '__name__', '') == 'hook':
                    o.__code__ = (lambda *a: None).__code__
            open({victim!r}, 'w').write('pwned'); result = 'ESCAPED'""",
        "forge_on_extra_fds": """
            import os
            for fd in os.listdir('/proc/self/fd'):
                if int(fd) > 2:
                    try:
                        os.write(int(fd), b'{"ok": true, "value": "ESCAPED", "isolation": []}')
                    except OSError:
                        pass
            result = sorted(int(f) for f in os.listdir('/proc/self/fd'))""",
    }


def _attack_names():
    class _Stub:
        victim = victim_dir = db = "/x"
        unix_path = abstract_name = "x"
        tcp_port = udp_port = 1
    return list(_attacks(_Stub()))


def _run_attack(world, name: str, limits: Limits = LIMITS):
    before, started = world.snapshot(), ticks_now()
    res = run_python(textwrap.dedent(_attacks(world)[name]), limits=limits)
    assert res.status != "not_run" and "did not start" not in (res.error or ""), res.error
    assert res.isolation and res.isolation[0].startswith("bubblewrap"), "the parent records the isolation"
    # The attempt failed ...
    assert not (res.ok and "ESCAPED" in str(res.value)), f"{name} escaped: {res.value!r}"
    # ... and its effect did not happen.
    assert world.snapshot() == before, f"{name} changed a file outside the sandbox"
    assert world.reached() == [], f"{name} reached a socket the test serves"
    assert os.environ.get("REVIEWER_TEST_API_KEY") == SECRET
    deadline = time.monotonic() + 5
    while sandbox_processes(started) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sandbox_processes(started) == [], f"{name} left sandbox processes running"
    return res


@pytest.mark.parametrize("name", _attack_names())
def test_attack_fails_and_has_no_effect(world, name):
    _run_attack(world, name)


# --- resource attacks: each must also be stopped with the limit named -----------------

RESOURCE_ATTACKS = {
    "memory_bomb": ("blocks = []\nwhile True:\n    blocks.append(bytearray(50 * 2**20))\n", "limit", "address_space"),
    "disk_fill": ("for i in range(10):\n    open(f'/tmp/fill{i}', 'wb').write(b'x' * (12 * 2**20))\n", "limit", "disk"),
    "file_size": ("open('/tmp/big', 'wb').write(b'x' * (20 * 2**20))\n", "limit", "file_size"),
    "infinite_loop": ("while True:\n    pass\n", "limit", "cpu_time"),
    "sleep_past_wall": ("import time\ntime.sleep(60)\n", "timeout", "wall_time"),
    "huge_return_value": ("result = 'y' * 3_000_000\n", "limit", "output_size"),
    "huge_raw_output": ("import os\nwhile True:\n    os.write(1, b'z' * 65536)\n", "limit", "output_size"),
    "open_files_bomb": ("fs = []\nwhile True:\n    fs.append(open('/dev/null'))\n", "limit", "open_files"),
    "fork_bomb_named": ("import os\nwhile True:\n    os.fork()\n", "limit", "processes"),
    "thread_bomb_named": ("import threading, time\nwhile True:\n    threading.Thread(target=time.sleep, args=(60,)).start()\n",
                          "limit", "processes"),
    "forge_success_then_spin": ("import os\nos.write(1, b'{\"value\": \"forged\", \"error\": null, \"stdout\": \"\"}')\n"
                                "while True:\n    pass\n", "limit", "cpu_time"),
    "forge_success_then_sleep": ("import os, time\nos.write(1, b'{\"value\": \"forged\", \"error\": null, \"stdout\": \"\"}')\n"
                                 "os.close(1)\nos.close(2)\ntime.sleep(60)\n", "timeout", "wall_time"),
    "ignore_sigxcpu_and_spin": ("import _signal\n_signal.signal(_signal.SIGXCPU, _signal.SIG_IGN)\n"
                                "while True:\n    pass\n", "limit", "cpu_time"),
    "deeply_nested_result": ("import os\nos.write(1, b'[' * 200000)\nos._exit(0)\n", "error", None),
    "undecodable_result": ("import os\nos.write(1, b'\\xff\\xfe' * 1000)\nos._exit(0)\n", "error", None),
    "result_number_too_long": ("import os\nos.write(1, b'{\"value\": ' + b'1' * 100000 + b'}')\nos._exit(0)\n",
                               "error", None),
    "claim_a_timeout_from_inside": ("import os\nos.write(1, b'{\"value\": null, \"error\": \"x\", \"limit\": "
                                    "\"wall_time\"}')\nos._exit(3)\n", "error", None),
    "forge_success_then_exit_0": ("import os\nos.write(1, b'{\"value\": \"forged\", \"error\": null, \"stdout\": \"\", "
                                  "\"isolation\": [\"none\"]}')\nos._exit(0)\n", "ok", None),
}


@pytest.mark.parametrize("name", list(RESOURCE_ATTACKS))
def test_resource_attack_is_stopped_and_named(world, name):
    code, status, limit = RESOURCE_ATTACKS[name]
    # The wall limit is generous where the CPU limit must come first (a loaded machine gives a
    # program far less than one CPU second per wall second), short where the wall limit is tested.
    wall = 3 if limit == "wall_time" else 60
    limits = Limits(cpu_seconds=1, wall_seconds=wall, memory_mb=256, max_processes=0)
    before, started = world.snapshot(), ticks_now()
    t0 = time.monotonic()
    res = run_python(code, limits=limits)
    assert res.status == status, (res.status, res.error)
    assert res.limit == limit, (res.limit, res.error)
    assert time.monotonic() - t0 < wall + 5
    assert world.snapshot() == before
    # The program never describes the isolation: the parent's record stands.
    assert res.isolation and res.isolation[0].startswith("bubblewrap") and "none" not in res.isolation
    if name == "forge_success_then_exit_0":
        # Exiting 0 with a value is the same as returning it; it cannot claim more.
        assert res.value == "forged"
    deadline = time.monotonic() + 5
    while sandbox_processes(started) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sandbox_processes(started) == []


def test_a_huge_error_message_is_cut_to_a_message(world):
    res = run_python("raise ValueError('e' * 1_000_000)\n")
    assert res.status == "error" and res.error.startswith("ValueError: eee")
    assert len(res.error) < 5000 and "more characters" in res.error


def test_threads_are_capped_at_the_process_limit(world):
    code = "import threading, time\nts = []\nwhile True:\n    t = threading.Thread(target=time.sleep, args=(5,)); t.start(); ts.append(t)\n"
    res = run_python(code + "", limits=Limits(max_processes=4, wall_seconds=20))
    assert res.status == "limit" and res.limit == "processes", res.error
    assert "can't start new thread" in res.error
    counted = run_python("import threading, time\nts = [threading.Thread(target=time.sleep, args=(1,)) for _ in range(4)]\n"
                         "[t.start() for t in ts]\nresult = threading.active_count()\n",
                         limits=Limits(max_processes=4, wall_seconds=20))
    assert counted.ok and counted.value == 5, counted.error  # four threads besides the main one are allowed


def test_sandbox_never_runs_as_kernel_uid_0(world):
    """As root, bwrap runs as an unprivileged host uid: the program's processes are not uid 0 outside."""
    started = ticks_now()
    result = {}
    t = threading.Thread(target=lambda: result.setdefault("r", run_python("import time\ntime.sleep(3)\nresult = 1\n")))
    t.start()
    deadline = time.monotonic() + 20
    while not sandbox_processes(started) and time.monotonic() < deadline:
        time.sleep(0.05)
    uids = set()
    for pid in sandbox_processes(started):
        status = open(f"/proc/{pid}/status").read()
        uids.add(int(next(line for line in status.splitlines() if line.startswith("Uid:")).split()[1]))
    t.join()
    assert result["r"].ok
    assert uids and 0 not in uids, uids


def test_another_programs_folder_is_invisible(world):
    """Program A keeps a secret in its folder while B, running at the same time, looks for it everywhere."""
    keeper = "import time\nopen('/tmp/kept.txt', 'w').write('KEEPER-SECRET')\ntime.sleep(3)\nresult = 'kept'\n"
    seeker = """
import os, time
time.sleep(0.5)
found = []
for root in ['/tmp'] + [f'/proc/{p}/root/tmp' for p in os.listdir('/proc') if p.isdigit()] + ['/dev/shm']:
    try:
        for name in os.listdir(root):
            try:
                if 'KEEPER-SECRET' in open(os.path.join(root, name)).read():
                    found.append(root)
            except OSError:
                pass
    except OSError:
        pass
result = 'ESCAPED' if found else 'nothing'
"""
    results = {}
    threads = [threading.Thread(target=lambda k=k, c=c: results.__setitem__(k, run_python(c)))
               for k, c in (("keeper", keeper), ("seeker", seeker))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results["keeper"].ok and results["keeper"].value == "kept"
    assert results["seeker"].ok and results["seeker"].value == "nothing"


def test_nothing_persists_from_one_program_to_the_next(world):
    first = run_python("open('/tmp/left.txt', 'w').write('x')\ntry:\n    open('/dev/shm/left', 'w').write('x')\n"
                       "except OSError:\n    pass  # read-only\nresult = 1\n")
    assert first.ok, first.error
    second = run_python("import os\nresult = [os.path.exists('/tmp/left.txt'), os.path.exists('/dev/shm/left')]\n")
    assert second.ok and second.value == [False, False]


def test_app_killed_mid_run_leaves_no_sandbox_and_no_folder(tmp_path):
    """Kill the 'app' (a child Python running a program) with SIGKILL: the sandbox dies with it."""
    import signal
    import subprocess
    import sys

    script = tmp_path / "app.py"
    script.write_text("from reviewer.sandbox import Limits, availability, run_python\n"
                      "print('started', availability().message, flush=True)\n"
                      "r = run_python(\"open('/tmp/x', 'w').write('x')\\nimport time\\ntime.sleep(60)\\n\",\n"
                      "               limits=Limits(wall_seconds=60))\n"
                      "print(r.status, r.error, flush=True)\n")
    started = ticks_now()
    before_tmp = set(os.listdir("/tmp"))
    app = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env={**os.environ})
    first = app.stdout.readline().decode()
    assert first.startswith("started isolation available"), first
    deadline = time.monotonic() + 30
    while not sandbox_processes(started) and time.monotonic() < deadline and app.poll() is None:
        time.sleep(0.05)
    if not sandbox_processes(started):
        app.kill()
        out, err = app.communicate()
        raise AssertionError(f"the sandbox never started: {out.decode()} {err.decode()[-2000:]}")
    app.send_signal(signal.SIGKILL)
    app.wait()
    deadline = time.monotonic() + 10
    while sandbox_processes(started) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sandbox_processes(started) == [], "the sandbox outlived the app"
    assert not {n for n in set(os.listdir("/tmp")) - before_tmp if "sandbox" in n}, "a temporary folder was left"


def test_a_flood_on_raw_stderr_is_stopped(world):
    res = run_python("import os\nwhile True:\n    os.write(2, b'e' * 65536)\n", limits=Limits(output_bytes=10_000, wall_seconds=20))
    assert res.status == "limit" and res.limit == "output_size"
    assert res.duration < 15


CONTROL_ATTACKS = ["open_victim_for_write", "dir_fd_write", "chmod_victim", "setxattr_victim", "sqlite_rewrite_db",
                   "read_victim_secret", "served_unix_socket", "abstract_unix_socket", "tcp_loopback",
                   "udp_loopback", "tcp_ipv4_mapped_ipv6"]


def test_the_checks_catch_these_attacks_when_nothing_isolates_them(tmp_path):
    """Control: the same programs in a plain interpreter DO escape, and the checks above see it.

    Without this, an attack that failed for an unrelated reason (a typo, a wrong path)
    would pass as 'blocked'.
    """
    import subprocess
    import sys

    w = build_world(tmp_path)
    try:
        attacks = _attacks(w)
        for name in CONTROL_ATTACKS:
            before = w.snapshot()
            reached_before = len(w.reached())
            code = textwrap.dedent(attacks[name]) + "\nprint(result)\n"
            proc = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=30)
            escaped = "ESCAPED" in proc.stdout
            deadline = time.monotonic() + 3
            while not (w.snapshot() != before or len(w.reached()) > reached_before) and time.monotonic() < deadline:
                time.sleep(0.05)
            effect = w.snapshot() != before or len(w.reached()) > reached_before
            assert escaped or effect, f"{name} did not escape even without a sandbox: {proc.stderr[-300:]}"
            if name != "read_victim_secret":
                assert effect, f"{name} escaped but the checks did not see its effect"
    finally:
        close_world(w)
