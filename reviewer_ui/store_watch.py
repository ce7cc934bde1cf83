"""Notice writes by other processes: ``StoreWatcher(store, runner).changed``.

Every ``INTERVAL_MS`` the core's ``change_token`` (reviewer.store.changes: a few
indexed max/count lookups, ~1 ms) runs on the job runner; when the token
differs from the last one, ``changed`` fires in the GUI thread. A poll is
skipped while the previous one still runs, so a slow database never queues
polls. The first token only sets the baseline.

Polls are also skipped while this app itself writes a stream of changes
(``QUIET_DURING``: a rerun saving its outputs); otherwise every poll during it
would refresh the whole window, 50-100 ms of GUI-thread work each time
(bench/rerun_bench.py), for changes the writer reports itself when it ends.
The first poll after it sees the new token and fires ``changed`` once, so a
write by another process meanwhile is not missed.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal

from reviewer.store.changes import change_token

INTERVAL_MS = 2000
JOB = "store:poll"
QUIET_DURING = ("runs:work",)  # job keys of this app's own long writers


def _token(ctx, store):
    return change_token(store)


class StoreWatcher(QObject):
    changed = Signal()

    def __init__(self, store, runner, interval_ms: int = INTERVAL_MS, parent: QObject | None = None):
        super().__init__(parent)
        self.store, self.runner = store, runner
        self.token = None
        self.timer = QTimer(self, interval=interval_ms)
        self.timer.timeout.connect(self.poll)

    def start(self) -> None:
        self.poll()
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    def poll(self) -> None:
        if self.runner.is_running(JOB) or any(self.runner.is_running(key) for key in QUIET_DURING):
            return
        self.runner.start(JOB, _token, self.store, on_result=self._seen, on_error=lambda *_: None)

    def _seen(self, token) -> None:
        before, self.token = self.token, token
        if before is not None and token != before:
            self.changed.emit()
