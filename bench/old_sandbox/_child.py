"""The sandboxed side of ``reviewer.sandbox.run_python``.

Run either as ``python -I -S _child.py RESULT_FD`` inside a fresh, empty
working directory (one program per interpreter), or as a start-up server
``python -I -S _child.py --serve FD`` that forks one such child per program
(see ``serve``). A program's request is JSON::

    {"code": str, "entry": str|null, "args": any, "limits": {...}, "network": "auto"|"netns"|"audit"}

The child locks itself down, runs the code and writes one JSON result to the
result pipe::

    {"ok": bool, "value": any, "value_is_repr": bool, "error": str|null,
     "stdout": str, "isolation": [str, ...]}

This file must stay importable with the standard library only: it runs in an
isolated interpreter (``-I``) that never imports the reviewer package.

Lock-down order matters: everything that needs privileges (network namespace,
dropping capabilities) happens first, resource limits next, and the audit hook
last, because the hook also refuses ``ctypes`` which the first steps use.
"""

import ctypes
import io
import json
import os
import resource
import sys

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
_LINUX_CAPABILITY_VERSION_3 = 0x20080522



def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _isolate_network(libc, wanted: str) -> str:
    """Put this process in a new, empty network namespace (loopback down).

    Root can unshare CLONE_NEWNET directly; an unprivileged user needs a user
    namespace around it. Returns "netns" on success, "audit" when the caller
    must fall back to refusing sockets in the audit hook.
    """
    if wanted == "audit":
        return "audit"
    flags = CLONE_NEWNET if os.geteuid() == 0 else CLONE_NEWUSER | CLONE_NEWNET
    if libc.unshare(flags) == 0:
        return "netns"
    if wanted == "netns":
        err = ctypes.get_errno()
        raise OSError(err, f"unshare(CLONE_NEWNET) failed: {os.strerror(err)}")
    return "audit"


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def _drop_capabilities(libc) -> bool:
    """Drop every capability of this process (uid stays the same).

    Why: as root, RLIMIT_NPROC is ignored while CAP_SYS_RESOURCE/CAP_SYS_ADMIN
    are held, so a fork bomb would not be stopped by the limit; without
    capabilities it is. The stdlib under /root stays readable (same uid).
    """
    header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    return libc.capset(ctypes.byref(header), data) == 0


# Where a pids cgroup can be made: the cgroup v1 pids hierarchy, or the v2 root
# when it delegates the pids controller. Only root can use either.
PIDS_CGROUP_ROOTS = ("/sys/fs/cgroup/pids", "/sys/fs/cgroup")


def pids_cgroup_paths(pid: int) -> list[str]:
    """The cgroup directories a sandboxed process with this pid may have made."""
    return [os.path.join(root, f"reviewer-sandbox-{pid}") for root in PIDS_CGROUP_ROOTS]


def _usable_pids_root(root: str) -> bool:
    if root.endswith("/pids"):
        return os.path.isfile(os.path.join(root, "cgroup.procs"))
    try:
        with open(os.path.join(root, "cgroup.subtree_control"), encoding="ascii") as f:
            return "pids" in f.read().split()
    except OSError:
        return False


def _join_pids_cgroup(max_processes: int) -> bool:
    """Move this process into a new pids cgroup allowing it ``max_processes`` more tasks.

    Why: the kernel never applies RLIMIT_NPROC to uid 0, so for a root app
    this is what stops a fork bomb that gets past the audit hook. The app
    removes the directory once the process has gone (see runner).
    """
    pid = os.getpid()
    for root, path in zip(PIDS_CGROUP_ROOTS, pids_cgroup_paths(pid)):
        if not _usable_pids_root(root):
            continue
        try:
            os.mkdir(path)
            with open(os.path.join(path, "pids.max"), "w", encoding="ascii") as f:
                f.write(str(1 + max_processes))
            with open(os.path.join(path, "cgroup.procs"), "w", encoding="ascii") as f:
                f.write(str(pid))
            return True
        except OSError:
            try:
                os.rmdir(path)
            except OSError:
                pass
    return False


def _set_limits(limits: dict) -> None:
    cpu = int(limits["cpu_seconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    mem = int(limits["memory_mb"]) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    fsize = int(limits["file_size_mb"]) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    nproc = int(limits["max_processes"])
    resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class SandboxRefusal(PermissionError):
    pass


def _arm_audit_hook(workdir: str, block_sockets: bool) -> None:
    """Refuse, from now on, what the program must not do.

    An audit hook is not a security boundary on its own (C extensions can
    bypass it); it gives a clear error for the common cases and backs up the
    namespace, capability and rlimit layers.
    """
    root = os.path.realpath(workdir)
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
    process_events = {"os.fork", "os.forkpty", "os.system", "os.exec", "os.posix_spawn",
                      "os.spawn", "subprocess.Popen", "os.kill", "os.killpg", "pty.spawn"}
    path_events = {"os.remove", "os.rename", "os.mkdir", "os.rmdir", "os.symlink", "os.link",
                   "os.chmod", "os.chown", "os.truncate", "os.utime", "shutil.rmtree",
                   "shutil.copyfile", "shutil.move"}

    def inside(path) -> bool:
        if isinstance(path, int):
            return True  # an already open descriptor was checked when opened
        try:
            full = os.path.realpath(os.fsdecode(path))
        except (TypeError, ValueError):
            return False
        return full == root or full.startswith(root + os.sep)

    def hook(event, args):
        if event == "open":
            path, mode, flags = args
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & write_flags)
            if writing and path is not None and not inside(path):
                raise SandboxRefusal(f"sandbox: writing outside the sandbox directory is refused: {path}")
        elif event in path_events:
            for p in args:
                if isinstance(p, (str, bytes, os.PathLike)) and not inside(p):
                    raise SandboxRefusal(f"sandbox: {event} outside the sandbox directory is refused: {p}")
        elif event in process_events:
            raise SandboxRefusal(f"sandbox: creating or signalling processes is refused ({event})")
        elif event.startswith("ctypes."):
            raise SandboxRefusal(f"sandbox: ctypes is refused ({event})")
        elif block_sockets and event.startswith("socket."):
            raise SandboxRefusal(f"sandbox: network access is refused ({event})")

    sys.addaudithook(hook)


class _CappedText(io.TextIOBase):
    """A text sink keeping at most ``cap`` characters (the rest is counted, not kept)."""

    def __init__(self, cap: int):
        self.cap = cap
        self.parts: list[str] = []
        self.size = 0
        self.dropped = 0

    def writable(self):
        return True

    def write(self, s):
        room = self.cap - self.size
        if room > 0:
            kept = s[:room]
            self.parts.append(kept)
            self.size += len(kept)
        self.dropped += max(0, len(s) - max(room, 0))
        return len(s)

    def text(self) -> str:
        out = "".join(self.parts)
        if self.dropped:
            out += f"\n[sandbox: {self.dropped} more characters of output dropped]"
        return out


def _encode_value(value):
    """JSON of the value; values JSON cannot carry travel as their repr."""
    try:
        return json.dumps(value, allow_nan=True), False
    except (TypeError, ValueError):
        return json.dumps(repr(value)), True


def run_locked_down(request: dict, result_fd: int) -> None:
    """Lock this process down, run the request's program, write the result to ``result_fd``."""
    limits = request["limits"]
    isolation = []
    libc = _libc()
    net = _isolate_network(libc, request.get("network", "auto"))
    isolation.append(net)
    if _join_pids_cgroup(int(limits["max_processes"])):
        isolation.append("pids-cgroup")
    if _drop_capabilities(libc):
        isolation.append("no-capabilities")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # writes straight to fd 1/2 go nowhere; print() is captured below
    os.dup2(devnull, 2)
    cap = int(limits["output_bytes"])
    captured = _CappedText(cap)
    sys.stdout = sys.stderr = captured
    _set_limits(limits)
    isolation.append("rlimits")
    _arm_audit_hook(os.getcwd(), block_sockets=(net == "audit"))
    isolation.append("audit-hook")

    out = {"ok": False, "value": None, "value_is_repr": False, "error": None, "isolation": isolation}
    try:
        namespace = {"__name__": "__sandbox__"}
        exec(compile(request["code"], "<program>", "exec"), namespace)
        entry = request.get("entry")
        if entry:
            if not callable(namespace.get(entry)):
                raise NameError(f"the program defines no function named {entry!r}")
            args = request.get("args")
            value = namespace[entry](*(args if isinstance(args, list) else [args]))
        else:
            value = namespace.get("result")
        encoded, is_repr = _encode_value(value)
        if len(encoded) > cap:
            raise OverflowError(f"the return value is {len(encoded)} bytes, over the {cap}-byte output cap")
        out.update(ok=True, value=json.loads(encoded), value_is_repr=is_repr)
    except MemoryError:
        out["error"] = f"MemoryError: the program exceeded the memory limit ({limits['memory_mb']} MB)"
    except BaseException as exc:  # noqa: BLE001 - every failure of user code is reported, SystemExit included
        import traceback  # only on failure (the server pre-imports it)

        tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
        last = "".join(tb[-3:]) if len(tb) > 3 else "".join(tb)
        out["error"] = f"{type(exc).__name__}: {exc}\n{last}".strip()
    out["stdout"] = captured.text()
    data = json.dumps(out, allow_nan=True).encode("utf-8")
    view = memoryview(data)
    while view:
        view = view[os.write(result_fd, view):]
    os.close(result_fd)


REQUEST_FILE = "request.json"


def serve(control_fd: int) -> None:
    """The start-up server: fork one locked-down child per request.

    Started once per app process as ``python -I -S _child.py --serve FD``; it
    never runs user code itself. Each message on the control socket (a
    SOCK_SEQPACKET socketpair) is ``{"id", "workdir"}`` with the result pipe's
    write end attached; the request itself waits in ``workdir/request.json``.
    Replies: ``{"id", "pid"}`` once forked, ``{"id", "exit"}`` once reaped
    (the exit code, negative for a signal). EOF on the socket (the app has
    gone) kills every child still running and ends the server.
    """
    import select
    import signal
    import socket
    __import__("traceback")  # imported once here instead of in every failing child

    sock = socket.socket(fileno=control_fd)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    running: dict[int, int] = {}

    def send(msg: dict) -> None:
        try:
            sock.send(json.dumps(msg).encode())
        except OSError:
            pass  # the app has gone; the next recv sees EOF and ends the server

    while True:
        ready, _, _ = select.select([sock, wake_r], [], [])
        if wake_r in ready:
            os.read(wake_r, 4096)
        while running:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            send({"id": running.pop(pid), "exit": os.waitstatus_to_exitcode(status)})
        if sock not in ready:
            continue
        msg, fds, _, _ = socket.recv_fds(sock, 65536, 1)
        if not msg:
            for pid in running:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except OSError:
                    pass
            return
        req = json.loads(msg)
        pid = os.fork()
        if pid == 0:  # the child: never returns into this loop
            code = 0
            try:
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                for fd in (wake_r, wake_w):
                    os.close(fd)
                sock.close()
                os.setsid()  # its own process group: the app kills the group on timeout
                os.chdir(req["workdir"])
                with open(REQUEST_FILE, encoding="utf-8") as f:
                    request = json.load(f)
                os.remove(REQUEST_FILE)
                run_locked_down(request, fds[0])
            except BaseException:  # noqa: BLE001 - a child must never fall back into the server loop
                code = 70
            finally:
                os._exit(code)
        os.close(fds[0])
        running[pid] = req["id"]
        send({"id": req["id"], "pid": pid})


def main() -> None:
    if sys.argv[1] == "--serve":
        serve(int(sys.argv[2]))
    else:  # one program: ``_child.py RESULT_FD`` with the request on stdin
        run_locked_down(json.loads(sys.stdin.read()), int(sys.argv[1]))


if __name__ == "__main__":
    main()
