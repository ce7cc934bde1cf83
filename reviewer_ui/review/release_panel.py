"""The release panel: how many items are released as Gold, why the others are
not, and "Export Gold…" (JSONL with provenance, or the dataset's own format).

Counting (``release.gold_status``) and exporting run as jobs on the
workspace's job runner when one is given, else synchronously.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QFileDialog, QHBoxLayout, QLabel, QListWidget, QMessageBox, QPushButton, QVBoxLayout, QWidget,
)

from reviewer.jobs import silent
from reviewer.review import release
from reviewer_ui.review.widgets import rich_label


def reason_group(reason: str) -> str:
    """Reasons grouped for counting: schema errors by kind of check, not by path and value."""
    if reason.startswith("schema:"):
        return "the gold does not match the item's schema"
    return re.sub(r"^call \d+ \(.*?\) parameter .*", "a call uses a response no earlier call returns", reason)


def count_release(ctx, store, dataset_id: int) -> tuple[int, int, Counter]:
    """Job body: (released, total, Counter of reasons for the rest)."""
    statuses = release.gold_status(store, dataset_id)
    reasons: Counter = Counter()
    for s in statuses:
        reasons.update({reason_group(r) for r in s.reasons})
    return sum(s.released for s in statuses), len(statuses), reasons


def export_jsonl(ctx, store, dataset_id: int, path: Path) -> str:
    n = release.export_gold_jsonl(store, dataset_id, path)
    return f"Exported {n} Gold item(s) with provenance to {path}"


def export_source(ctx, store, dataset_id: int, out: Path) -> str:
    paths = release.export_gold_source(store, dataset_id, out, ctx or silent())
    return f"Exported the Gold items in the dataset's format: {', '.join(str(p) for p in paths)}"


class ReleasePanel(QWidget):
    counted = Signal()
    exported = Signal(str)  # the message shown

    def __init__(self, session, runner=None, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.runner = runner
        self.dataset_id: int | None = None
        self.released = self.total = 0
        self.reasons: Counter = Counter()

        title = QLabel("Gold release")
        title.setObjectName("heading")
        self.summary = rich_label()
        self.summary.setText("No dataset chosen.")
        self.reason_list = QListWidget()
        self.refresh_button = QPushButton("Recount")
        self.refresh_button.clicked.connect(self.refresh)
        self.export_button = QPushButton("Export Gold…")
        self.export_button.clicked.connect(self.choose_export)
        self.status = QLabel("")
        self.status.setObjectName("muted")
        self.status.setWordWrap(True)
        buttons = QHBoxLayout()
        buttons.addWidget(self.refresh_button)
        buttons.addStretch(1)
        buttons.addWidget(self.export_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addWidget(title)
        layout.addWidget(self.summary)
        reasons_title = QLabel("Why the other items are not Gold (an item may have several reasons)")
        reasons_title.setObjectName("sectionTitle")
        layout.addWidget(reasons_title)
        layout.addWidget(self.reason_list, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.status)

    def set_dataset(self, dataset_id: int | None) -> None:
        self.dataset_id = dataset_id
        self.refresh()

    def _run(self, key: str, fn, *args, on_result) -> None:
        if self.runner is None:
            on_result(fn(None, *args))
        else:
            self.runner.start(key, fn, *args, on_result=on_result,
                              on_error=lambda exc, _tb: self.status.setText(f"Failed: {exc}"))

    def refresh(self) -> None:
        if self.dataset_id is None:
            return
        self.status.setText("counting…")
        self._run("review-release", count_release, self.session.store, self.dataset_id, on_result=self._show)

    def _show(self, result) -> None:
        self.released, self.total, self.reasons = result
        self.summary.setText(f"<b>{self.released}</b> of {self.total} items are released as Gold "
                             "(settled Pass or Fix, automatic checks pass, ambiguity Low or Medium).")
        self.reason_list.clear()
        for reason, n in self.reasons.most_common():
            self.reason_list.addItem(f"{n:>6}  {reason}")
        self.status.setText("")
        self.counted.emit()

    def choose_export(self) -> None:
        if self.dataset_id is None:
            return
        box = QMessageBox(self)
        box.setWindowTitle("Export Gold")
        box.setText(f"Export the {self.released} Gold item(s) as:")
        jsonl = box.addButton("JSONL with provenance…", QMessageBox.ButtonRole.AcceptRole)
        source = box.addButton("The dataset's own format…", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        if box.clickedButton() is jsonl:
            path, _ = QFileDialog.getSaveFileName(self, "Export Gold as JSONL", "gold.jsonl", "JSON Lines (*.jsonl)")
            if path:
                self.export("jsonl", Path(path))
        elif box.clickedButton() is source:
            folder = QFileDialog.getExistingDirectory(self, "Export Gold in the dataset's format into")
            if folder:
                self.export("source", Path(folder))

    def export(self, form: str, target: Path) -> None:
        """Export the released Gold: ``form`` is ``jsonl`` (a file) or ``source`` (a folder)."""
        fn = export_jsonl if form == "jsonl" else export_source
        self.status.setText("exporting…")
        self._run("review-export", fn, self.session.store, self.dataset_id, target, on_result=self._exported)

    def _exported(self, message: str) -> None:
        self.status.setText(message)
        self.exported.emit(message)
