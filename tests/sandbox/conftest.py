"""Fixtures for the sandbox tests: a 'world' outside the sandbox that attacks must not touch.

Every test in tests/sandbox/ uses the real bubblewrap. A machine where it cannot
start makes these tests FAIL (``require_isolation``), never skip: the bootstrap
script installs it.
"""

from __future__ import annotations

import hashlib
import os
import socket
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from reviewer.sandbox import availability

SECRET = "sk-test-SANDBOX-SECRET-5f2c9a"  # planted in the test process's environment


@pytest.fixture(scope="session", autouse=True)
def require_isolation():
    avail = availability(refresh=True)
    assert avail.available, f"bubblewrap must work for these tests: {avail.message}"
    return avail


class _Listener:
    """A server socket in a thread that records every connection or datagram it gets."""

    def __init__(self, sock: socket.socket, datagram: bool = False):
        self.sock = sock
        self.hits: list[bytes] = []
        self.datagram = datagram
        self._stop = False
        sock.settimeout(0.2)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self._stop:
            try:
                if self.datagram:
                    data, _ = self.sock.recvfrom(4096)
                    self.hits.append(data)
                else:
                    conn, _ = self.sock.accept()
                    self.hits.append(b"connect")
                    conn.close()
            except (TimeoutError, socket.timeout):
                continue
            except OSError:
                return

    def close(self):
        self._stop = True
        self.thread.join(timeout=2)
        self.sock.close()


@dataclass
class World:
    root: Path
    victim: Path
    victim_dir: Path
    db: Path
    unix_path: str
    abstract_name: str
    tcp_port: int
    udp_port: int
    listeners: list = field(default_factory=list)

    def snapshot(self) -> dict:
        """Bytes, mode, owner, times and extended attributes of every file in the world, and the db bytes."""
        out = {}
        for path in sorted(self.root.rglob("*")):
            if path.is_socket():
                continue
            st = path.lstat()
            entry = (st.st_mode, st.st_uid, st.st_gid, st.st_mtime_ns, st.st_size)
            if path.is_file() and not path.is_symlink():
                entry += (hashlib.sha256(path.read_bytes()).hexdigest(), tuple(sorted(os.listxattr(path))))
            out[str(path)] = entry
        out["__db__"] = hashlib.sha256(self.db.read_bytes()).hexdigest()
        out["__tmp_escapes__"] = sorted(p.name for p in Path("/tmp").glob("escaped-*"))
        out["__sysctls__"] = [Path(f"/proc/sys/{name}").read_text() for name in
                              ("kernel/core_pattern", "kernel/hostname", "vm/overcommit_memory", "net/ipv4/ip_forward")]
        out["__python_exe__"] = _stat_of(os.path.realpath(os.sys.executable))
        return out

    def reached(self) -> list:
        return [hit for listener in self.listeners for hit in listener.hits]


def _stat_of(path: str) -> tuple:
    st = os.stat(path)
    return (st.st_mode, st.st_size, st.st_mtime_ns)


def build_world(root: Path) -> World:
    """Victim files, a SQLite database and four listening sockets under ``root`` (close with close_world)."""
    victim_dir = root / "victim"
    victim_dir.mkdir()
    victim = victim_dir / "victim.txt"
    victim.write_text("original victim content\n")
    victim.chmod(0o644)
    (victim_dir / "secret.txt").write_text(SECRET)
    db = root / "reviewer.db"
    with sqlite3.connect(db) as conn:
        conn.execute("create table gold (id integer primary key, answer text)")
        conn.executemany("insert into gold (answer) values (?)", [("Black",), ("42",)])
    conn.close()

    unix_path = str(root / "served.sock")
    unix_sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix_sock.bind(unix_path)
    unix_sock.listen(8)
    abstract_name = f"reviewer-test-{os.getpid()}-{root.name}"
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract.bind("\0" + abstract_name)
    abstract.listen(8)
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(8)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    listeners = [_Listener(unix_sock), _Listener(abstract), _Listener(tcp), _Listener(udp, datagram=True)]
    return World(root, victim, victim_dir, db, unix_path, abstract_name, tcp.getsockname()[1],
                 udp.getsockname()[1], listeners)


def close_world(w: World) -> None:
    for listener in w.listeners:
        listener.close()


@pytest.fixture(scope="session")
def world(tmp_path_factory):
    w = build_world(tmp_path_factory.mktemp("world"))
    os.environ["REVIEWER_TEST_API_KEY"] = SECRET
    yield w
    os.environ.pop("REVIEWER_TEST_API_KEY", None)
    close_world(w)


def sandbox_processes(started_after: float = 0.0) -> list[int]:
    """Pids of bwrap or sandboxed interpreters started after ``started_after`` (clock ticks since boot)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes()
            start = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[19])
        except (OSError, IndexError, ValueError):
            continue
        if (b"/python/bin/python3\0-I\0-S\0-B" in cmd) and start >= started_after:
            pids.append(int(entry))
    return pids


def ticks_now() -> float:
    """Now, in the clock ticks since boot that /proc/PID/stat's start time uses."""
    # One tick early: /proc/uptime and the start time are rounded differently.
    return int(float(Path("/proc/uptime").read_text().split()[0]) * os.sysconf("SC_CLK_TCK")) - 1
