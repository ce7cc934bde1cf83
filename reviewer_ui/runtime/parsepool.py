"""A helper process for parsing and pretty-printing big JSON texts.

Why a process: ``orjson.loads`` of a 5 MB response is one C call of 40-100 ms
that holds the GIL, and a Python worker thread holding the GIL freezes the
GUI thread just the same. In a separate process the GUI keeps running; what
comes back is one pretty-printed string plus an array of line starts
(ui.textdoc.TextLines), which unpickle at memcpy speed.

The process is started once (``warm_up`` at app start) with the "spawn"
method (forking a process that runs Qt threads is unsafe). If it cannot be
started or dies, work runs in the calling thread instead.
"""

from __future__ import annotations

import atexit
import logging
import multiprocessing
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

log = logging.getLogger(__name__)

_lock = threading.Lock()
_executor: ProcessPoolExecutor | None = None
_disabled = False


def _noop() -> None:
    return None


def executor() -> ProcessPoolExecutor | None:
    global _executor, _disabled
    with _lock:
        if _executor is None and not _disabled:
            try:
                _executor = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
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


def shutdown() -> None:
    global _executor
    with _lock:
        if _executor is not None:
            _executor.shutdown(wait=False, cancel_futures=True)
            _executor = None


atexit.register(shutdown)
