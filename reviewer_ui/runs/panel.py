"""The Runs panel: a dataset's runs, scoring and reruns with progress, results,
comparison and changed verdicts.

All store work goes through the GUI's JobRunner (reviewer_ui/runtime/jobs.py) with the job
functions of ``ui.runs.tasks``; this widget only starts jobs and shows what
they return. Keys: ``runs:state`` (runs and stored scores), ``runs:work``
(scoring or a rerun: one at a time, Cancel stops it), ``runs:compare`` and
``runs:rescore``.

Signals for the host: ``scores_changed(run_ids)`` after scores were written,
``runs_changed()`` after a rerun added outputs, ``show_item(item_id)``.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from reviewer.errors import ReviewerError
from reviewer.jobs import Progress
from reviewer.rerun.config import RunConfig
from reviewer.store.queries import ItemQuery
from reviewer_ui.runs import tasks
from reviewer_ui.runs.compare import CompareView
from reviewer_ui.runs.flips import FlipsView
from reviewer_ui.runs.progress import ProgressLine
from reviewer_ui.runs.rerun_dialog import RerunDialog, RerunRequest
from reviewer_ui.runs.results import ResultsView
from reviewer_ui.runs.tables import SortItem, fill, make_table
from reviewer_ui.widgets.wrapped_label import WrappedLabel

WORK = "runs:work"
RESCORE_DELAY_MS = 300  # gold edits come in bursts (fix, then settle): re-score once they pause
SCORE_MODES = {"faithful": ["faithful"], "fixed": ["fixed"], "both": ["faithful", "fixed"]}


class RunsPanel(QWidget):
    scores_changed = Signal(list)  # run ids whose scores were (re)written
    items_rescored = Signal(object)  # the ids of items whose outputs were re-scored after a gold edit
    runs_changed = Signal()
    show_item = Signal(int)

    def __init__(self, store, runner, settings: QSettings, parent: QWidget | None = None,
                 current_query=lambda: None):
        super().__init__(parent)
        self.store, self.runner, self.settings = store, runner, settings
        self.current_query = current_query  # () -> ItemQuery | None: the table's filters
        self.dataset = None  # DatasetInfo
        self.runs: list = []
        self.configs: dict[str, dict] = {}
        self.last_outcome: tasks.RerunOutcome | None = None
        self._work_label = ""
        self._rescore_pending: set[int] = set()

        # Names in full (the run is what the user picks); the last column takes what is left.
        self.runs_table = make_table(["Run", "Model", "Setup", "OK", "Errors", "Missing", "Scored"], stretch=6,
                                     sortable=True)
        self.runs_table.horizontalHeaderItem(5).setToolTip("Items (times replications) without an output yet")
        self.runs_table.itemSelectionChanged.connect(self._update_buttons)
        self.runs_table.setMinimumHeight(self.runs_table.verticalHeader().defaultSectionSize() * 7)
        self.mode_box = QComboBox()
        self.mode_box.addItems(list(SCORE_MODES))
        self.mode_box.setToolTip("faithful: the benchmark's official scorer, quirks included; "
                                 "fixed: with the quirks corrected; both: one after the other")
        self.score_button = QPushButton("Score")
        self.score_button.setToolTip("Score the selected runs (all runs when none is selected)")
        self.rerun_button = QPushButton("Rerun…")
        self.retry_button = QPushButton("Retry errors")
        self.retry_button.setToolTip("Call the model again for the selected run's failed outputs")
        self.continue_button = QPushButton("Continue")
        self.continue_button.setToolTip("Continue the selected run where it stopped: call the model for its "
                                        "missing and failed items with the run's own settings")
        self.continue_button.clicked.connect(lambda: self.continue_selected())
        self.cancel_button = QPushButton("Cancel")
        self.score_button.clicked.connect(lambda: self.score_selected())
        self.rerun_button.clicked.connect(lambda: self.open_rerun_dialog())
        self.retry_button.clicked.connect(self.retry_errors)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = ProgressLine()
        self.status = WrappedLabel("")  # a long connection error must not push the buttons under the table
        self.status.setObjectName("muted")
        self.report = QTextBrowser()
        self.report.setVisible(False)
        self.report.setMaximumHeight(150)
        self.score_now = QPushButton("Score now")
        self.score_now.setVisible(False)
        self.score_now.clicked.connect(self._score_last_rerun)

        self.results = ResultsView()
        self.compare = CompareView()
        self.compare.compare_requested.connect(self.run_compare)
        self.compare.show_item.connect(self.show_item)
        self.flips = FlipsView()
        self.flips.show_item.connect(self.show_item)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.results, "Results")
        self.tabs.addTab(self.compare, "Compare")
        self.tabs.addTab(self.flips, "Verdicts changed")

        # Two short rows: the panel shares the window's width with the item under review.
        score_row, run_row = QHBoxLayout(), QHBoxLayout()
        score_row.addWidget(self.mode_box)
        score_row.addWidget(self.score_button)
        score_row.addStretch(1)
        score_row.addWidget(self.cancel_button)
        for b in (self.rerun_button, self.continue_button, self.retry_button):
            run_row.addWidget(b)
        run_row.addStretch(1)
        top = QWidget()
        col = QVBoxLayout(top)
        col.setContentsMargins(0, 0, 0, 0)
        col.addWidget(self.runs_table, 1)
        col.addLayout(score_row)
        col.addLayout(run_row)
        col.addWidget(self.progress)
        col.addWidget(self.status)
        report_row = QHBoxLayout()
        report_row.addWidget(self.report, 1)
        report_row.addWidget(self.score_now, 0, Qt.AlignmentFlag.AlignTop)
        col.addLayout(report_row)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("runsSplitter")
        self.splitter.addWidget(top)
        self.splitter.addWidget(self.tabs)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.splitter)

        self._rescore_timer = QTimer(self, singleShot=True, interval=RESCORE_DELAY_MS)
        self._rescore_timer.timeout.connect(self._start_rescore)
        self._update_buttons()

    # -- dataset and runs ---------------------------------------------------------------------------

    def set_dataset(self, dataset) -> None:
        """Show ``dataset`` (a DatasetInfo, or None) and load its runs and stored scores."""
        changed = self.dataset is None or dataset is None or dataset.id != self.dataset.id
        self.dataset = dataset
        if changed:  # nothing of the previous dataset may be scored or compared meanwhile
            self._set_state(tasks.DatasetScores([]))
            if not self.runner.is_running(WORK):
                self.status.setText("")  # a message about the previous dataset's runs no longer applies
            self.flips.clear()
            self.compare.set_rows([])
            self.report.setVisible(False)
            self.score_now.setVisible(False)
        self.reload()

    def reload(self) -> None:
        if self.dataset is None:
            self._set_state(tasks.DatasetScores([]))
            return
        self.runner.start("runs:state", tasks.load_dataset_scores, self.store, self.dataset.id,
                          on_result=self._set_state, on_error=self._error)

    def _set_state(self, state: tasks.DatasetScores) -> None:
        self.runs, self.configs = state.runs, state.configs
        scored = {}
        for run_id, mode in state.scores:
            scored.setdefault(run_id, []).append(mode)
        selected = set(self.selected_run_ids())
        rows = []
        for r in self.runs:
            name = SortItem(r.name, r.name)
            name.run_id = r.id
            ok, missing = r.outputs - r.errors, self.missing(r)
            rows.append([name, SortItem(r.model or "", r.model or ""), SortItem(r.setup or "", r.setup or ""),
                         SortItem(f"{ok:,}", ok), SortItem(f"{r.errors:,}", r.errors),
                         SortItem(f"{missing:,}", missing),
                         SortItem(", ".join(sorted(scored.get(r.id, []))) or "—")])
        fill(self.runs_table, rows)
        for row in range(self.runs_table.rowCount()):
            if self.run_id_at(row) in selected:
                self.runs_table.selectRow(row)
        self.results.set_data(self.runs, state.scores)
        self.compare.set_runs(self.runs)
        self._update_buttons()

    def missing(self, run) -> int:
        """Items (times the run's replications) that have no output in ``run`` yet."""
        replications = int((self.configs.get(run.name) or {}).get("replications") or 1)
        items = self.dataset.items if self.dataset is not None else 0
        return max(0, items * replications - run.outputs)

    def run_id_at(self, row: int) -> int | None:
        return getattr(self.runs_table.item(row, 0), "run_id", None)

    def selected_run_ids(self) -> list[int]:
        rows = sorted({i.row() for i in self.runs_table.selectedIndexes()})
        return [self.run_id_at(r) for r in rows if self.run_id_at(r) is not None]

    def select_runs(self, run_ids: list[int]) -> None:
        self.runs_table.clearSelection()
        for row in range(self.runs_table.rowCount()):
            if self.run_id_at(row) in run_ids:
                self.runs_table.selectionModel().select(
                    self.runs_table.model().index(row, 0),
                    self.runs_table.selectionModel().SelectionFlag.Select
                    | self.runs_table.selectionModel().SelectionFlag.Rows)

    def _update_buttons(self) -> None:
        busy = self.runner.is_running(WORK)
        has_data = self.dataset is not None
        self.score_button.setEnabled(has_data and bool(self.runs) and not busy)
        self.rerun_button.setEnabled(has_data and not busy)
        one = len(self.selected_run_ids()) == 1
        self.retry_button.setEnabled(has_data and one and not busy)
        self.continue_button.setEnabled(has_data and one and not busy and self._selected_name() in self.configs)
        self.cancel_button.setEnabled(busy)

    # -- scoring ----------------------------------------------------------------------------------------

    def score_selected(self, mode: str | None = None) -> None:
        """Score the selected runs (all when none is selected) in ``mode`` (faithful | fixed | both)."""
        run_ids = self.selected_run_ids() or [r.id for r in self.runs]
        self.score(run_ids, mode or self.mode_box.currentText())

    def score(self, run_ids: list[int], mode: str) -> None:
        if not run_ids:
            return
        modes = SCORE_MODES[mode]
        self._start_work(f"Scoring ({mode})", tasks.score_runs, self.store, run_ids, modes,
                         on_result=self._scored)
        if len(modes) == 1:
            self.results.set_mode(modes[0])

    def _scored(self, results) -> None:
        self.results.add(results)
        runs = sorted({r.run_id for r in results})
        n = sum(r.scored for r in results)
        self.status.setText(f"Scored {n:,} outputs of {len(runs)} run{'s' if len(runs) != 1 else ''} "
                            f"({', '.join(sorted({r.mode for r in results}))}).")
        self.tabs.setCurrentWidget(self.results)
        if self.last_outcome is not None and self.last_outcome.report.run_id in runs:
            self.score_now.setVisible(False)
        self.scores_changed.emit(runs)
        self.reload()  # the Scored column

    # -- reruns ----------------------------------------------------------------------------------------------

    def open_rerun_dialog(self, run_name: str | None = None, scope: str | None = None) -> RerunDialog | None:
        """Open the dialog (non-modal, so tests and screenshots can drive it); its
        acceptance starts the rerun. Returns the dialog."""
        if self.dataset is None:
            return None
        query = self.current_query()
        dialog = RerunDialog(self.dataset.kind, self.runs, self.configs, self.settings, self, runner=self.runner)
        if run_name:
            dialog.run_name.setCurrentText(run_name)
        if scope:
            dialog.set_scope(scope)
        dialog.accepted.connect(lambda: self.start_rerun(dialog.result_request, query))
        dialog.open()
        self.rerun_dialog = dialog
        return dialog

    def _selected_name(self) -> str | None:
        ids = self.selected_run_ids()
        return next((r.name for r in self.runs if ids and r.id == ids[0]), None)

    def continue_selected(self) -> None:
        """Continue the selected run with its stored settings: its missing and failed items."""
        name = self._selected_name()
        if name is None:
            self.status.setText("Select the run to continue in the table.")
            return
        stored = self.configs.get(name)
        if not stored:
            self.status.setText(f"Run {name!r} was imported, not made by a rerun: there is no endpoint "
                                "to continue it against. Rerun it under a new name instead.")
            return
        try:
            config = RunConfig.from_dict(stored)
        except ReviewerError as exc:
            self.status.setText(f"Run {name!r} has settings this version cannot read: {exc}")
            return
        self.start_rerun(RerunRequest(name, config, "all"))

    def retry_errors(self) -> None:
        ids = self.selected_run_ids()
        name = next((r.name for r in self.runs if ids and r.id == ids[0]), None)
        if name is None:
            return
        if name not in self.configs:
            self.status.setText(f"Run {name!r} was imported, not made by a rerun: there is no endpoint "
                                "to retry it against. Rerun it under a new name instead.")
            return
        self.open_rerun_dialog(name, "failed")

    def start_rerun(self, request: RerunRequest, query: ItemQuery | None = None) -> None:
        """Start the rerun ``request`` describes; items of the "filter" scope come from ``query``."""
        self.report.setVisible(False)
        self.score_now.setVisible(False)
        self._start_work(f"Rerun {request.run_name!r}", tasks.rerun_run, self.store, self.dataset.id,
                         request.run_name, request.config, request.scope, query, on_result=self._rerun_done)

    def _rerun_done(self, outcome: tasks.RerunOutcome) -> None:
        self.last_outcome = outcome
        s, report = outcome.report.summary, outcome.report
        lines = [(f"<b>Run {_html(report.run)}</b>: {report.planned:,} calls planned — {s.ok:,} ok, "
                  f"{s.errors:,} failed, {s.cached:,} from the cache, {s.retries:,} retries, "
                  f"{s.rate_limit_pauses:,} rate-limit pauses.")]
        if report.planned == 0:
            lines.append("Nothing to do: every selected item already has an answer in this run.")
        for note in s.adaptations:
            lines.append(f"Endpoint adaptation: {_html(note)}")
        if outcome.error_count:
            lines.append(f"<b>{outcome.error_count:,} output{'s' if outcome.error_count != 1 else ''} "
                         "of this run failed</b>"
                         + (f" (first {len(outcome.errors)}):" if outcome.error_count > len(outcome.errors) else ":"))
            lines += [f"&nbsp;&nbsp;{_html(rid)}: {_html(err)}" for rid, err in outcome.errors]
        self.report.setHtml("<br>".join(lines))
        self.report.setVisible(True)
        self.score_now.setVisible(report.planned > 0)
        self.status.setText(f"Rerun {report.run!r} finished.")
        # The runs are listed again by _work_done, which follows every ending of a rerun.

    def _score_last_rerun(self) -> None:
        if self.last_outcome is not None:
            self.score_now.setVisible(False)
            self.score([self.last_outcome.report.run_id], self.mode_box.currentText())

    # -- the one running piece of work ----------------------------------------------------------------------

    def _start_work(self, label: str, fn, *args, on_result) -> None:
        if self.runner.is_running(WORK):  # a second start would cancel the first (same job key)
            self.status.setText(f"{self._work_label} is still running: wait for it or cancel it first.")
            return
        self._work_label = label
        job = self.runner.start(WORK, fn, *args, on_result=on_result, on_error=self._error,
                                on_progress=self._on_progress)
        job.cancelled.connect(lambda: self.status.setText(f"{label}: cancelled; what was finished is kept."))
        job.done.connect(self._work_done)
        self.progress.start(label)
        self.status.setText(f"{label}…")
        self._update_buttons()

    def _on_progress(self, p: Progress) -> None:
        self.progress.show_progress(p, self._work_label)

    def _work_done(self) -> None:
        if not self.runner.is_running(WORK):
            self.progress.finish()
        self._update_buttons()
        if self._work_label.startswith("Rerun"):
            # Finished, cancelled or stopped: the run exists and holds what arrived; list it.
            self.runs_changed.emit()
            self.reload()

    def cancel(self) -> None:
        self.runner.cancel(WORK)

    def _error(self, exc: BaseException, _trace: str) -> None:
        self.status.setText(f"Failed: {exc}")

    # -- compare -----------------------------------------------------------------------------------------------

    def run_compare(self, run_a: int, run_b: int, mode: str) -> None:
        self.runner.start("runs:compare", tasks.compare, self.store, run_a, run_b, mode,
                          on_result=self.compare.set_rows, on_error=self._error)

    # -- re-scoring after gold edits ---------------------------------------------------------------------------

    def gold_changed(self, item_id: int) -> None:
        """An item's gold may have changed: re-score its scored outputs soon, in the background."""
        self._rescore_pending.add(item_id)
        self._rescore_timer.start()

    def _start_rescore(self) -> None:
        ids = sorted(self._rescore_pending)
        # A newer request supersedes a running one; the ids stay pending until one finishes.
        self.runner.start("runs:rescore", tasks.rescore, self.store, ids,
                          on_result=lambda flips, ids=ids: self._rescored(ids, flips), on_error=self._error)

    def _rescored(self, ids: list[int], flips) -> None:
        self._rescore_pending.difference_update(ids)
        self.flips.add(flips, len(ids))
        if flips:
            self.tabs.setCurrentWidget(self.flips)
            self.status.setText(f"Verdicts changed after a gold edit: {len(flips)} (see “Verdicts changed”).")
        self.scores_changed.emit(sorted({r.id for r in self.runs}))
        self.items_rescored.emit(ids)
        self.reload()


def _html(text) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
