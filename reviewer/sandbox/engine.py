"""The isolation engine: bubblewrap, how it is invoked, and whether it works here.

Every program gets a fresh ``bwrap`` with new user, PID, mount, network, IPC,
UTS (and, where the kernel allows, cgroup) namespaces; uid/gid 65534 inside;
the program is pid 1 and the only process (``--as-pid-1``);
``--die-with-parent`` (the sandbox dies with the app), ``--new-session`` (no
controlling terminal to inject keystrokes into), ``--disable-userns`` (no
nested user namespaces), no capabilities, an empty environment and the seccomp
filter of ``reviewer.sandbox.seccomp``. When the app runs as root, bwrap itself
runs as host uid 65534 (see ``HOST_UID_WHEN_ROOT``), so the program is not
kernel uid 0 either. Its filesystem holds only:

* ``/python``: read-only binds of the interpreter, its standard library (the
  ``site-packages`` folder covered by an empty read-only tmpfs) and
  ``libpython`` when the interpreter is built shared;
* the system's shared-library folders (read-only; the C libraries the standard
  library's extension modules load) and the dynamic loader;
* ``/tmp``: a private tmpfs of ``disk_mb`` megabytes, the working folder. It
  lives in the sandbox's own mount namespace, so it is gone when the last
  process of the sandbox is gone, however that happens (no folder on the
  host's disk to clean up, even if the app is killed);
* a read-only ``/dev`` (null, zero, full, random, urandom, tty, pts, shm) and a
  ``/proc`` of its own PID namespace in which ``/proc/sys`` and every entry
  holding writable files is covered (see ``_proc_covers``).

No home, ``/root``, ``/etc``, ``/run``, ``/var``, ``/sys``, no sockets, no
database, no project tree. The bwrap arguments travel through ``--args FD``.

The path of ``bwrap`` comes from ``REVIEWER_SANDBOX_BWRAP`` when set (tests use it
to check the "no isolation available" path), else ``bwrap`` on PATH, else
``/usr/bin/bwrap``.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import threading
from dataclasses import dataclass
from pathlib import Path

BWRAP_ENV = "REVIEWER_SANDBOX_BWRAP"
SANDBOX_UID = 65534
INSIDE_PYTHON = "/python/bin/python3"
HOW_TO_ENABLE = ("To enable it: install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; "
                 "Fedora: dnf install bubblewrap) and allow unprivileged user namespaces "
                 "(sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu "
                 "kernel.apparmor_restrict_unprivileged_userns=0); Linux only.")
BOOT_SOURCE = (Path(__file__).with_name("_boot.py")).read_text(encoding="utf-8")
# The environment bwrap itself starts with: nothing of the app's (API keys,
# database URLs). bwrap's own /proc/PID/environ is readable by processes of its
# uid, so it must hold nothing worth reading; the program gets --clearenv.
BWRAP_ENV_VARS = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


def bwrap_path() -> str:
    """Where bubblewrap is expected (it may not exist: the probe says so)."""
    configured = os.environ.get(BWRAP_ENV)
    if configured:
        return configured
    return shutil.which("bwrap") or "/usr/bin/bwrap"


@dataclass(frozen=True)
class Runtime:
    """The host paths of the Python runtime bound into the sandbox."""

    executable: str
    stdlib: str
    libpython: str | None
    version: str  # "3.11"


def host_runtime() -> Runtime:
    """This interpreter's own executable and standard library (a venv's base interpreter)."""
    executable = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
    stdlib = os.path.realpath(sysconfig.get_paths()["stdlib"])
    libpython = None
    if sysconfig.get_config_var("Py_ENABLE_SHARED"):
        name = sysconfig.get_config_var("INSTSONAME") or sysconfig.get_config_var("LDLIBRARY")
        candidate = os.path.join(sysconfig.get_config_var("LIBDIR") or "", name or "")
        if name and os.path.isfile(candidate):
            libpython = os.path.realpath(candidate)
    return Runtime(executable, stdlib, libpython, f"{sys.version_info[0]}.{sys.version_info[1]}")


# When the app runs as root, bwrap runs as this unprivileged host uid instead, so
# the sandboxed process is not kernel uid 0 (uid 0 owns /proc/sys, the keyrings,
# most files: owner permissions would apply to anything left visible) and
# RLIMIT_NPROC, which the kernel never applies to uid 0, counts its threads.
HOST_UID_WHEN_ROOT = 65534
# That uid cannot reach a runtime under /root (0700): a root-owned mirror of it
# (hard links where possible, so no data is copied) is made once per machine here.
MIRROR_ROOT_ENV = "REVIEWER_SANDBOX_RUNTIME_DIR"
MIRROR_ROOT_DEFAULT = "/var/cache/reviewer-sandbox"
_MIRROR_SKIP = {"site-packages", "dist-packages", "test", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3"}


def runs_as_root() -> bool:
    return os.geteuid() == 0


def popen_identity() -> tuple[list[str], dict]:
    """(command prefix, Popen keyword arguments) that start bwrap as the unprivileged host uid when the app is root.

    util-linux's setpriv (always on Debian) drops to the uid before exec'ing
    bwrap; Popen's own ``user=`` does the same but makes Python fork instead of
    vfork, measured 15 ms a start here against 8 ms for setpriv.
    """
    if not runs_as_root():
        return [], {}
    setpriv = shutil.which("setpriv", path="/usr/bin:/bin:/usr/sbin:/sbin")
    uid = str(HOST_UID_WHEN_ROOT)
    if setpriv:
        return [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"], {}
    return [], {"user": HOST_UID_WHEN_ROOT, "group": HOST_UID_WHEN_ROOT, "extra_groups": []}


def _readable_by_all(path: str) -> bool:
    """Can any user reach and read ``path`` (every parent folder searchable, the file readable)?"""
    try:
        if not os.stat(path).st_mode & 0o004:
            return False
        parent = os.path.dirname(path)
        while parent and parent != "/":
            if not os.stat(parent).st_mode & 0o001:
                return False
            parent = os.path.dirname(parent)
        return True
    except OSError:
        return False


def _link_or_copy(src: str, dst: str) -> None:
    try:
        if os.stat(src).st_mode & 0o004:
            os.link(src, dst)
            return
    except OSError:
        pass
    shutil.copy2(src, dst)
    os.chmod(dst, 0o755 if os.access(src, os.X_OK) else 0o644)


def _mirror(rt: Runtime) -> Runtime:
    """A root-owned, world-readable copy of the runtime (see HOST_UID_WHEN_ROOT); made once, reused."""
    import hashlib

    root = os.environ.get(MIRROR_ROOT_ENV) or MIRROR_ROOT_DEFAULT
    st = os.stat(rt.executable)
    key = hashlib.sha256(f"{rt.executable}|{st.st_mtime_ns}|{st.st_size}|{rt.stdlib}|{rt.libpython}".encode()).hexdigest()
    final = os.path.join(root, f"python{rt.version}-{key[:16]}")
    lib = f"lib/python{rt.version}"
    mirrored = Runtime(os.path.join(final, "bin/python3"), os.path.join(final, lib),
                       os.path.join(final, "lib", os.path.basename(rt.libpython)) if rt.libpython else None,
                       rt.version)
    if os.path.isfile(os.path.join(final, "complete")):
        return mirrored
    os.makedirs(root, mode=0o755, exist_ok=True)
    os.chmod(root, 0o755)
    import tempfile
    import time

    for stale in os.listdir(root):  # half-built mirrors of an app killed while building (over 10 minutes old)
        path = os.path.join(root, stale)
        if stale.startswith(".build-") and time.time() - os.stat(path).st_mtime > 600:
            shutil.rmtree(path, ignore_errors=True)

    tmp = tempfile.mkdtemp(prefix=".build-", dir=root)
    try:
        os.chmod(tmp, 0o755)
        os.makedirs(os.path.join(tmp, "bin"), mode=0o755)
        os.makedirs(os.path.join(tmp, lib), mode=0o755)
        _link_or_copy(rt.executable, os.path.join(tmp, "bin/python3"))
        if rt.libpython:
            _link_or_copy(rt.libpython, os.path.join(tmp, "lib", os.path.basename(rt.libpython)))
        for folder, dirs, files in os.walk(rt.stdlib):
            rel = os.path.relpath(folder, rt.stdlib)
            if rel == ".":
                dirs[:] = [d for d in dirs if d not in _MIRROR_SKIP and not d.startswith("config-")]
            target = os.path.join(tmp, lib, rel)
            os.makedirs(target, mode=0o755, exist_ok=True)
            for name in files:
                _link_or_copy(os.path.join(folder, name), os.path.join(target, name))
        with open(os.path.join(tmp, "complete"), "w", encoding="ascii") as f:
            f.write(rt.executable + "\n")
        try:
            os.rename(tmp, final)
        except OSError:  # made meanwhile by another process: use that one
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return mirrored


@functools.lru_cache(maxsize=1)
def python_runtime() -> Runtime:
    """The runtime bound into the sandbox: this interpreter's, or its mirror when the app is root."""
    rt = host_runtime()
    if runs_as_root() and not all(_readable_by_all(p) for p in (rt.executable, rt.stdlib, rt.libpython) if p):
        return _mirror(rt)
    return rt


def _library_mounts() -> list[str]:
    """Binds of the shared-library folders and the loader (merged-/usr aware)."""
    args: list[str] = []
    multiarch = sysconfig.get_config_var("MULTIARCH") or ""
    for top in ("/lib", "/lib64", "/lib32", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for folder in (f"/usr/lib/{multiarch}" if multiarch else "/usr/lib", "/usr/lib64"):
        if os.path.isdir(folder) and not os.path.islink(folder):
            args += ["--ro-bind", folder, folder]
    return args


@functools.lru_cache(maxsize=8)
def bwrap_args(disk_mb: int) -> tuple[str, ...]:
    """The bwrap options of one sandbox (everything but the command); the same for every program."""
    rt = python_runtime()
    inside_lib = f"/python/lib/python{rt.version}"
    args = [
        "--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
        "--unshare-cgroup-try",
        "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
        # --as-pid-1: the program is the only process; without it bwrap's init
        # (pid 1 inside, no seccomp filter, same kernel uid) would sit beside the
        # program, and a sandbox started by root could write its /proc/1/mem.
        "--as-pid-1", "--disable-userns", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
        "--hostname", "sandbox", "--clearenv", "--setenv", "LANG", "C.UTF-8",
        "--setenv", "PATH", "/python/bin",
    ]
    args += _library_mounts()
    args += ["--ro-bind", rt.executable, INSIDE_PYTHON, "--ro-bind", rt.stdlib, inside_lib]
    if rt.libpython:
        args += ["--ro-bind", rt.libpython, "/python/lib/" + os.path.basename(rt.libpython),
                 "--setenv", "LD_LIBRARY_PATH", "/python/lib"]
    if os.path.isdir(os.path.join(rt.stdlib, "site-packages")):
        args += ["--tmpfs", inside_lib + "/site-packages", "--remount-ro", inside_lib + "/site-packages"]
    # /dev is a tmpfs bwrap fills with device nodes; left writable it (and /dev/shm
    # in it) would take files up to half the machine's memory, past the disk limit.
    # Read-only, the device nodes still work (a read-only mount does not stop writes
    # to /dev/null).
    args += ["--proc", "/proc", *_proc_covers(), "--dev", "/dev", "--remount-ro", "/dev"]
    args += [
        "--size", str(int(disk_mb) * 1024 * 1024), "--perms", "0700", "--tmpfs", "/tmp",
        "--chdir", "/tmp", "--setenv", "HOME", "/tmp",
        "--remount-ro", "/",
    ]
    return tuple(args)


# /proc entries covered inside. bwrap covers /proc/sys and sysrq-trigger only
# when it finds them writable at set-up, which it does not when it runs as
# root (the folder is 0555), yet the files inside are root-owned: a sandbox
# running as kernel uid 0 set kernel.core_pattern here before bwrap was moved
# to an unprivileged uid. The covers stay as a second layer. Covered: the
# always-dangerous ones below, plus every other top-level entry holding a file
# with a write bit (found once per process). Each cover is a mount, and mounts
# cost start-up time, so entries that are read-only for everyone stay visible.
_ALWAYS_COVER = ("sys", "sysrq-trigger", "keys", "key-users", "kcore", "kmsg")
_NEVER_COVER = ("self", "thread-self", "net", "mounts")  # the program's own (per process / per namespace)


def _has_writable_file(path: str, depth: int = 3) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    if not os.path.isdir(path) or os.path.islink(path):
        return bool(st.st_mode & 0o222) and not os.path.islink(path)
    if depth == 0:
        return False
    try:
        names = os.listdir(path)
    except OSError:
        return False
    return any(_has_writable_file(os.path.join(path, n), depth - 1) for n in names)


@functools.lru_cache(maxsize=1)
def _proc_covers() -> tuple[str, ...]:
    args: list[str] = []
    for name in sorted(os.listdir("/proc")):
        if name.isdigit() or name in _NEVER_COVER:
            continue
        path = f"/proc/{name}"
        if name not in _ALWAYS_COVER and not _has_writable_file(path):
            continue
        if os.path.isdir(path) and not os.path.islink(path):
            args += ["--tmpfs", path, "--remount-ro", path]
        elif os.path.exists(path):
            args += ["--ro-bind", "/dev/null", path]
    return tuple(args)


def command(limits) -> list[str]:
    """The interpreter command run inside (after bwrap's ``--args FD``); ``limits`` is a runner.Limits."""
    numbers = (limits.cpu_seconds, limits.memory_mb, limits.file_size_mb, limits.open_files,
               limits.max_processes, limits.output_bytes)
    return [INSIDE_PYTHON, "-I", "-S", "-B", "-c", BOOT_SOURCE, ",".join(str(int(n)) for n in numbers)]


@dataclass(frozen=True)
class Availability:
    """Whether sandboxed code can run here; when not, why and how to enable it."""

    available: bool
    engine: str  # "bubblewrap 0.8.0" or the path that was tried
    reason: str = ""
    how_to_enable: str = HOW_TO_ENABLE

    @property
    def message(self) -> str:
        """The sentence a user reads when code was not run."""
        if self.available:
            return f"isolation available: {self.engine}"
        return f"not run: no isolation available ({self.reason}). {self.how_to_enable}"


_probe_lock = threading.Lock()
_probed: dict[str, Availability] = {}


def availability(refresh: bool = False) -> Availability:
    """Probe (once per bwrap path and process) that a full sandbox starts and runs Python.

    The probe is a real run through the same path as every program (same
    namespaces, mounts, seccomp filter), so "available" means programs will run
    isolated, never that some weaker mode would be used.
    """
    path = bwrap_path()
    with _probe_lock:
        if refresh or path not in _probed:
            _probed[path] = _probe(path)
        return _probed[path]


def _probe(path: str) -> Availability:
    if not sys.platform.startswith("linux"):
        return Availability(False, path, f"bubblewrap needs Linux; this is {sys.platform}")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        return Availability(False, path, f"bubblewrap is not installed ({path} not found)")
    try:
        version = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10,
                                 env=BWRAP_ENV_VARS).stdout.strip() or path
    except (OSError, subprocess.SubprocessError) as exc:
        return Availability(False, path, f"{path} cannot be run: {exc}")
    try:
        from reviewer.sandbox.seccomp import build_filter

        build_filter(False)
    except (ImportError, OSError, RuntimeError, ValueError) as exc:
        return Availability(False, version, f"the seccomp filter cannot be built: {exc} "
                            "(install libseccomp2 and the pyseccomp package)")
    from reviewer.sandbox.runner import Limits, execute

    try:
        python_runtime()
    except OSError as exc:
        return Availability(False, version, f"the Python runtime could not be prepared for the sandbox: {exc}; "
                            f"set {MIRROR_ROOT_ENV} to a folder root can write")
    res = execute(path, "result = 6 * 7", None, None, Limits(wall_seconds=30), isolation=())
    if res.status != "ok" or res.value != 42:
        detail = (res.error or res.status).strip().splitlines()
        return Availability(False, version, "bubblewrap did not start a sandbox here: "
                            + (" ".join(detail)[:300] or "no detail"))
    return Availability(True, version)


def isolation_record(engine: str, limits_dict: dict) -> tuple[str, ...]:
    """What the parent records as the isolation a program ran under (never read from the program)."""
    return (
        engine,
        "namespaces: user, pid, mount, net, ipc, uts",
        f"uid {SANDBOX_UID} inside"
        + (f" ({HOST_UID_WHEN_ROOT} outside)" if runs_as_root() else "") + ", no capabilities, no new privileges",
        "seccomp filter",
        "read-only Python runtime, private tmpfs " + f"{limits_dict['disk_mb']} MB",
        "rlimits: " + json.dumps({k: limits_dict[k] for k in ("cpu_seconds", "memory_mb", "file_size_mb",
                                                              "open_files", "max_processes")}, sort_keys=True),
    )
