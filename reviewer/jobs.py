"""Long work as plain functions: progress and cancellation through a small context.

A job is any callable ``job(ctx, ...)``. It calls ``ctx.progress(done, total)``
now and then and ``ctx.check_cancelled()`` at safe points. The CLI passes a
context that prints to the terminal; the GUI's job runner passes one whose
callback emits a Qt signal from the worker thread and whose cancel flag the
GUI sets. The core never knows which.
"""

from __future__ import annotations

import functools
import gc
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass


class Cancelled(Exception):
    """Raised inside a job by ``check_cancelled`` once cancellation was asked for."""


@dataclass(frozen=True)
class Progress:
    done: int
    total: int | None
    message: str
    elapsed: float

    @property
    def fraction(self) -> float | None:
        if not self.total:
            return None
        return min(1.0, self.done / self.total)

    @property
    def rate(self) -> float | None:
        """Units of work per second so far."""
        return self.done / self.elapsed if self.elapsed > 0 and self.done else None

    @property
    def eta(self) -> float | None:
        """Seconds left at the current rate, or None while unknown."""
        rate = self.rate
        if rate is None or self.total is None:
            return None
        return max(0.0, (self.total - self.done) / rate)


class JobContext:
    """What a job sees of its caller: a progress sink and a cancel flag.

    Thread-safe: ``cancel()`` may be called from any thread while the job runs.
    """

    def __init__(self, on_progress: Callable[[Progress], None] | None = None):
        self._on_progress = on_progress
        self._cancel = threading.Event()
        self._started = time.monotonic()
        self.last: Progress | None = None

    def progress(self, done: int, total: int | None = None, message: str = "") -> None:
        self.last = Progress(done, total, message, time.monotonic() - self._started)
        if self._on_progress is not None:
            self._on_progress(self.last)

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def check_cancelled(self) -> None:
        if self._cancel.is_set():
            raise Cancelled()


def silent() -> JobContext:
    """A context for callers that want neither progress nor cancellation."""
    return JobContext()


_pause_lock = threading.Lock()
_pauses = 0
_paused_by_us = False


@contextmanager
def collector_paused():
    """Pause Python's cyclic garbage collector while a long job runs over a whole dataset
    (an import, an export, a check, a scoring run).

    Such a job makes 10^5-10^6 dicts and lists (decoded JSON, rows: acyclic, freed by
    reference counting); every burst of allocations set off a collection that walks every
    live container of the process, longer as the job goes on. It held the GIL, so the app's
    window froze for 0.1 s, then 1 s, then over 2 s at a time during a 100,000-item export,
    and the collections took 30-40% of an import's CPU. Nothing these jobs make needs the
    collector. Re-entrant and thread-safe: the collector comes back when the last of the
    jobs that paused it ends (not if something else had switched it off before).
    """
    global _pauses, _paused_by_us
    with _pause_lock:
        if _pauses == 0 and gc.isenabled():
            gc.disable()
            _paused_by_us = True
        _pauses += 1
    try:
        yield
    finally:
        with _pause_lock:
            _pauses -= 1
            if _pauses == 0 and _paused_by_us:
                gc.enable()
                _paused_by_us = False


def over_whole_dataset(job):
    """Decorator: ``job`` runs with the collector paused (``collector_paused``)."""

    @functools.wraps(job)
    def run(*args, **kwargs):
        with collector_paused():
            return job(*args, **kwargs)

    return run
