"""One start of the app, timed from the process's launch (helper of startup_bench.py).

    python bench/startup_probe.py DB LAUNCH_EPOCH [--until window|scored]

Prints one JSON line: seconds from LAUNCH_EPOCH (time.time() in the parent just before
it started this process) to
- "window": the first paint of the main window's item table (empty or not),
- "painted_samples": the first paint of the item table holding rows,
- "scored": the first-start job's end (the same as painted_samples' start for code
  that imports the samples before showing the window),
"*_cpu": this process's CPU seconds (all threads) at those moments, "*_gui_cpu": the
GUI thread's alone, and "max_stall" (seconds): the longest the GUI thread left a 10 ms timer waiting
between the first paint and the end. Works with code that predates main()'s
on_shown hook (then "scored" is the moment the window first painted).
"""

from __future__ import annotations

import inspect
import json
import resource
import sys
import time


def main() -> int:
    db, launch = sys.argv[1], float(sys.argv[2])
    until = sys.argv[sys.argv.index("--until") + 1] if "--until" in sys.argv else "painted"
    from reviewer_ui import app as app_module

    # Code with main()'s on_shown hook imports its core before PySide6 (reviewer_ui.app):
    # import nothing of Qt here before it does, or the start is measured slower than it is.
    hooked = "on_shown" in inspect.signature(app_module.main).parameters
    out: dict = {"max_stall": 0.0}
    state: dict = {"tick": None}

    def now() -> float:
        return time.time() - launch

    def cpu() -> float:
        # Load-independent companion of the wall times: this process's CPU seconds so far
        # (threads included). On a busy shared machine the wall time waits for a core.
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime

    def install_watch(table=None):
        from PySide6.QtCore import QElapsedTimer, QEvent, QObject, QTimer
        from PySide6.QtWidgets import QApplication, QTableView

        app = QApplication.instance() or QApplication(["reviewer"])
        clock = QElapsedTimer()

        def finish() -> None:
            if state.get("finished"):
                return
            state["finished"] = True
            print(json.dumps(out), flush=True)
            for w in app.topLevelWidgets():
                w.close()
            app.exit(0)

        def maybe_finish() -> None:
            if until == "window" and "window" in out:
                finish()
            elif until == "painted" and "painted_samples" in out:
                finish()
            elif until == "scored" and "scored" in out and "painted_samples" in out:
                finish()

        def tick() -> None:
            if state["tick"] is not None:
                out["max_stall"] = max(out["max_stall"], clock.elapsed() / 1000 - 0.010)
            clock.restart()
            state["tick"] = True
            QTimer.singleShot(10, tick)

        class PaintWatch(QObject):
            def eventFilter(self, obj, event):  # noqa: N802 - Qt's name
                if event.type() == QEvent.Type.Paint and isinstance(obj.parent(), QTableView):
                    view = obj.parent()
                    if "window" not in out:
                        out["window"] = now()
                        out["window_cpu"] = cpu()
                        out["window_gui_cpu"] = time.thread_time()
                        clock.start()
                        QTimer.singleShot(10, tick)
                        if not hooked:
                            out["scored"] = out["window"]  # old code: imported before the window
                            out["scored_cpu"] = out["window_cpu"]
                    if "painted_samples" not in out and view.model() is not None and view.model().rowCount() > 0:
                        out["painted_samples"] = now()
                        out["painted_samples_cpu"] = cpu()
                    QTimer.singleShot(0, maybe_finish)
                return False

        state["watch"] = PaintWatch()
        if table is not None:
            # On the table's viewport only: an application-wide Python filter is also
            # called for objects still under construction (see gcpolicy.IdleCollector).
            table.viewport().installEventFilter(state["watch"])
        else:  # code without the on_shown hook: no window to ask for its table
            app.installEventFilter(state["watch"])
        QTimer.singleShot(120_000, finish)  # never hang a bench
        state["maybe_finish"] = maybe_finish
        return app

    kwargs = {}
    if hooked:
        def on_shown(window, job):
            install_watch(window.table)
            from PySide6.QtCore import QTimer

            def done():
                out["scored"] = now()
                out["scored_cpu"] = cpu()
                # The GUI thread's own CPU seconds (this callback runs on it): with
                # window_gui_cpu, what the window spent on the first start's refreshes.
                out["scored_gui_cpu"] = time.thread_time()
                QTimer.singleShot(0, state["maybe_finish"])

            if job.running:
                job.done.connect(done)
            else:
                done()

        kwargs["on_shown"] = on_shown
    else:
        install_watch()
    app_module.main(db, ["reviewer"], **kwargs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
