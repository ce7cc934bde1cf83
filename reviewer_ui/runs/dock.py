"""Hosting the Runs panel in the main window: ``install(window)``.

Adds a "Runs" dock (ui.runs.panel.RunsPanel) and a Runs menu, follows the
window's dataset, refreshes the window's run list and the item table's Score
column after scoring or a rerun, selects items the panel asks for, and
re-scores items when the review workspace fixes or settles their gold.
The main window only calls ``install``.
"""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence

from reviewer_ui.review.dock import show_item
from reviewer_ui.runs.panel import RunsPanel
from reviewer_ui.widgets.docking import dock_beside_review

DATASET_JOB = "dataset"  # the window's job that loads a dataset's runs (reviewer_ui/main_window.py)


def install(window) -> RunsPanel:
    """Add the Runs dock and menu to ``window`` (a ui.main_window.MainWindow)."""
    panel = RunsPanel(window.store, window.runner, window.settings, window,
                      current_query=lambda: window.model.query())
    dock = dock_beside_review(window, "Runs", "runsDock", panel)

    # The window loads a dataset's runs in its "dataset" job; follow it, so the panel
    # shows the same dataset whichever way it was chosen.
    def watch(job) -> None:
        if job.key == DATASET_JOB:
            job.finished.connect(lambda _result: panel.set_dataset(window.current_dataset()))

    window.runner.started.connect(watch)
    panel.scores_changed.connect(lambda run_ids: _refresh_score_column(window, run_ids))
    # The item view's score strip: the shown item's new scores once re-scored after a gold edit.
    panel.items_rescored.connect(lambda ids: window.item_view.reload_if_shown(set(ids)))
    panel.runs_changed.connect(lambda: _refresh_runs(window))
    panel.show_item.connect(lambda item_id: show_item(window, item_id))
    review = getattr(window, "review", None)
    if review is not None:
        review.annotation.saved.connect(lambda view: _on_annotation(panel, view))
        review.adjudication.settled.connect(lambda view: panel.gold_changed(view.item_id))

    menu = window.menuBar().addMenu("R&uns")
    for text, keys, slot in (("Score selected runs", "Ctrl+Shift+S", lambda: panel.score_selected()),
                             ("Rerun a model…", "Ctrl+R", lambda: panel.open_rerun_dialog()),
                             ("Continue the selected run", "Ctrl+Shift+C", lambda: panel.continue_selected()),
                             ("Retry failed outputs of the selected run", "Ctrl+Shift+R", panel.retry_errors),
                             ("Cancel scoring or rerun", "Ctrl+Alt+C", panel.cancel)):
        action = QAction(text, window)
        action.setShortcut(QKeySequence(keys))
        action.triggered.connect(slot)
        menu.addAction(action)
        window.addAction(action)
    menu.addSeparator()
    toggle = dock.toggleViewAction()
    toggle.setShortcut(QKeySequence("Alt+2"))
    menu.addAction(toggle)
    window.runs_panel = panel
    window.runs_dock = dock
    return panel


def _on_annotation(panel: RunsPanel, view) -> None:
    # A Fix changes the item's gold at once when both annotators agree on it
    # (automatic resolution); any other verdict leaves the gold as it was.
    if view.draft.verdict == "fix":
        panel.gold_changed(view.item_id)


def _refresh_score_column(window, run_ids: list[int]) -> None:
    """Reload the item table's Score column (in the filter bar's mode) when it shows one of these runs."""
    run_id = window.current_run_id()
    if run_id is not None and run_id in run_ids:
        window.load_scores()


def _refresh_runs(window) -> None:
    """Reload the window's run picker (a rerun may have made a run or added outputs)."""
    window.refresh_runs()
