"""Queues and progress: my progress and the dataset's, "next item I have not
annotated", and the adjudication queue (differing verdicts first, then the most disagreement,
with reasons).

The counts and the queue are read in one job (``fetch_queues``) on the
workspace's job runner when one is given (key ``review-queues``: a newer
refresh supersedes an older one), else synchronously.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QProgressBar, QPushButton, QVBoxLayout, QWidget,
)

from reviewer.review import Progress, QueueEntry


@dataclass(frozen=True)
class Queues:
    progress: Progress
    queue: list[QueueEntry]


def fetch_queues(ctx, review, dataset_id: int) -> Queues:
    """Job body (worker thread, no widgets): the viewer's progress and, for adjudicators,
    the adjudication queue (annotators have none: they never see disputes)."""
    progress = review.progress(dataset_id)
    if ctx is not None:
        ctx.check_cancelled()
    return Queues(progress, review.queue(dataset_id) if review.may_adjudicate else [])


class QueuePanel(QWidget):
    navigate = Signal(int)  # annotate this item
    adjudicate_requested = Signal(int)  # settle this item (adjudicators)
    refreshed = Signal(object)  # Queues

    def __init__(self, session, runner=None, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.runner = runner
        self.dataset_id: int | None = None
        self.position = -1  # of the item shown, so "next" goes forward from it
        self.queues: Queues | None = None

        self.mine_label = QLabel("")
        self.mine_label.setTextFormat(Qt.TextFormat.PlainText)
        self.mine_bar = QProgressBar()
        # the percentage is in the label beside it: drawn on the bar it sat across the fill's edge,
        # half of it on each colour (as the status bar's did: reviewer_ui.main_window)
        self.mine_bar.setTextVisible(False)
        self.dataset_label = QLabel("")
        self.dataset_label.setObjectName("muted")
        # Wrapped (the dock stays narrow), with the room of three lines reserved before any text
        # arrives: the splitter hosting this panel sizes it once and must not squeeze them later.
        self.dataset_label.setWordWrap(True)
        self.dataset_label.setMinimumHeight(self.dataset_label.fontMetrics().lineSpacing() * 3 + 4)
        self.mine_label.setWordWrap(True)
        self.next_button = QPushButton("Next item I have not annotated  (N)")
        self.next_button.clicked.connect(self.next_unannotated)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refresh)
        self.status = QLabel("")
        self.status.setObjectName("muted")
        self.queue_title = queue_title = QLabel("Adjudication queue (differing verdicts first)")
        queue_title.setObjectName("sectionTitle")
        self.queue_list = QListWidget()
        self.queue_list.setWordWrap(True)
        self.queue_list.setMinimumHeight(90)
        self.queue_list.itemActivated.connect(self._activated)
        self.queue_list.itemDoubleClicked.connect(self._activated)

        buttons = QHBoxLayout()
        buttons.addWidget(self.next_button)
        buttons.addStretch(1)
        buttons.addWidget(self.refresh_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addWidget(self.mine_label)
        layout.addWidget(self.mine_bar)
        layout.addWidget(self.dataset_label)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        layout.addWidget(queue_title)
        layout.addWidget(self.queue_list, 1)
        session.changed.connect(self.refresh)
        self.refresh()  # no dataset yet: reads nothing, shows the queue only to a signed-in adjudicator

    def set_dataset(self, dataset_id: int | None) -> None:
        self.dataset_id = dataset_id
        self.position = -1
        self.refresh()

    def set_position(self, position: int) -> None:
        self.position = position

    def refresh(self) -> None:
        if not self.session.signed_in:  # no counts nor queue until the database said who this is
            self._show_signing_in()
            return
        if self.dataset_id is None:
            self.queue_list.clear()
            self._show_queue(self.session.is_adjudicator)
            self.mine_label.setText("No dataset chosen.")
            return
        args = (self.session.review, self.dataset_id)
        if self.runner is None:
            self._show(fetch_queues(None, *args))
        else:
            self.status.setText("refreshing…")
            self.runner.start("review-queues", fetch_queues, *args, on_result=self._show,
                              on_error=lambda exc, _tb: self.status.setText(f"Could not read the queues: {exc}"))

    def _show_signing_in(self) -> None:
        """Signing in (or signed out): an annotator's view, without counts, saying so."""
        if self.runner is not None:
            self.runner.cancel("review-queues")  # a refresh for the previous identity is not shown
        self.queues = None
        self.queue_list.clear()
        self._show_queue(False)
        self.mine_label.setText(self.session.waiting_text())
        self.mine_bar.setRange(0, 1)
        self.mine_bar.setValue(0)
        self.dataset_label.setText("")
        self.status.setText("")

    def _show(self, queues: Queues) -> None:
        self.queues = queues
        self.show_progress(queues.progress)
        adjudicator = self.session.is_adjudicator
        self._show_queue(adjudicator)
        self.queue_list.clear()
        for entry in queues.queue:
            item = QListWidgetItem(f"{entry.record_id}   · disputed {entry.score:.1f}\n    "
                                   + "; ".join(entry.reasons))
            item.setData(Qt.ItemDataRole.UserRole, entry.item_id)
            # reviewer.review.core.disagreement_score, in words
            item.setToolTip("Disagreement score: 4 for different verdicts, 1 per differing check, 1 per ambiguity "
                            "level apart, 1 for difficulty, 2 to 3 for different fixes, up to 1 for error tags")
            self.queue_list.addItem(item)
        if not queues.queue:
            self.queue_list.addItem("No disputed item waits for adjudication." if adjudicator
                                    else "The adjudication queue is the adjudicators'.")
        self.status.setText("")
        self.refreshed.emit(queues)

    def _show_queue(self, adjudicator: bool) -> None:
        """Annotators have no adjudication queue: its room goes to the annotation panel."""
        self.queue_title.setVisible(adjudicator)
        self.queue_list.setVisible(adjudicator)
        self.layout().activate()
        self.setMaximumHeight(16777215 if adjudicator else self.sizeHint().height())

    def show_progress(self, p: Progress | None) -> None:
        """Show the viewer's and the dataset's counts (from a refresh, or straight from a save's result)."""
        if p is None or not self.session.signed_in:  # e.g. a save of the previous identity landing
            return
        percent = f" ({100 * p.mine // p.items}%)" if p.items else ""
        self.mine_label.setText(f"You ({self.session.name}) annotated {p.mine:,} of {p.items:,} items{percent}")
        self.mine_bar.setRange(0, max(1, p.items))
        self.mine_bar.setValue(p.mine)
        adjudicator = self.session.is_adjudicator
        self.dataset_label.setText(
            f"Dataset: {p.annotated_twice} reviewed twice · {p.disagreements} disputed, waiting for you\n"
            f"{p.settled} settled ({p.auto_resolved} unanimous, {p.settled - p.auto_resolved} adjudicated)"
            if adjudicator else "")
        # An annotator's note on the statuses is a tooltip: its three reserved lines went to the
        # annotation panel above, whose Error tags were out of view at 1366x768.
        self.dataset_label.setVisible(adjudicator)
        hint = "" if adjudicator else ("Each item you review shows its status: waiting for a second review, "
                                       "with the adjudicator, or settled.")
        self.mine_label.setToolTip(hint)
        self.mine_bar.setToolTip(hint)
        self._show_queue(adjudicator)  # the panel's height follows what it shows

    def _activated(self, item: QListWidgetItem) -> None:
        item_id = item.data(Qt.ItemDataRole.UserRole)
        if item_id is None:
            return
        if self.session.is_adjudicator:
            self.adjudicate_requested.emit(item_id)
        else:
            self.navigate.emit(item_id)

    def next_unannotated(self) -> int | None:
        """Ask for the next item (after the one shown) that still needs my annotation; with a
        runner the look-up is a job and ``navigate`` fires when it lands (None is returned)."""
        if self.dataset_id is None:
            return None
        if not self.session.signed_in:
            self.status.setText(self.session.waiting_text())
            return None
        review, dataset_id, position = self.session.review, self.dataset_id, self.position
        if self.runner is None:
            return self._go_next(review.next_item(dataset_id, position))
        # A job like the annotation panel's N: the look-up is a query, never on the GUI thread.
        self.runner.start("review-queues-next", lambda _ctx: review.next_item(dataset_id, position),
                          on_result=self._go_next,
                          on_error=lambda exc, _tb: self.status.setText(f"Could not look up the next item: {exc}"))
        return None

    def _go_next(self, nxt: int | None) -> int | None:
        if nxt is None:
            self.status.setText("Nothing left: every item that needs you has your annotation.")
            return None
        self.navigate.emit(nxt)
        return nxt
