"""Make a run's calls in a process of their own: the caller's process only saves what comes back.

``execute_isolated`` has the contract of ``reviewer.rerun.engine.execute``
(same arguments, same results through ``on_result`` on the calling thread,
same exceptions, ``ctx.cancel()`` from any thread), but the event loop, the
HTTP client and the parsing of every answer run in a child process.

Why: in the GUI, a worker thread that runs the engine competes with the GUI
thread for the interpreter lock, 1-2 ms of pure Python per call; on a busy
2-core machine the OS also deschedules that thread while it holds the lock,
and then the GUI waits for it (bench/rerun_bench.py measured 110-820 ms
stalls of a 10 ms timer during a 224-call rerun at concurrency 16). A child
process has its own interpreter; what crosses back is one small pickled
``CallResult`` per call, which the calling thread hands to ``on_result``.
The CLI keeps calling ``execute`` directly: it has no GUI thread to protect
and does not pay the child's start-up (~0.5 s, mostly importing the client).

The API key is found here (``MissingKey`` is raised before any process
starts) and sent to the child through the pipe that connects them, never
through its command line, environment or a file. The child exits the moment it is
told to cancel or its parent's end of the pipe closes (the app quit or
crashed), and when its work is done; it has nothing of its own to save.
"""

from __future__ import annotations

import logging
import os
import pickle
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection

from reviewer.errors import ReviewerError
from reviewer.jobs import Cancelled, JobContext
from reviewer.rerun.cache import ResponseCache
from reviewer.rerun.config import RunConfig
from reviewer.rerun.engine import CANCEL_POLL_SECONDS, CallResult, PlannedCall, RunSummary, execute_with_key
from reviewer.rerun.secrets import resolve_api_key, scrub

log = logging.getLogger(__name__)

STOP_WAIT_SECONDS = 2.0  # how long a cancelled child may take to let go of its requests before it is killed


class RerunProcessDied(ReviewerError):
    """The process making the calls ended without saying why (killed, out of memory)."""


def execute_isolated(
    calls: list[PlannedCall],
    config: RunConfig,
    ctx: JobContext,
    on_result: Callable[[CallResult], None],
    *,
    cache: ResponseCache | None = None,
) -> RunSummary:
    """``reviewer.rerun.engine.execute`` with the calls made in a child process (see the module docstring)."""
    ctx.check_cancelled()
    api_key = resolve_api_key(config)
    if not calls:
        ctx.progress(0, 0, "rerun")
        return RunSummary()
    cache_dir = str(cache.directory) if cache is not None else config.cache_dir
    try:
        here, child = _start_child()
    except (OSError, ValueError) as exc:  # no socket pair or fd passing here (Windows): make the calls in-process
        log.warning("no rerun process (%s); making the calls in this process", exc)
        return execute_with_key(calls, config, ctx, on_result, api_key, cache=cache)
    finished = False
    try:
        here.send((calls, config, api_key, cache_dir))
        total, done = len(calls), 0
        ctx.progress(0, total, "rerun")
        while True:
            if ctx.cancelled:
                finished = _drain_after_cancel(here, child, on_result)
                raise Cancelled()
            try:
                if not here.poll(CANCEL_POLL_SECONDS):
                    if child.poll() is not None and not here.poll():
                        raise _died(child)
                    continue
                kind, value = here.recv()
            except (EOFError, OSError):
                raise _died(child) from None
            if kind == "result":  # complete before any cancel reached the child: kept, as after a cancel
                on_result(value)
                done += 1
                ctx.progress(done, total, "rerun")
            elif kind == "progress":
                ctx.progress(done, total, value)
            elif kind == "done":
                finished = True
                return value
            elif kind == "cancelled":
                raise Cancelled()
            else:  # "error"
                finished = True
                raise _unpickled_error(value)
    finally:
        _stop(here, child, finished)


def _drain_after_cancel(conn, child, on_result) -> bool:
    """Tell the child to stop and keep the results already here; returns False (it may still be exiting).

    The caller returns at once, as the in-process engine does; results still on their way
    were completed after the cancel and are dropped, as the engine drops them. The child
    exits the moment it reads the cancel (see ``_listen``), so it sends no new request.
    """
    try:
        conn.send(("cancel", None))
        while conn.poll(0):
            kind, value = conn.recv()
            if kind == "result":
                on_result(value)
            elif kind in ("cancelled", "done", "error"):
                return True
    except (EOFError, OSError):
        return True  # the child has exited: everything it sent was read
    return False


def _start_child() -> tuple[Connection, subprocess.Popen]:
    """Start ``python -m reviewer.rerun.isolated FD`` joined to us by a socket pair; (our end, the process).

    A plain interpreter rather than multiprocessing's "spawn": that would import the
    caller's main module again in the child (the whole GUI), and forking a process
    that runs Qt threads is unsafe.
    """
    ours, theirs = socket.socketpair()
    try:
        child = subprocess.Popen(
            # -P: not the working folder first on sys.path (as -m would put it): a json.py in
            # the folder the app was started from must not run beside the API key
            [sys.executable, "-P", "-m", "reviewer.rerun.isolated", str(theirs.fileno())],
            pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, close_fds=True, env=_child_env(),
        )
    except OSError:
        ours.close()
        raise
    finally:
        theirs.close()
    return Connection(ours.detach()), child


def _child_env() -> dict[str, str]:
    """Our environment, with the directory this copy of ``reviewer`` is imported from first on the path
    (so a source checkout runs its own code in the child, as an installed app does)."""
    import reviewer

    root = os.path.dirname(os.path.dirname(os.path.abspath(reviewer.__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return env


def _died(child: subprocess.Popen) -> RerunProcessDied:
    try:
        code = child.wait(1.0)
    except subprocess.TimeoutExpired:
        code = "none yet"
    return RerunProcessDied(f"the rerun process ended unexpectedly (exit code {code}); what was received "
                            "is kept: continue the run to make the rest")


def _stop(conn, child, finished: bool) -> None:
    """Close our end (a child still running reads that as "stop") and make sure the child ends.

    A child that has not finished is waited for on a thread of its own, so that a cancel
    returns within the engine's poll; one still alive after ``STOP_WAIT_SECONDS`` is killed.
    """
    if not finished:
        try:
            conn.send(("cancel", None))
        except (OSError, ValueError):
            pass  # the child is gone already
    conn.close()

    def reap() -> None:
        try:
            child.wait(STOP_WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            log.warning("the rerun process did not stop in %.0f s; killing it", STOP_WAIT_SECONDS)
            child.kill()
            child.wait()

    if child.poll() is None:
        threading.Thread(target=reap, name="rerun-reap", daemon=True).start()


def _unpickled_error(blob: bytes) -> BaseException:
    try:
        exc = pickle.loads(blob)
    except Exception as problem:  # noqa: BLE001 - a faithful copy is not always possible
        return ReviewerError(f"the rerun failed and its error could not be read back ({problem})")
    return exc if isinstance(exc, BaseException) else ReviewerError(str(exc))


# --- the child process ----------------------------------------------------------------------------------------


def _child_main(conn) -> None:
    """Receive (calls, config, api_key, cache_dir), run them, send back results and one final message."""
    try:
        calls, config, api_key, cache_dir = conn.recv()
    except (EOFError, OSError):
        return
    _yield_cpu_to_the_app()
    send_lock = threading.Lock()

    def send(kind: str, value) -> None:
        with send_lock:
            conn.send((kind, value))

    def on_progress(p) -> None:
        if p.message != "rerun":  # per-result progress is counted by the parent; words are passed on
            send("progress", p.message)

    ctx = JobContext(on_progress)
    threading.Thread(target=_listen, args=(conn, ctx), name="rerun-listen", daemon=True).start()
    cache = ResponseCache(cache_dir) if config.cache else None
    try:
        summary = execute_with_key(calls, config, ctx, lambda r: send("result", r), api_key, cache=cache)
    except Cancelled:
        _send_quietly(send, "cancelled", None)
    except BaseException as exc:  # noqa: BLE001 - every failure goes back to the caller
        _send_quietly(send, "error", _picklable(exc, api_key))
    else:
        _send_quietly(send, "done", summary)
    finally:
        if cache is not None:
            cache.close()
        conn.close()
    _exit(0)


CHILD_NICENESS = 4


def _yield_cpu_to_the_app() -> None:
    """Run at a lower CPU priority than the app that started us.

    The child's work is short bursts between network waits; when the machine is busy,
    the scheduler should let the GUI paint first (bench/rerun_bench.py: stalls of the
    GUI's 10 ms timer while the child imports its client and parses answers).
    """
    try:
        os.nice(CHILD_NICENESS)
    except (AttributeError, OSError):  # not on this platform, or not allowed: no matter
        pass


def _listen(conn, ctx: JobContext) -> None:
    """Exit the moment the parent says cancel or goes away (the app quit or crashed).

    The child holds nothing to save (the parent saves every result), so it does not wait
    for its calls to unwind: exiting closes their connections at once and no further
    request can go out. Results it sent before are still in the pipe for the parent.
    """
    try:
        while conn.recv()[0] != "cancel":
            pass
        code = 0
    except (EOFError, OSError):
        code = 1
    ctx.cancel()
    _exit(code)


def _exit(code: int) -> None:
    """End the child now: interpreter teardown (the HTTP client's executor, aiohttp's
    connector) takes seconds after a cancel and saves nothing."""
    try:
        sys.stderr.flush()
    finally:
        os._exit(code)


def _send_quietly(send, kind: str, value) -> None:
    try:
        send(kind, value)
    except (OSError, ValueError):
        pass  # the parent is gone or stopped listening


def _picklable(exc: BaseException, api_key: str) -> bytes:
    """The exception as bytes the parent can load, else a ReviewerError with its (scrubbed) message."""
    try:
        blob = pickle.dumps(exc)
        pickle.loads(blob)
        if api_key and api_key.encode() in blob:
            raise ValueError("holds the key")
        return blob
    except Exception:  # noqa: BLE001
        return pickle.dumps(ReviewerError(scrub(f"{type(exc).__name__}: {exc}", api_key)))


def main(argv: list[str] | None = None) -> None:
    """The child's entry point: ``python -m reviewer.rerun.isolated FD`` (FD: its end of the socket pair)."""
    args = sys.argv[1:] if argv is None else argv
    _child_main(Connection(int(args[0])))


if __name__ == "__main__":
    main()
