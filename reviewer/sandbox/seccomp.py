"""The seccomp filter bubblewrap installs on every sandboxed program.

The filter is compiled to a classic BPF program by libseccomp (through the
``pyseccomp`` bindings, which load the system's ``libseccomp.so.2``) and handed
to ``bwrap --seccomp FD``. libseccomp also adds the architecture check: a
syscall made through another ABI (i386 ``int 0x80``, x32) kills the process,
so no rule below can be dodged by switching ABI.

The default action is ALLOW: the namespaces are the boundary (no host files,
no network, no host processes visible); this filter only closes what they do
not cover. Each rule says why it is there. A refused call fails with EPERM
(ENOSYS for clone3, see below) so the program sees an ordinary error.
"""

from __future__ import annotations

import errno
import functools
import os

# Linux clone flags (include/uapi/linux/sched.h).
CLONE_THREAD = 0x00010000

# Why each group is refused; the names are the syscalls.
RULES: dict[str, tuple[str, ...]] = {
    # Keyrings are not namespaced: they belong to the kernel uid, which every
    # sandbox shares (65534 when the app is root, else the app's own uid).
    # Without this rule a program could read the app user's keys, or leave a
    # key for the next program to read (one program influencing another).
    "keyring": ("keyctl", "add_key", "request_key"),
    # Inspecting or steering another process: the program is alone in its PID
    # namespace (bwrap --as-pid-1), so these only matter if something else ever
    # shares it; they are the tools for taking such a process over (ptrace),
    # reading its memory or file table (process_vm_*, kcmp) or copying its file
    # descriptors (pidfd_getfd).
    "other processes": ("ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd"),
    # New namespaces and mounts: bwrap --disable-userns stops nested user
    # namespaces; these stop the rest of the mount/namespace machinery (a large,
    # often-exploited kernel surface) being reached at all.
    "namespaces and mounts": ("unshare", "setns", "mount", "umount2", "pivot_root", "chroot",
                              "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick",
                              "mount_setattr"),
    # Kernel surfaces no data-processing program needs and that have a record of
    # privilege escalations: eBPF, perf events, userfaultfd (used to win kernel
    # races), io_uring (its operations bypass seccomp entirely).
    "kernel attack surface": ("bpf", "perf_event_open", "userfaultfd", "io_uring_setup",
                              "io_uring_enter", "io_uring_register"),
    # Admin calls: they need capabilities the sandbox lacks, refused anyway so a
    # kernel bug in their permission checks cannot matter.
    "administration": ("kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
                       "reboot", "swapon", "swapoff", "syslog", "acct", "quotactl", "settimeofday",
                       "clock_settime", "clock_adjtime", "adjtimex", "iopl", "ioperm", "mknod", "mknodat",
                       "name_to_handle_at", "open_by_handle_at"),
    # No new processes: there is no program to run inside anyway (no shell, no
    # binaries), and forking is how a bomb multiplies. Threads are handled by
    # the clone rule in ``build_filter``.
    "process creation": ("fork", "vfork"),
}

# ioctl requests refused: TIOCSTI pushes characters into a terminal's input
# (a classic sandbox escape when a terminal is shared; --new-session already
# detaches it), TIOCLINUX does the same on a Linux console.
TIOCSTI = 0x5412
TIOCLINUX = 0x541C

# Socket families allowed: AF_UNIX (Python's own socketpair use) and IP, which
# the empty network namespace already isolates. Every other family (netlink,
# packet, vsock, bluetooth, ...) is kernel surface the program has no use for.
AF_UNIX, AF_INET, AF_INET6 = 1, 2, 10


@functools.lru_cache(maxsize=4)
def build_filter(allow_threads: bool) -> bytes:
    """The compiled BPF program (``struct sock_filter`` array) for ``bwrap --seccomp``.

    ``allow_threads``: clone() with CLONE_THREAD is allowed (the process limit
    then counts threads); without it every clone is refused, so a program can
    start neither processes nor threads. clone3 always fails with ENOSYS: its
    flags live in memory a filter cannot read, and ENOSYS makes glibc fall back
    to clone(), which the filter can check.

    Raises ImportError/RuntimeError/OSError when libseccomp is unavailable
    (the runner then reports that no isolation is available).
    """
    import pyseccomp as sc

    f = sc.SyscallFilter(sc.ALLOW)
    for names in RULES.values():
        for name in names:
            try:
                f.add_rule(sc.ERRNO(errno.EPERM), name)
            except (ValueError, OSError):
                pass  # a syscall this kernel/arch does not have cannot be called either
    f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    if allow_threads:
        f.add_rule(sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_THREAD, 0))
    else:
        f.add_rule(sc.ERRNO(errno.EPERM), "clone")
    for request in (TIOCSTI, TIOCLINUX):
        f.add_rule(sc.ERRNO(errno.EPERM), "ioctl", sc.Arg(1, sc.MASKED_EQ, 0xFFFFFFFF, request))
    for family_low, family_high in ((0, AF_UNIX - 1), (AF_UNIX + 1, AF_INET - 1), (AF_INET + 1, AF_INET6 - 1)):
        for family in range(family_low, family_high + 1):
            f.add_rule(sc.ERRNO(errno.EAFNOSUPPORT), "socket", sc.Arg(0, sc.EQ, family))
    f.add_rule(sc.ERRNO(errno.EAFNOSUPPORT), "socket", sc.Arg(0, sc.GT, AF_INET6))
    with os.fdopen(os.memfd_create("reviewer-seccomp", os.MFD_CLOEXEC), "w+b") as out:
        f.export_bpf(out)
        out.seek(0)
        return out.read()
