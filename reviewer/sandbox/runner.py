"""Run one untrusted Python program in its own bubblewrap sandbox and judge the outcome.

The parent (this module) alone decides the status, from what it observes
itself: the wall clock, the number of bytes that came back, bwrap's exit
status and the CPU time the sandbox used (``wait4`` rusage). What the program
sends back on stdout is only its value, its printed text and its error
message; it cannot turn a failed, killed or over-limit run into a success,
and the isolation recorded with the result is the parent's own configuration.
"""

from __future__ import annotations

import json
import marshal
import os
import selectors
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from reviewer.sandbox import engine
from reviewer.sandbox.seccomp import build_filter

Status = Literal["ok", "error", "timeout", "killed", "limit", "not_run"]
LIMIT_NAMES = ("cpu_time", "wall_time", "address_space", "file_size", "open_files", "output_size",
               "processes", "disk")
_STARTED = b"\x00reviewer-sandbox-started\n"  # must equal _boot.STARTED
_EXIT_OK, _EXIT_ERROR, _EXIT_LIMIT = 0, 1, 3  # _boot's exit codes
_STDERR_CAP = 64 * 1024
_ERROR_CAP = 4000
# Limits that show up inside as an exception, so the in-sandbox code names them. The
# program could claim one of these falsely, which only fails its own run; the others
# (wall and CPU time, the parent's output cap) only the parent can report.
_LIMITS_SEEN_INSIDE = ("address_space", "file_size", "open_files", "output_size", "processes", "disk")


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandboxed program.

    ``memory_mb`` is the address space (RLIMIT_AS); ``disk_mb`` the size of its
    private tmpfs; ``max_processes`` the threads it may start besides its main
    one (it can never start a process); ``output_bytes`` caps the return value
    (bytes of its ASCII JSON) and the printed text (characters; the rest is
    dropped and counted).
    """

    cpu_seconds: int = 5
    wall_seconds: float = 10.0
    memory_mb: int = 512
    file_size_mb: int = 16
    disk_mb: int = 32
    open_files: int = 64
    max_processes: int = 0
    output_bytes: int = 1_000_000


@dataclass(frozen=True)
class SandboxResult:
    """What became of one program.

    ``status``: "ok" (it returned ``value``), "error" (it raised, or its result
    was malformed; ``error`` says why), "timeout" (wall clock; ``limit`` is
    "wall_time"), "limit" (``limit`` names which: cpu_time, address_space,
    file_size, open_files, output_size, processes, disk), "killed" (a signal
    the limits do not explain) or "not_run" (no isolation available here;
    ``error`` says why and how to enable it). ``value`` is the JSON round-trip
    of the return value; one JSON cannot carry comes back as its ``repr`` with
    ``value_is_repr`` set. ``stdout`` is what the program printed (capped).
    ``isolation`` is the parent's record of the sandbox used (empty when not run).
    """

    status: Status
    value: Any = None
    error: str | None = None
    limit: str | None = None
    stdout: str = ""
    duration: float = 0.0
    value_is_repr: bool = False
    isolation: tuple[str, ...] = field(default_factory=tuple)
    cpu_seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def run_python(code: str, entry: str | None = None, args_json: Any = None,
               limits: Limits | None = None) -> SandboxResult:
    """Run ``code`` in a fresh sandbox and return what it produced.

    With ``entry``, the function of that name is called with ``args_json`` (a
    list is spread as positional arguments, anything else is the one
    argument); without it, the value is the program's global ``result``.
    Never raises for anything the program does. Where no isolation is
    available the code is not run: status "not_run" with the reason.
    """
    limits = limits or Limits()
    avail = engine.availability()
    if not avail.available:
        return SandboxResult("not_run", error=avail.message)
    return execute(engine.bwrap_path(), code, entry, args_json, limits,
                   engine.isolation_record(avail.engine, asdict(limits)))


def run_many(jobs: list[tuple[str, str | None, Any]], limits: Limits | None = None,
             workers: int | None = None) -> list[SandboxResult]:
    """Run many ``(code, entry, args_json)`` programs, each in its own sandbox, ``workers`` at a time.

    Results are in the order of ``jobs``. The threads only wait on bwrap
    processes, and a sandbox spends much of its short life in the kernel
    setting up or tearing down namespaces, so the default is four per core
    (measured on 2 loaded cores: 19-25 programs/s with 4 workers, 23-37 with 8).
    """
    limits = limits or Limits()
    if not jobs:
        return []
    if not engine.availability().available:
        return [run_python(code, entry, args, limits) for code, entry, args in jobs]
    workers = workers or 4 * (os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sandbox") as pool:
        return list(pool.map(lambda job: run_python(job[0], job[1], job[2], limits), jobs))


def _pipe_with(data: bytes) -> int:
    """A pipe's read end already holding ``data`` (which must fit the pipe buffer) and closed for writing."""
    read_fd, write_fd = os.pipe()
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(write_fd, view):]
    finally:
        os.close(write_fd)
    return read_fd


def execute(bwrap: str, code: str, entry: str | None, args_json: Any, limits: Limits,
            isolation: tuple[str, ...]) -> SandboxResult:
    """Start one sandbox with ``bwrap`` and judge it (the probe uses this before availability is known)."""
    started = time.monotonic()
    try:
        # JSON first (what the program may receive: tuples become lists, no other types), then marshal,
        # which the sandbox reads without importing json. Nothing in marshal format ever comes back.
        request = marshal.dumps({"code": str(code), "entry": entry,
                                 "args": json.loads(json.dumps(args_json, allow_nan=True))})
    except (TypeError, ValueError) as exc:
        return SandboxResult("error", error=f"the program's input is not JSON: {exc}")
    options = "\0".join(engine.bwrap_args(limits.disk_mb)).encode() + b"\0"
    fds: list[int] = []
    try:
        fds.append(_pipe_with(build_filter(limits.max_processes > 0)))
        options += b"--seccomp\0" + str(fds[-1]).encode() + b"\0"
        fds.append(_pipe_with(options))
        prefix, identity = engine.popen_identity()
        proc = subprocess.Popen(
            [*prefix, bwrap, "--args", str(fds[-1]), *engine.command(limits)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=fds,
            env=engine.BWRAP_ENV_VARS, cwd="/", start_new_session=True, close_fds=True, **identity,
        )
    except OSError as exc:
        return SandboxResult("error", error=f"bubblewrap could not be started: {exc}",
                             duration=time.monotonic() - started)
    finally:
        for fd in fds:
            os.close(fd)
    try:
        out, err, reason = _exchange(proc, request, started + limits.wall_seconds,
                                     _channel_cap(limits))
    finally:
        status, usage, late = _reap(proc, started + limits.wall_seconds)
        proc.returncode = os.waitstatus_to_exitcode(status)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            try:
                stream.close()
            except OSError:
                pass
    cpu = usage.ru_utime + usage.ru_stime
    if late and reason is None:
        reason = "wall_time"  # it closed its output but went on running past the limit
    return _judge(out, err, reason, proc.returncode, cpu, limits, time.monotonic() - started, isolation)


def _reap(proc: subprocess.Popen, deadline: float) -> tuple[int, Any, bool]:
    """Wait for bwrap until ``deadline`` (then kill it); return (wait status, rusage, whether it was killed late).

    ``wait4`` (not Popen.wait) because its rusage also counts the CPU time of
    the program, which bwrap reaps.
    """
    late = False
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            return status, usage, late
        if time.monotonic() >= deadline and not late:
            late = True
            _kill(proc)
            _, status, usage = os.wait4(proc.pid, 0)
            return status, usage, late
        time.sleep(0.002)


def _channel_cap(limits: Limits) -> int:
    """Bytes the parent reads back at most: the value (at most ``output_bytes`` of ASCII JSON), the
    printed text (at most ``output_bytes`` characters, each up to 6 bytes escaped) and the envelope."""
    return 7 * limits.output_bytes + 65536


def _kill(proc: subprocess.Popen) -> None:
    """Kill bwrap; --die-with-parent then kills the sandbox's init, and with it its whole PID namespace."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _exchange(proc: subprocess.Popen, request: bytes, deadline: float, cap: int) -> tuple[bytes, bytes, str | None]:
    """Feed stdin, read stdout (capped) and stderr (capped) until both close; return (out, err, cut reason).

    The cut reason is "wall_time" or "output_size" when the parent stopped the
    sandbox (it kills it at once), else None.
    """
    sel = selectors.DefaultSelector()
    pending = memoryview(request)
    os.set_blocking(proc.stdin.fileno(), False)
    sel.register(proc.stdin, selectors.EVENT_WRITE)
    sel.register(proc.stdout, selectors.EVENT_READ)
    sel.register(proc.stderr, selectors.EVENT_READ)
    out: list[bytes] = []
    err: list[bytes] = []
    sizes = {proc.stdout: 0, proc.stderr: 0}
    reason = None
    try:
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                reason = "wall_time"
                break
            for key, _ in sel.select(timeout=left):
                stream = key.fileobj
                if stream is proc.stdin:
                    try:
                        pending = pending[os.write(proc.stdin.fileno(), pending[:65536]):]
                    except (BrokenPipeError, OSError):
                        pending = memoryview(b"")
                    if not pending:
                        sel.unregister(proc.stdin)
                        proc.stdin.close()
                    continue
                chunk = os.read(stream.fileno(), 65536)
                if not chunk:
                    sel.unregister(stream)
                    continue
                sizes[stream] += len(chunk)
                if stream is proc.stdout:
                    out.append(chunk)
                    if sizes[stream] > cap:
                        reason = "output_size"
                        break
                else:
                    if sizes[stream] <= _STDERR_CAP:
                        err.append(chunk)
                    elif sizes[stream] > cap:  # raw writes to fd 2: stop a flood rather than read it to the end
                        reason = "output_size"
                        break
            if reason:
                break
    finally:
        sel.close()
    if reason:
        _kill(proc)
    return b"".join(out), b"".join(err)[:_STDERR_CAP], reason


def _judge(out: bytes, err: bytes, reason: str | None, returncode: int, cpu: float, limits: Limits,
           duration: float, isolation: tuple[str, ...]) -> SandboxResult:
    base = {"duration": duration, "isolation": isolation, "cpu_seconds": cpu}
    if reason == "wall_time":
        return SandboxResult("timeout", error=f"wall-clock limit: stopped after {limits.wall_seconds:g} s",
                             limit="wall_time", **base)
    if reason == "output_size":
        return SandboxResult("limit", error=f"output limit: the program sent more than {limits.output_bytes} "
                             "bytes back", limit="output_size", **base)
    signum = -returncode if returncode < 0 else (returncode - 128 if returncode > 128 else 0)
    # SIGXCPU comes from the kernel at the soft CPU limit (a program sending it to
    # itself only fails its own run); SIGKILL is the hard limit one second later.
    if signum == signal.SIGXCPU or (signum == signal.SIGKILL and cpu >= limits.cpu_seconds):
        return SandboxResult("limit", error=f"CPU time limit: the program used more than {limits.cpu_seconds} s",
                             limit="cpu_time", **base)
    if signum == signal.SIGXFSZ:
        return SandboxResult("limit", error=f"file size limit: a file grew past {limits.file_size_mb} MB",
                             limit="file_size", **base)
    if not out.startswith(_STARTED):
        detail = err.decode("utf-8", "replace").strip() or f"exit status {returncode}"
        return SandboxResult("error", error=f"the sandbox did not start: {detail[:500]}", **base)
    if signum:
        name = signal.Signals(signum).name if signum in signal.Signals._value2member_map_ else str(signum)
        return SandboxResult("killed", error=f"killed by {name}", **base)
    try:
        data = json.loads(out[len(_STARTED):])
    except (ValueError, RecursionError):  # RecursionError: hostile nesting ([[[[...) must not reach the caller
        data = None
    if not isinstance(data, dict):
        return SandboxResult("error", error=f"the program exited with status {returncode} without a "
                             "well-formed result", **base)
    printed = data.get("stdout") if isinstance(data.get("stdout"), str) else ""
    message = data.get("error") if isinstance(data.get("error"), str) else None
    if message is not None and len(message) > _ERROR_CAP:  # it lands in score notes: keep it a message
        message = message[:_ERROR_CAP] + f" [... {len(message) - _ERROR_CAP} more characters]"
    if returncode == _EXIT_OK and message is None and "value" in data:
        return SandboxResult("ok", value=data["value"], stdout=printed,
                             value_is_repr=bool(data.get("value_is_repr")), **base)
    limit = data.get("limit")
    if returncode == _EXIT_LIMIT and limit in _LIMITS_SEEN_INSIDE:
        return SandboxResult("limit", error=f"{_LIMIT_TEXT[limit](limits)}: {message or ''}".strip(),
                             limit=limit, stdout=printed, **base)
    return SandboxResult("error", error=message or f"the program exited with status {returncode}",
                         stdout=printed, **base)


_LIMIT_TEXT = {
    "address_space": lambda lim: f"memory limit: address space over {lim.memory_mb} MB",
    "open_files": lambda lim: f"open files limit: more than {lim.open_files} files open",
    "processes": lambda lim: (f"process limit: no new processes, at most {lim.max_processes} threads"
                              if lim.max_processes else "process limit: no new processes or threads"),
    "disk": lambda lim: f"disk limit: the {lim.disk_mb} MB working folder is full",
    "file_size": lambda lim: f"file size limit: a file grew past {lim.file_size_mb} MB",
    "output_size": lambda lim: f"output limit: the return value is over {lim.output_bytes} bytes",
    "cpu_time": lambda lim: f"CPU time limit: {lim.cpu_seconds} s",
    "wall_time": lambda lim: f"wall-clock limit: {lim.wall_seconds:g} s",
}
