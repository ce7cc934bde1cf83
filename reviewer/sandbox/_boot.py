"""The first code that runs inside the sandbox (passed to ``python -I -S -B -c``).

Standard library only: it runs in the sandbox's isolated interpreter, which
cannot see the reviewer package. ``sys.argv[1]`` holds the limits (a Python
literal of ints); the request ``{"code", "entry", "args"}`` arrives on stdin in
``marshal`` format, written by the parent from JSON-compatible values (the
parent never reads marshal back: what comes out of the sandbox is JSON).

Start-up time is most of a sandbox's cost, so this file imports only built-in
and C modules: no ``json`` (its decoder pulls in ``re`` and ``enum``), no
``signal`` (``enum``); the value is encoded with the C encoder of ``_json``.

What it writes to stdout (the result channel): the ``STARTED`` marker first,
before any program code runs (the parent takes its absence to mean the
sandbox never started), then one JSON document::

    {"value": any, "value_is_repr": bool, "stdout": str, "error": str|null, "limit": str|null}

and it exits 0 (the program returned), 1 (the program raised) or 3 (the
program ran into a limit that shows up as an exception inside: address space,
open files, processes, disk). Everything after the marker comes from the
same process as the program, so the parent trusts none of it for the status:
the program can make its own run fail, never make it succeed beyond returning
a value, and it never describes the isolation (the parent records that).
"""

import _json
import _signal
import io
import marshal
import os
import resource
import sys

STARTED = b"\x00reviewer-sandbox-started\n"
EXIT_OK, EXIT_ERROR, EXIT_LIMIT = 0, 1, 3


class _CappedText(io.TextIOBase):
    """A text sink keeping at most ``cap`` characters (the rest is counted, not kept)."""

    def __init__(self, cap):
        self.cap = cap
        self.parts = []
        self.size = 0
        self.dropped = 0

    def writable(self):
        return True

    def write(self, s):
        s = str(s)
        room = self.cap - self.size
        if room > 0:
            kept = s[:room]
            self.parts.append(kept)
            self.size += len(kept)
        self.dropped += max(0, len(s) - max(room, 0))
        return len(s)

    def text(self):
        out = "".join(self.parts)
        if self.dropped:
            out += "\n[sandbox: %d more characters of output dropped]" % self.dropped
        return out


def _no_default(value):
    raise TypeError(type(value).__name__)


# json.dumps(value, allow_nan=True) without importing json: the same C encoder
# json.encoder uses for one-shot encoding (markers={} detects cycles).
_ENCODE = _json.make_encoder({}, _no_default, _json.encode_basestring_ascii, None, ": ", ", ", False, False, True)


def _dumps(value):
    return "".join(_ENCODE(value, 0))


def _set_limits(limits):
    """rlimits the program cannot raise again (it has no capability to)."""
    cpu = int(limits["cpu_seconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    mem = int(limits["memory_mb"]) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    fsize = int(limits["file_size_mb"]) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    # The interpreter holds stdin/stdout/stderr and a few of its own: the
    # program gets open_files more than what is open now.
    nofile = len(os.listdir("/proc/self/fd")) + int(limits["open_files"])
    resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    nproc = 1 + int(limits["max_processes"])
    resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # The program is pid 1 of its namespace, and the kernel does not deliver
    # default-action signals such as SIGXCPU to a namespace's init. Exit as if
    # killed by it instead (bwrap reports 128 + signal). A program that replaces
    # this handler only delays its end: the hard limit a second later is SIGKILL,
    # which the kernel does deliver. A write past the file-size limit fails with
    # EFBIG (Python ignores SIGXFSZ) and is named from that error.
    _signal.signal(_signal.SIGXCPU, lambda *_: os._exit(128 + _signal.SIGXCPU))


def _name_process_refusals():
    """Make a refused fork/spawn say so: the seccomp filter answers EPERM, which
    alone reads like any permission error. Only naming: the refusal itself is
    the kernel's, and a program that undoes these wrappers is still refused."""
    import _posixsubprocess

    def named(fn):
        def wrapper(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except PermissionError as exc:
                exc.sandbox_limit = "processes"
                raise
        return wrapper

    for module, name in ((os, "fork"), (os, "forkpty"), (os, "posix_spawn"), (os, "posix_spawnp"),
                         (_posixsubprocess, "fork_exec")):
        if hasattr(module, name):
            setattr(module, name, named(getattr(module, name)))


def _limit_of(exc):
    """The limit an exception shows was hit, or None (follows the __context__ chain)."""
    import errno

    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, MemoryError):
            return "address_space"
        if isinstance(exc, OSError):
            if exc.errno == errno.EMFILE:
                return "open_files"
            if exc.errno == errno.ENOSPC:
                return "disk"
            if exc.errno == errno.EFBIG:
                return "file_size"
            if exc.errno == errno.EAGAIN and "thread" in str(exc):
                return "processes"
        if isinstance(exc, RuntimeError) and "can't start new thread" in str(exc):
            return "processes"
        if getattr(exc, "sandbox_limit", None) == "processes":
            return "processes"
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return None


def main():
    limits = dict(zip(("cpu_seconds", "memory_mb", "file_size_mb", "open_files", "max_processes", "output_bytes"),
                      map(int, sys.argv[1].split(","))))
    os.write(1, STARTED)
    request = marshal.loads(sys.stdin.buffer.read())
    sys.stdin = io.StringIO("")
    _set_limits(limits)
    _name_process_refusals()
    cap = int(limits["output_bytes"])
    captured = _CappedText(cap)
    sys.stdout = sys.stderr = captured
    result = {"value": None, "value_is_repr": False, "error": None, "limit": None, "stdout": ""}
    code = EXIT_ERROR
    try:
        namespace = {"__name__": "__sandbox__"}
        exec(compile(request["code"], "<program>", "exec"), namespace)
        entry = request.get("entry")
        if entry:
            if not callable(namespace.get(entry)):
                raise NameError("the program defines no function named %r" % entry)
            args = request.get("args")
            value = namespace[entry](*(args if isinstance(args, list) else [args]))
        else:
            value = namespace.get("result")
        try:
            encoded, is_repr = _dumps(value), False
        except (TypeError, ValueError, RecursionError):
            encoded, is_repr = _dumps(repr(value)), True
        if len(encoded) > cap:
            result["limit"] = "output_size"
            raise OverflowError("the return value is %d bytes, over the %d-byte output cap" % (len(encoded), cap))
        result.update(value=encoded, value_is_repr=is_repr)
        code = EXIT_OK
    except BaseException as exc:  # noqa: BLE001 - every failure of the program is reported, SystemExit too
        limit = result["limit"] or _limit_of(exc)
        try:
            import traceback

            tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
            tail = "".join(tb[-3:]) if len(tb) > 3 else "".join(tb)
            result["error"] = ("%s: %s\n%s" % (type(exc).__name__, exc, tail)).strip()
        except BaseException:  # noqa: BLE001 - e.g. MemoryError while formatting
            result["error"] = type(exc).__name__
        result["limit"] = limit
        code = EXIT_LIMIT if limit else EXIT_ERROR
    result["stdout"] = captured.text()
    parts = []
    for key, item in result.items():  # "value" is already JSON text
        parts.append(_dumps(key) + ": " + (item if key == "value" and code == EXIT_OK else _dumps(item)))
    data = ("{" + ", ".join(parts) + "}").encode("ascii")
    view = memoryview(data)
    while view:
        view = view[os.write(1, view):]
    os._exit(code)  # no interpreter shutdown: threads the program left are not waited for


if __name__ == "__main__":  # run by ``python -c``; importing it (the Qt-free check) does nothing
    main()
