"""The job runner: results and errors reach the GUI thread, progress is relayed
(and throttled), and a new job under the same key cancels the previous one."""

from __future__ import annotations

import threading

from PySide6.QtCore import QThread
from PySide6.QtWidgets import QApplication


def test_result_arrives_in_the_gui_thread(qtbot, runner):
    seen = {}

    def job(ctx, a, b):
        seen["worker"] = QThread.currentThread()
        return a + b

    job_obj = runner.start("sum", job, 2, 3)
    with qtbot.waitSignal(job_obj.finished, timeout=5000) as blocker:
        pass
    assert blocker.args == [5]
    assert seen["worker"] is not QApplication.instance().thread()
    assert job_obj.state == "finished"


def test_errors_are_reported_with_the_traceback(qtbot, runner):
    def job(ctx):
        raise ValueError("bad input at $.a")

    j = runner.start("boom", job)
    with qtbot.waitSignal(j.failed, timeout=5000) as blocker:
        pass
    exc, trace = blocker.args
    assert isinstance(exc, ValueError) and "bad input" in str(exc)
    assert "ValueError" in trace


def test_progress_is_relayed_and_throttled(qtbot, runner):
    received = []

    def job(ctx):
        for i in range(1, 20001):
            ctx.progress(i, 20000, "counting")
        return "done"

    j = runner.start("count", job, on_progress=received.append)
    with qtbot.waitSignal(j.finished, timeout=10000):
        pass
    assert received, "no progress reached the GUI"
    assert len(received) < 2000  # throttled, not one event per call
    assert received[-1].done == 20000  # the last step always gets through


def test_starting_the_same_key_cancels_the_previous_job(qtbot, runner):
    started = threading.Event()
    results = []

    def slow(ctx):
        started.set()
        while True:  # runs until cancelled
            ctx.check_cancelled()
            threading.Event().wait(0.005)

    def fast(ctx):
        return "second"

    first = runner.start("item", slow, on_result=results.append)
    assert started.wait(5)
    cancelled = []
    first.cancelled.connect(lambda: cancelled.append(True))
    second = runner.start("item", fast, on_result=results.append)
    assert first.ctx.cancelled
    with qtbot.waitSignal(second.finished, timeout=5000):
        pass
    qtbot.waitUntil(lambda: cancelled == [True], timeout=5000)
    assert results == ["second"]
    assert runner.job("item") is second


def test_superseded_result_is_dropped_even_if_the_job_ignores_cancel(qtbot, runner):
    release = threading.Event()
    results = []

    def stubborn(ctx):
        release.wait(5)
        return "stale"  # never checks for cancellation

    first = runner.start("k", stubborn, on_result=results.append)
    endings = []
    first.done.connect(lambda: endings.append(first.state))
    second = runner.start("k", lambda ctx: "fresh", on_result=results.append)
    with qtbot.waitSignal(second.finished, timeout=5000):
        pass
    release.set()
    qtbot.waitUntil(lambda: endings == ["cancelled"], timeout=5000)
    assert results == ["fresh"]


def test_cancel_by_key_and_active_count(qtbot, runner):
    started = threading.Event()

    def slow(ctx):
        started.set()
        while True:
            ctx.check_cancelled()
            threading.Event().wait(0.005)

    j = runner.start("long", slow)
    assert started.wait(5)
    assert runner.is_running("long") and runner.active == 1
    with qtbot.waitSignal(j.cancelled, timeout=5000):
        runner.cancel("long")
    qtbot.waitUntil(lambda: runner.active == 0, timeout=5000)
    assert not runner.is_running("long")


def test_a_job_that_outlives_its_owner_ends_quietly(qtbot, runner):
    """A window closed while its read still runs deletes the Job; the read ending
    later must not raise in the worker thread (it surfaced as an unhandled
    exception in whatever the user, or the next test, was doing)."""
    import shiboken6

    release, started = threading.Event(), threading.Event()

    def job(ctx):
        started.set()
        release.wait(5)
        raise LookupError("the window's database is gone")

    j = runner.start("orphan", job)
    assert started.wait(5)
    shiboken6.delete(j)  # what closing the window does to its jobs
    with qtbot.captureExceptions() as exceptions:
        release.set()
        assert runner.pool.waitForDone(5000)
        QApplication.processEvents()
    assert exceptions == []


def test_a_quick_job_is_not_kept_waiting_behind_long_ones(qtbot):
    """Two or three long jobs (an export, a check, statistics) must not hold every thread: on a
    2-core laptop Qt's global pool has two, and an item load waited 25 s behind them."""
    import threading

    from reviewer_ui.runtime.jobs import JobRunner

    runner = JobRunner()  # the app's own pool, as MainWindow makes it
    release = threading.Event()
    try:
        for key in ("export", "check", "stats"):
            runner.start(key, lambda ctx: release.wait(30))
        with qtbot.waitSignal(runner.start("item:load", lambda ctx: "item 2").finished, timeout=5000) as done:
            pass
        assert done.args == ["item 2"] and runner.is_running("export")
    finally:
        release.set()
        runner.shutdown(10000)
