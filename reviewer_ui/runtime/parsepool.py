"""A helper process for parsing and pretty-printing big JSON texts.

Why a process: ``orjson.loads`` of a 5 MB response is one C call of 40-100 ms
that holds the GIL, and a Python worker thread holding the GIL freezes the
GUI thread just the same. In a separate process the GUI keeps running. Big texts
go and come back through temporary files (reviewer_ui.textdoc.pretty_file): the
app maps the pretty-printed file and gets only a block index of a few kilobytes
through the pipe; a big response's tree stays parsed here and is read a batch of
rows at a time (reviewer_ui.treeindex).

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
import logging
import multiprocessing
import os
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

log = logging.getLogger(__name__)

_lock = threading.Lock()
_executor: ProcessPoolExecutor | None = None
_disabled = False


PARENT_POLL_SECONDS = 0.2  # how soon an orphaned helper notices and exits


def _noop() -> None:
    return None


def _exit_with_parent(parent_pid: int) -> None:
    """Initializer of the helper: exit as soon as the app that started it is gone."""

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(0)  # no cleanup to do: the helper holds no files and no database

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def executor() -> ProcessPoolExecutor | None:
    global _executor, _disabled
    with _lock:
        if _executor is None and not _disabled:
            try:
                _executor = ProcessPoolExecutor(
                    max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                    initializer=_exit_with_parent, initargs=(os.getpid(),),
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


def shutdown() -> None:
    global _executor
    with _lock:
        if _executor is not None:
            _executor.shutdown(wait=False, cancel_futures=True)
            _executor = None


atexit.register(shutdown)
