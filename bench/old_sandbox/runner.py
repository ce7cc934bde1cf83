"""Run untrusted Python (model-written code) in a separate, locked-down process.

Each program runs in its own process, never a fork of the app: either forked
from a clean ``python -I -S`` start-up server that only ever forks (the
default: it saves ~30 ms of interpreter start-up per program), or spawned as
a fresh ``python -I -S`` of its own. Either way it gets a new session and a
private temporary directory that is deleted afterwards. The child (``_child.py``) isolates the network (a new
network namespace, or an audit hook refusing sockets where namespaces are not
allowed), joins a pids cgroup when it can (the kernel exempts root from
RLIMIT_NPROC), drops its capabilities, sets RLIMIT_CPU / RLIMIT_AS /
RLIMIT_FSIZE / RLIMIT_NPROC, and refuses writes outside its directory and
process creation through an audit hook. The parent enforces the wall-clock timeout by killing
the child's whole process group and caps what it reads back. The result comes
back as JSON over a dedicated pipe, so nothing the program prints can forge it.
"""

from __future__ import annotations

import atexit
import glob
import itertools
import json
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from ._child import PIDS_CGROUP_ROOTS, pids_cgroup_paths

_CHILD = Path(__file__).with_name("_child.py")
StartMethod = Literal["server", "spawn"]
# REVIEWER_SANDBOX_START=spawn starts a fresh interpreter per program (slower, no long-lived helper).
DEFAULT_START: StartMethod = "spawn" if os.environ.get("REVIEWER_SANDBOX_START") == "spawn" else "server"
_SIGNAL_REASONS = {
    signal.SIGXCPU: "CPU time limit exceeded",
    signal.SIGKILL: "killed",
    signal.SIGSEGV: "crashed (segmentation fault)",
    signal.SIGXFSZ: "file size limit exceeded",
}


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandboxed program.

    ``max_processes`` is RLIMIT_NPROC; 0 means the program may not start any
    process or thread. ``output_bytes`` caps the captured stdout and the
    encoded return value alike. ``network`` picks the isolation: "auto" tries
    a network namespace and falls back to the audit hook; "netns" or "audit"
    force one (tests use them to check each path).
    """

    cpu_seconds: int = 5
    wall_seconds: float = 10.0
    memory_mb: int = 512
    file_size_mb: int = 16
    max_processes: int = 0
    output_bytes: int = 1_000_000
    network: Literal["auto", "netns", "audit"] = "auto"


@dataclass
class SandboxResult:
    """What a program did: its return value, or why it failed.

    ``value`` is the JSON round-trip of the return value (a tuple comes back
    as a list); a value JSON cannot carry comes back as its ``repr`` with
    ``value_is_repr`` set. ``error`` is a one-line reason first ("wall-clock
    timeout after 2 s", "MemoryError: ...") followed by the traceback tail.
    ``isolation`` lists the layers that applied ("netns" or "audit",
    "no-capabilities", "rlimits", "audit-hook").
    """

    ok: bool
    value: Any = None
    error: str | None = None
    stdout: str = ""
    duration: float = 0.0
    value_is_repr: bool = False
    isolation: list[str] = field(default_factory=list)


def run_python(code: str, entry: str | None = None, args_json: Any = None,
               limits: Limits | None = None, start: StartMethod | None = None) -> SandboxResult:
    """Run ``code`` in a sandboxed interpreter and return what it produced.

    With ``entry``, the function of that name is called with ``args_json``
    (a list is spread as positional arguments, anything else is passed as the
    one argument); without it, the value is the program's global ``result``.
    ``start`` picks how the process is made: "server" (default) forks it from
    a clean ``python -I -S`` start-up server that never runs user code, which
    saves the interpreter's start-up per program; "spawn" starts a new
    ``python -I -S`` for the program alone. Never raises for anything the
    program does; raises OSError only when no interpreter can be started.
    """
    limits = limits or Limits()
    method = start or DEFAULT_START
    started = time.monotonic()
    deadline = started + limits.wall_seconds
    workdir = tempfile.mkdtemp(prefix="reviewer-sandbox-")
    read_fd, write_fd = os.pipe()
    request = {"code": code, "entry": entry, "args": args_json, "limits": asdict(limits), "network": limits.network}
    try:
        if method == "server":
            process = _start_with_server(request, workdir, write_fd, deadline)
        else:
            process = _start_with_spawn(request, workdir, write_fd)
        os.close(write_fd)
        write_fd = -1
        if process.failed_to_start:
            return SandboxResult(False, error=process.failed_to_start, duration=time.monotonic() - started)
        raw, timed_out, overflow = _read_result(read_fd, deadline, limits.output_bytes * 2 + 65536)
        if timed_out or overflow:
            process.kill_group()
        returncode = process.wait(deadline + 1.0)
        _remove_pids_cgroup(process.pid)
        duration = time.monotonic() - started
        if timed_out:
            return SandboxResult(False, error=f"wall-clock timeout after {limits.wall_seconds:g} s "
                                 "(the process group was killed)", duration=duration)
        if overflow:
            return SandboxResult(False, error="output too large: the program's result exceeded the "
                                 f"output cap ({limits.output_bytes} bytes)", duration=duration)
        return _decode(raw, returncode, limits, duration)
    finally:
        if write_fd >= 0:
            os.close(write_fd)
        os.close(read_fd)
        shutil.rmtree(workdir, ignore_errors=True)


class _Spawned:
    """A program started as its own ``python -I -S`` process."""

    failed_to_start = None

    def __init__(self, proc: subprocess.Popen):
        self.proc = proc
        self.pid = proc.pid

    def kill_group(self) -> None:
        _kill_group(self.proc.pid)

    def wait(self, deadline: float) -> int | None:
        try:
            return self.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.kill_group()
            return self.proc.wait()


def _start_with_spawn(request: dict, workdir: str, write_fd: int) -> _Spawned:
    proc = subprocess.Popen(
        [sys.executable, "-I", "-S", str(_CHILD), str(write_fd)],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        pass_fds=(write_fd,), cwd=workdir, start_new_session=True, env=_child_env(workdir),
    )
    try:
        proc.stdin.write(json.dumps(request).encode("utf-8"))
        proc.stdin.close()
    except BrokenPipeError:
        pass  # the child died early; its exit status says why
    return _Spawned(proc)


def _child_env(home: str) -> dict:
    return {"PATH": os.defpath, "LANG": "C.UTF-8", "HOME": home}


class _Forked:
    """A program forked by the start-up server; its pid and exit code arrive as messages."""

    def __init__(self):
        self.pid: int | None = None
        self.exit_code: int | None = None
        self.failed_to_start: str | None = None
        self.forked = threading.Event()
        self.exited = threading.Event()

    def kill_group(self) -> None:
        if self.pid is not None and not self.exited.is_set():
            _kill_group(self.pid)

    def wait(self, deadline: float) -> int | None:
        if not self.exited.wait(max(0.1, deadline - time.monotonic())):
            self.kill_group()
            self.exited.wait(2.0)
        return self.exit_code


class _StartServer:
    """One ``python -I -S _child.py --serve`` per app process (see ``_child.serve``).

    A reader thread routes the server's replies to the waiting programs. If
    the server dies, every waiting program fails with that reason and the
    next program starts a new server.
    """

    def __init__(self):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-S", str(_CHILD), "--serve", str(theirs.fileno())],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(theirs.fileno(),), start_new_session=True, env=_child_env(tempfile.gettempdir()),
        )
        theirs.close()
        self.sock = ours
        self.alive = True
        self._send_lock = threading.Lock()
        self._waiting: dict[int, _Forked] = {}
        self._ids = itertools.count(1)
        threading.Thread(target=self._read_replies, name="sandbox-server-replies", daemon=True).start()

    def submit(self, workdir: str, write_fd: int) -> _Forked:
        forked = _Forked()
        ident = next(self._ids)
        self._waiting[ident] = forked
        try:
            with self._send_lock:
                socket.send_fds(self.sock, [json.dumps({"id": ident, "workdir": workdir}).encode()], [write_fd])
        except OSError as exc:
            self._waiting.pop(ident, None)
            self._fail_all(f"the sandbox start-up server is gone ({exc})")
            forked.failed_to_start = f"the sandbox start-up server is gone ({exc}); try again"
        return forked

    def _read_replies(self) -> None:
        while True:
            try:
                data = self.sock.recv(4096)
            except OSError:
                data = b""
            if not data:
                self._fail_all("the sandbox start-up server stopped")
                return
            msg = json.loads(data)
            forked = self._waiting.get(msg["id"])
            if forked is None:
                continue
            if "pid" in msg:
                forked.pid = msg["pid"]
                forked.forked.set()
            else:
                forked.exit_code = msg["exit"]
                self._waiting.pop(msg["id"], None)
                forked.exited.set()

    def _fail_all(self, reason: str) -> None:
        self.alive = False
        for forked in list(self._waiting.values()):
            forked.failed_to_start = forked.failed_to_start or reason
            forked.forked.set()
            forked.exited.set()
        self._waiting.clear()

    def close(self) -> None:
        self.alive = False
        self.sock.close()
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            _kill_group(self.proc.pid)


_server: _StartServer | None = None
_server_lock = threading.Lock()


def _get_server() -> _StartServer:
    global _server
    with _server_lock:
        if _server is None or not _server.alive or _server.proc.poll() is not None:
            _server = _StartServer()
        return _server


@atexit.register
def _stop_server() -> None:
    if _server is not None:
        _server.close()


def _start_with_server(request: dict, workdir: str, write_fd: int, deadline: float) -> _Forked:
    with open(os.path.join(workdir, "request.json"), "w", encoding="utf-8") as f:
        json.dump(request, f)
    forked = _get_server().submit(workdir, write_fd)
    if not forked.forked.wait(max(0.1, deadline - time.monotonic())) and not forked.failed_to_start:
        forked.failed_to_start = "the sandbox start-up server did not answer in time"
    return forked


def run_many(jobs: list[tuple[str, str | None, Any]], limits: Limits | None = None,
             workers: int | None = None, start: StartMethod | None = None) -> list[SandboxResult]:
    """Run many ``(code, entry, args_json)`` programs, ``workers`` at a time.

    Results are in the order of ``jobs``. Threads only wait on child
    processes, and each child spends part of its life starting, exiting or
    waiting on a pipe, so the default of two workers per core keeps the cores
    busy (measured on 2 loaded cores: 19 programs/s with 2 workers, 45 with 4).
    """
    workers = workers or 2 * (os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda job: run_python(job[0], job[1], job[2], limits, start), jobs))


def _read_result(fd: int, deadline: float, cap: int) -> tuple[bytes, bool, bool]:
    """Read the result pipe to EOF; report (data, timed out, over the cap)."""
    chunks: list[bytes] = []
    size = 0
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return b"".join(chunks), True, False
            if not sel.select(timeout=left):
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                return b"".join(chunks), False, False
            chunks.append(chunk)
            size += len(chunk)
            if size > cap:
                return b"", False, True


def _remove_pids_cgroup(pid: int | None) -> None:
    """Remove the pids cgroup a finished program made (its tasks may take a moment to leave).

    A cgroup that cannot be removed yet is retried by the next run, and cgroups left
    behind by a process that died (a crashed app) are swept once per process.
    """
    _sweep_stale_cgroups()
    if pid is None:
        return
    for path in pids_cgroup_paths(pid):
        for _ in range(400):  # up to ~2 s; the group normally empties at once
            try:
                os.rmdir(path)
                break
            except FileNotFoundError:
                break
            except OSError:
                time.sleep(0.005)
        else:
            _LEFT_BEHIND.add(path)


_LEFT_BEHIND: set[str] = set()
_swept_at_start = False
STALE_CGROUP_AGE = 60.0  # seconds; younger ones may belong to a program starting right now


def _sweep_stale_cgroups() -> None:
    """rmdir our leftover cgroups: ones this process could not remove before, and (once)
    old ones of dead processes. rmdir only succeeds on an empty cgroup, so a running
    program's cgroup is never touched."""
    global _swept_at_start
    candidates = set(_LEFT_BEHIND)
    if not _swept_at_start:
        _swept_at_start = True
        now = time.time()
        for root in PIDS_CGROUP_ROOTS:
            for path in glob.glob(os.path.join(root, "reviewer-sandbox-*")):
                try:
                    if now - os.stat(path).st_mtime > STALE_CGROUP_AGE:
                        candidates.add(path)
                except OSError:
                    pass
    for path in candidates:
        try:
            os.rmdir(path)
            _LEFT_BEHIND.discard(path)
        except FileNotFoundError:
            _LEFT_BEHIND.discard(path)
        except OSError:
            pass


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _decode(raw: bytes, returncode: int, limits: Limits, duration: float) -> SandboxResult:
    if raw:
        try:
            data = json.loads(raw)
        except ValueError:
            data = None
        if isinstance(data, dict):
            return SandboxResult(
                ok=bool(data.get("ok")), value=data.get("value"), error=data.get("error"),
                stdout=data.get("stdout") or "", duration=duration,
                value_is_repr=bool(data.get("value_is_repr")), isolation=data.get("isolation") or [],
            )
    if returncode is not None and returncode < 0:
        sig = signal.Signals(-returncode)
        reason = _SIGNAL_REASONS.get(sig, f"killed by {sig.name}")
        if sig == signal.SIGXCPU or sig == signal.SIGKILL:
            reason += f" (CPU limit {limits.cpu_seconds} s)"
        return SandboxResult(False, error=f"{reason}", duration=duration)
    return SandboxResult(False, error=f"the sandboxed interpreter exited with status {returncode} "
                         "without a result", duration=duration)
