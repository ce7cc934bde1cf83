"""Run untrusted Python (model-written code) in a separate, locked-down process.

Each program runs in a new ``python -I`` interpreter (never a fork of the
app) started in its own session inside a private temporary directory that is
deleted afterwards. The child (``_child.py``) isolates the network (a new
network namespace, or an audit hook refusing sockets where namespaces are not
allowed), drops its capabilities, sets RLIMIT_CPU / RLIMIT_AS / RLIMIT_FSIZE /
RLIMIT_NPROC, and refuses writes outside its directory and process creation
through an audit hook. The parent enforces the wall-clock timeout by killing
the child's whole process group and caps what it reads back. The result comes
back as JSON over a dedicated pipe, so nothing the program prints can forge it.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

_CHILD = Path(__file__).with_name("_child.py")
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
               limits: Limits | None = None) -> SandboxResult:
    """Run ``code`` in a sandboxed interpreter and return what it produced.

    With ``entry``, the function of that name is called with ``args_json``
    (a list is spread as positional arguments, anything else is passed as the
    one argument); without it, the value is the program's global ``result``.
    Never raises for anything the program does; raises OSError only when the
    child interpreter cannot be started at all.
    """
    limits = limits or Limits()
    started = time.monotonic()
    workdir = tempfile.mkdtemp(prefix="reviewer-sandbox-")
    read_fd, write_fd = os.pipe()
    try:
        request = json.dumps({"code": code, "entry": entry, "args": args_json,
                              "limits": asdict(limits), "network": limits.network}).encode("utf-8")
        proc = subprocess.Popen(
            [sys.executable, "-I", "-S", str(_CHILD), str(write_fd)],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(write_fd,), cwd=workdir, start_new_session=True,
            env={"PATH": os.defpath, "LANG": "C.UTF-8", "HOME": workdir},
        )
        os.close(write_fd)
        write_fd = -1
        try:
            proc.stdin.write(request)
            proc.stdin.close()
        except BrokenPipeError:
            pass  # the child died early; its exit status says why
        raw, timed_out, overflow = _read_result(read_fd, proc, started + limits.wall_seconds,
                                                limits.output_bytes * 2 + 65536)
        if timed_out or overflow:
            _kill_group(proc)
        _reap(proc, started + limits.wall_seconds + 1.0)
        duration = time.monotonic() - started
        if timed_out:
            return SandboxResult(False, error=f"wall-clock timeout after {limits.wall_seconds:g} s "
                                 "(the process group was killed)", duration=duration)
        if overflow:
            return SandboxResult(False, error="output too large: the program's result exceeded the "
                                 f"output cap ({limits.output_bytes} bytes)", duration=duration)
        return _decode(raw, proc.returncode, limits, duration)
    finally:
        if write_fd >= 0:
            os.close(write_fd)
        os.close(read_fd)
        shutil.rmtree(workdir, ignore_errors=True)


def run_many(jobs: list[tuple[str, str | None, Any]], limits: Limits | None = None,
             workers: int | None = None) -> list[SandboxResult]:
    """Run many ``(code, entry, args_json)`` programs, ``workers`` at a time.

    Results are in the order of ``jobs``. Threads only wait on child
    processes, so the default of one worker per core keeps every core busy.
    """
    workers = workers or os.cpu_count() or 2
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda job: run_python(job[0], job[1], job[2], limits), jobs))


def _read_result(fd: int, proc: subprocess.Popen, deadline: float, cap: int) -> tuple[bytes, bool, bool]:
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


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _reap(proc: subprocess.Popen, deadline: float) -> None:
    try:
        proc.wait(timeout=max(0.1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        proc.wait()


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
