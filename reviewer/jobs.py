"""Long work as plain functions: progress and cancellation through a small context.

A job is any callable ``job(ctx, ...)``. It calls ``ctx.progress(done, total)``
now and then and ``ctx.check_cancelled()`` at safe points. The CLI passes a
context that prints to the terminal; the GUI's job runner passes one whose
callback emits a Qt signal from the worker thread and whose cancel flag the
GUI sets. The core never knows which.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
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
