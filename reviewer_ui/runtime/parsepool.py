"""A helper process for parsing and pretty-printing big JSON texts.

Why a process: ``orjson.loads`` of a 5 MB response is one C call of 40-100 ms
that holds the GIL, and a Python worker thread holding the GIL freezes the
GUI thread just the same. In a separate process the GUI keeps running. Big texts
go and come back through temporary files (reviewer_ui.textdoc.pretty_file): the
app maps the pretty-printed file and gets only a block index of a few kilobytes
through the pipe; a big response's tree stays parsed here and is read a batch of
rows at a time (reviewer_ui.treeindex). Big diffs are parsed, diffed and laid out here
too (reviewer_ui.diffproc); their row paths and folds are asked by the quick lane.

Requests of the tree (its top row, a batch of rows, letting a value go) take a
second way in, the *quick lane*: a thread in the helper answers them on a Unix
socket of its own (``quick``), so that they never wait in the queue behind the
pretty-printing of a big response (a 5 MB response's tree took 420-790 ms
instead of ~50 ms while the helper was still printing the text it previewed).
Only the calls listed in QUICK_CALLS go that way; the socket sits in a directory
only this user can enter and takes only connections that know a random key.

The process is started once (``warm_up`` at app start) with the "spawn"
method (forking a process that runs Qt threads is unsafe). If it cannot be
started or dies, work runs in the calling thread instead.

The helper ends when the app ends, however it ends (a crash or ``kill -9``
included): a thread in the helper watches its parent pid and exits the moment
the helper is re-parented. Linux's PR_SET_PDEATHSIG is not used because it
fires when the *thread* that started the child exits, and the first ``run``
may come from a short-lived worker thread. When the helper is gone, the last
holder of multiprocessing's resource-tracker pipe is gone, so the tracker
process sees end-of-file and exits too.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import logging
import multiprocessing
import os
import shutil
import tempfile
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import Client, Listener

log = logging.getLogger(__name__)

_lock = threading.Lock()
_executor: ProcessPoolExecutor | None = None
_disabled = False
_lane: tuple[str, bytes] | None = None  # (socket path, key) of the helper's quick lane
_lane_dir: str | None = None
_lane_callers: ThreadPoolExecutor | None = None
_lane_local = threading.local()  # each caller thread keeps its connection to the lane

# The calls the quick lane answers ("module:function"): short reads of values the helper
# keeps, and parsing a text for the tree when the helper has not kept it.
QUICK_CALLS = frozenset({
    "reviewer_ui.treeindex:top_row",
    "reviewer_ui.treeindex:rows",
    "reviewer_ui.treeindex:close_value",
    "reviewer_ui.treeindex:open_value",
    "reviewer_ui.diffproc:path_at",
    "reviewer_ui.diffproc:folded_rows",
    "reviewer_ui.textdoc:abandon",
})
LANE_CONNECT_S = 10.0  # how long a caller retries while the helper is starting


PARENT_POLL_SECONDS = 0.2  # how soon an orphaned helper notices and exits


def _noop() -> None:
    return None


def _helper_init(parent_pid: int, lane_path: str | None, lane_key: bytes | None) -> None:
    """Initializer of the helper: exit with the app, and open the quick lane."""
    import sys

    _exit_with_parent(parent_pid)
    # The queue's thread prints in short calls (textdoc.pretty_bytes): hand the GIL to
    # the lane's threads within a millisecond of their asking.
    sys.setswitchinterval(0.001)
    if lane_path is not None:
        listener = Listener(lane_path, family="AF_UNIX", authkey=lane_key)
        _unlink_quietly_at_exit(listener, lane_path)
        threading.Thread(target=_serve_lane, args=(listener,), name="quick-lane", daemon=True).start()


def _unlink_quietly_at_exit(listener: Listener, path: str) -> None:
    """The app removes the lane's folder as it quits (``shutdown``), often before this helper has
    ended; multiprocessing's own exit-time unlink of the socket then printed a FileNotFoundError
    traceback to the user's terminal. Replace it by one that lets a missing file be."""
    from multiprocessing import util

    own = getattr(getattr(listener, "_listener", None), "_unlink", None)
    if own is None:
        return  # another Python's layout: keep its own finalizer
    own.cancel()
    util.Finalize(listener, _unlink_if_there, args=(path,), exitpriority=0)


def _unlink_if_there(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def _serve_lane(listener: Listener) -> None:
    """Helper side: a thread per connection (one per caller thread of the app)."""
    while True:
        try:
            conn = listener.accept()
        except (OSError, EOFError, multiprocessing.AuthenticationError):
            continue  # a connection without the key, or one that went away: ignore it
        threading.Thread(target=_answer_lane, args=(conn,), name="quick-lane-call", daemon=True).start()


_lane_calls = 0  # helper side: quick calls being answered
_lane_quiet = threading.Condition()
LANE_QUIET_WAIT_S = 0.5  # how long background work in the helper waits for the lane at most


def wait_lane_idle() -> None:
    """Helper side: wait (up to LANE_QUIET_WAIT_S) until no quick call is being answered:
    background work (freeing a value let go of) steps aside for the tree's requests."""
    with _lane_quiet:
        _lane_quiet.wait_for(lambda: _lane_calls == 0, LANE_QUIET_WAIT_S)


def _answer_lane(conn) -> None:
    global _lane_calls
    with conn:
        while True:
            try:
                name, args = conn.recv()
            except (EOFError, OSError):
                return
            with _lane_quiet:
                _lane_calls += 1
            try:
                if name not in QUICK_CALLS:
                    raise ValueError(f"not a quick call: {name}")
                module, function = name.split(":")
                answer = ("ok", getattr(importlib.import_module(module), function)(*args))
            except Exception as exc:  # noqa: BLE001 - delivered to the caller
                answer = ("error", exc)
            finally:
                with _lane_quiet:
                    _lane_calls -= 1
                    _lane_quiet.notify_all()
            try:
                conn.send(answer)
            except (OSError, ValueError):
                return


def _exit_with_parent(parent_pid: int) -> None:
    """Exit the helper as soon as the app that started it is gone."""

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(0)  # no cleanup to do: the helper holds no files and no database

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def executor() -> ProcessPoolExecutor | None:
    global _executor, _disabled, _lane, _lane_dir
    with _lock:
        if _executor is None and not _disabled:
            try:
                if _lane_dir is None:
                    _lane_dir = tempfile.mkdtemp(prefix="reviewer-helper-")  # mode 0700
                _lane = (os.path.join(_lane_dir, f"lane-{len(os.listdir(_lane_dir))}"), os.urandom(32))
                _executor = ProcessPoolExecutor(
                    max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                    initializer=_helper_init, initargs=(os.getpid(), *_lane),
                )
            except (OSError, ValueError) as exc:
                log.warning("no parse process, parsing in threads: %s", exc)
                _disabled = True
        return _executor


def warm_up() -> None:
    """Start the process now so that the first big item does not wait for it."""
    ex = executor()
    if ex is not None:
        ex.submit(_noop)


def run(fn, *args):
    """``fn(*args)`` in the helper process (``fn`` must be importable there), or here."""
    global _executor, _disabled
    ex = executor()
    if ex is not None:
        try:
            return ex.submit(fn, *args).result()
        except BrokenProcessPool as exc:
            log.warning("parse process died, parsing in threads from now on: %s", exc)
            with _lock:
                _executor, _disabled = None, True
    return fn(*args)


def submit(fn, *args) -> Future:
    """``fn(*args)`` in the helper process without waiting: a Future of its result
    (already done when there is no helper and it ran here)."""
    ex = executor()
    if ex is not None:
        try:
            return ex.submit(fn, *args)
        except (BrokenProcessPool, RuntimeError):  # dead, or shut down at exit: run here
            pass
    done: Future = Future()
    try:
        done.set_result(fn(*args))
    except BaseException as exc:  # noqa: BLE001 - delivered through the future
        done.set_exception(exc)
    return done


def quick(fn, *args) -> Future:
    """``fn(*args)`` (one of QUICK_CALLS) in the helper process by the quick lane, without
    waiting for whatever the helper's queue is busy with: a Future of its result. Quick
    calls are answered in the order they were made. Runs here when
    there is no helper, and goes through the queue (``run``) if the lane cannot be reached."""
    name = f"{fn.__module__}:{fn.__qualname__}"
    if name not in QUICK_CALLS:
        raise ValueError(f"not a quick call: {name}")
    global _lane_callers
    if executor() is None:
        return submit(fn, *args)
    with _lock:
        if _lane_callers is None:
            # One caller: the lane answers in the order asked (a tree let go of, then asked
            # for again, must not find its value gone after the answer).
            _lane_callers = ThreadPoolExecutor(max_workers=1, thread_name_prefix="quick-lane")
        callers = _lane_callers
    try:
        return callers.submit(_call_lane, fn, name, args)
    except RuntimeError:  # shut down at exit
        return submit(fn, *args)


def _call_lane(fn, name: str, args: tuple):
    """Caller side of the quick lane (on one of its caller threads)."""
    lane = _lane
    try:
        conn = _lane_connection(lane)
        conn.send((name, args))
        status, answer = conn.recv()
    except (OSError, EOFError, multiprocessing.AuthenticationError, TimeoutError) as exc:
        _lane_local.conn = None
        log.warning("quick lane unavailable, queueing %s: %s", name, exc)
        return run(fn, *args)
    if status != "ok":
        raise answer
    return answer


def _lane_connection(lane):
    conn = getattr(_lane_local, "conn", None)
    if conn is not None and getattr(_lane_local, "lane", None) is lane:
        return conn
    if lane is None:
        raise OSError("no helper process")
    deadline = time.monotonic() + LANE_CONNECT_S
    started = False
    while True:  # the helper opens the lane when it starts: wait for it a little
        try:
            conn = Client(lane[0], family="AF_UNIX", authkey=lane[1])
            break
        except (FileNotFoundError, ConnectionRefusedError):
            if time.monotonic() > deadline or _executor is None:
                raise TimeoutError("the helper's quick lane did not open") from None
            if not started:
                warm_up()  # the helper process starts with its first job
                started = True
            time.sleep(0.01)
    _lane_local.conn, _lane_local.lane = conn, lane
    return conn


def shutdown() -> None:
    """Stop the helper and remove its lane's folder; a later ``executor()`` starts both afresh."""
    global _executor, _lane_callers, _lane_dir, _lane
    with _lock:
        if _executor is not None:
            _executor.shutdown(wait=False, cancel_futures=True)
            _executor = None
        if _lane_callers is not None:
            _lane_callers.shutdown(wait=False, cancel_futures=True)
            _lane_callers = None
        if _lane_dir is not None:
            shutil.rmtree(_lane_dir, ignore_errors=True)
            # forgotten too: a helper started after this (another window in the same process)
            # would otherwise put its lane in the removed folder, fail, and parse in threads
            _lane_dir, _lane = None, None


atexit.register(shutdown)
