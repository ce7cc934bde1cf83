"""THE job runner of the GUI: core jobs ``fn(ctx, ...)`` on a QThreadPool.

Contracts:
- ``fn`` runs on a worker thread and never touches a widget. Its result,
  error and progress reach the GUI thread through queued signals of a
  ``Job`` object that lives in the GUI thread.
- Starting a job under a key that is still running cancels the previous one
  (``ctx.cancel()``), Orange3 style, and the old job's result is dropped even
  if it finishes anyway: only the newest job of a key ever reports a result.
- Progress is relayed at most every ``PROGRESS_INTERVAL`` seconds (and always
  for the last step), so a job calling ``ctx.progress`` in a tight loop cannot
  flood the event queue.
"""

from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, Qt, QThreadPool, Signal, Slot

from reviewer.jobs import Cancelled, JobContext, Progress

PROGRESS_INTERVAL = 0.05


class Job(QObject):
    """One submitted job. Signals arrive in the GUI thread.

    ``finished(result)`` on success, ``failed(exc, traceback_text)`` on error,
    ``cancelled()`` when it was cancelled (or superseded), ``progressed(Progress)``
    while it runs; ``done()`` after any of the three endings.
    """

    progressed = Signal(object)
    finished = Signal(object)
    failed = Signal(object, str)
    cancelled = Signal()
    done = Signal()

    # Emitted from the worker thread; connected queued to the slots below.
    _report = Signal(str, object, str)
    _progress = Signal(object)

    def __init__(self, key: str, parent: QObject | None = None):
        super().__init__(parent)
        self.key = key
        self.ctx = JobContext(self._on_worker_progress)
        self.state = "running"  # running | finished | failed | cancelled
        self._last_relay = 0.0
        self._relay_lock = threading.Lock()
        self._report.connect(self._on_report, Qt.ConnectionType.QueuedConnection)
        self._progress.connect(self._on_progress, Qt.ConnectionType.QueuedConnection)

    def cancel(self) -> None:
        """Ask the job to stop; its result, if any, is dropped."""
        self.ctx.cancel()

    @property
    def running(self) -> bool:
        return self.state == "running"

    # -- worker thread ---------------------------------------------------------

    def _on_worker_progress(self, progress: Progress) -> None:
        now = time.monotonic()
        last = progress.total is not None and progress.done >= progress.total
        with self._relay_lock:
            if not last and now - self._last_relay < PROGRESS_INTERVAL:
                return
            self._last_relay = now
        self._progress.emit(progress)

    # -- GUI thread ------------------------------------------------------------

    @Slot(object)
    def _on_progress(self, progress: Progress) -> None:
        if self.running and not self.ctx.cancelled:
            self.progressed.emit(progress)

    @Slot(str, object, str)
    def _on_report(self, outcome: str, value: object, trace: str) -> None:
        if self.ctx.cancelled:
            outcome = "cancelled"
        self.state = outcome
        if outcome == "finished":
            # The value is not kept here: receivers own it (and may free it their way).
            self.finished.emit(value)
        elif outcome == "failed":
            self.failed.emit(value, trace)
        else:
            self.cancelled.emit()
        self.done.emit()


class _Runnable(QRunnable):
    def __init__(self, job: Job, fn: Callable, args: tuple, kwargs: dict):
        super().__init__()
        self.job, self.fn, self.args, self.kwargs = job, fn, args, kwargs

    def run(self) -> None:
        job = self.job
        try:
            job.ctx.check_cancelled()
            value = self.fn(job.ctx, *self.args, **self.kwargs)
        except Cancelled:
            _report(job, "cancelled", None, "")
        except BaseException as exc:  # noqa: BLE001 - every failure is reported to the GUI
            _report(job, "failed", exc, traceback.format_exc())
        else:
            _report(job, "finished", value, "")


def _report(job: Job, outcome: str, value: object, trace: str) -> None:
    """Hand a job's outcome to the GUI thread, unless nobody is left to hear it.

    A job can outlive what started it: a window closed (its Job objects deleted
    with it) while a read was still running. Its outcome then has no receiver;
    emitting on the deleted Job raises RuntimeError in this worker thread, which
    would surface as an unhandled exception. Dropping the outcome is right: the
    receivers are gone with the Job.
    """
    try:
        job._report.emit(outcome, value, trace)
    except RuntimeError:  # "Signal source has been deleted"
        pass


# Threads for the app's jobs. Qt's global pool has one a core: on a 2-core laptop an export
# and a check held both, and every item load, page read and save waited behind them (a J
# press took 25 s to show the next item, first-time-user walkthrough). Most jobs wait on the
# database or the disk, or take turns at the GIL; a quick one needs a thread, not a core.
JOB_THREADS = 8
_pool: QThreadPool | None = None


def job_pool() -> QThreadPool:
    """The pool every JobRunner without its own uses (``JOB_THREADS`` threads)."""
    global _pool
    if _pool is None:
        _pool = QThreadPool()
        _pool.setMaxThreadCount(max(JOB_THREADS, QThreadPool.globalInstance().maxThreadCount()))
    return _pool


class JobRunner(QObject):
    """Runs jobs on a thread pool; one live job per key.

    ``start`` returns the Job so callers can connect to its signals; the
    optional callbacks are connected for them (``on_result(value)``,
    ``on_error(exc, trace)``, ``on_progress(Progress)``).
    """

    started = Signal(object)  # Job
    active_changed = Signal(int)  # number of running jobs

    def __init__(self, pool: QThreadPool | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.pool = pool or job_pool()
        self._jobs: dict[str, Job] = {}  # newest job per key
        self._alive: set[Job] = set()  # every job not yet done (Python must keep them)

    def start(
        self,
        key: str,
        fn: Callable[..., Any],
        *args: Any,
        on_result: Callable[[Any], None] | None = None,
        on_error: Callable[[BaseException, str], None] | None = None,
        on_progress: Callable[[Progress], None] | None = None,
        **kwargs: Any,
    ) -> Job:
        previous = self._jobs.get(key)
        if previous is not None:
            if previous.running:
                previous.cancel()  # deleted once its worker reports (see _forget)
            else:
                previous.deleteLater()
        job = Job(key, self)
        if on_result:
            job.finished.connect(on_result)
        if on_error:
            job.failed.connect(on_error)
        if on_progress:
            job.progressed.connect(on_progress)
        job.done.connect(lambda j=job: self._forget(j))
        self._jobs[key] = job
        self._alive.add(job)
        runnable = _Runnable(job, fn, args, kwargs)
        runnable.setAutoDelete(True)
        self.pool.start(runnable)
        self.started.emit(job)
        self.active_changed.emit(len(self._alive))
        return job

    def job(self, key: str) -> Job | None:
        """The newest job started under ``key`` (running or not)."""
        return self._jobs.get(key)

    def is_running(self, key: str) -> bool:
        job = self._jobs.get(key)
        return job is not None and job.running

    def cancel(self, key: str) -> None:
        job = self._jobs.get(key)
        if job is not None and job.running:
            job.cancel()

    def cancel_all(self) -> None:
        for job in list(self._alive):
            job.cancel()

    @property
    def active(self) -> int:
        return len(self._alive)

    def shutdown(self, timeout_ms: int = 5000) -> bool:
        """Cancel everything and wait for the workers; True when all stopped."""
        self.cancel_all()
        return self.pool.waitForDone(timeout_ms)

    def _forget(self, job: Job) -> None:
        # Jobs are children of the runner so that a worker dropping its Python
        # reference never deletes one off the GUI thread; superseded ones are
        # deleted here, in the GUI thread, once their worker has reported.
        self._alive.discard(job)
        if self._jobs.get(job.key) is not job:
            job.deleteLater()
        self.active_changed.emit(len(self._alive))
