"""The release panel: how many items are released as Gold, why the others are
not, and "Export Gold…" (JSONL with provenance, or the dataset's own format).

Every count is a way into the items it counts: "Released", "Withheld" and each
reason (click, or Enter on the focused entry) emit ``show_items`` with a label
and the item ids; the main window narrows its item table to exactly those.

Counting (``release.gold_status``) and exporting run as jobs on the
workspace's job runner when one is given, else synchronously.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog, QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QMessageBox, QPushButton, QVBoxLayout, QWidget,
)

from reviewer.jobs import silent
from reviewer.review import release
from reviewer.review.release import reason_group  # the same grouping as the CLI's
from reviewer_ui.review.widgets import rich_label


@dataclass
class ReleaseGroups:
    """Which items are released, which withheld, and the withheld ones by reason group
    (ids in dataset order; an item may be under several reasons)."""

    released: list[int] = field(default_factory=list)
    withheld: list[int] = field(default_factory=list)
    by_reason: dict[str, list[int]] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return len(self.released) + len(self.withheld)

    def reasons(self) -> Counter:
        return Counter({reason: len(ids) for reason, ids in self.by_reason.items()})


def release_groups(ctx, store, dataset_id: int) -> ReleaseGroups:
    """Job body: the dataset's items grouped as the release rule sees them."""
    groups = ReleaseGroups()
    for s in release.gold_status(store, dataset_id):
        (groups.released if s.released else groups.withheld).append(s.item_id)
        for reason in dict.fromkeys(reason_group(r) for r in s.reasons):
            groups.by_reason.setdefault(reason, []).append(s.item_id)
    return groups


def count_release(ctx, store, dataset_id: int) -> tuple[int, int, Counter]:
    """(released, total, Counter of reasons for the rest)."""
    groups = release_groups(ctx, store, dataset_id)
    return len(groups.released), groups.total, groups.reasons()


def export_jsonl(ctx, store, dataset_id: int, path: Path) -> str:
    n = release.export_gold_jsonl(store, dataset_id, path)
    return f"Exported {n} Gold item(s) with provenance to {path}"


def export_source(ctx, store, dataset_id: int, out: Path) -> str:
    paths = release.export_gold_source(store, dataset_id, out, ctx or silent())
    return f"Exported the Gold items in the dataset's format: {', '.join(str(p) for p in paths)}"


class ReleasePanel(QWidget):
    counted = Signal()
    exported = Signal(str)  # the message shown
    show_items = Signal(str, list)  # (what they are, e.g. "withheld (rejected)"; their item ids)

    def __init__(self, session, runner=None, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.runner = runner
        self.dataset_id: int | None = None
        self.released = self.total = 0
        self.reasons: Counter = Counter()
        self.groups = ReleaseGroups()

        title = QLabel("Gold release")
        title.setObjectName("heading")
        self.summary = rich_label()
        self.summary.setText("No dataset chosen.")
        # The counts are buttons: each lists exactly its items in the item table.
        self.released_button = QPushButton("Released: 0")
        self.withheld_button = QPushButton("Withheld: 0")
        for button, which in ((self.released_button, "released"), (self.withheld_button, "withheld")):
            button.setObjectName("countLink")
            button.setToolTip(f"List the {which} items in the item table")
            button.setEnabled(False)
        self.released_button.clicked.connect(lambda: self._show("released as Gold", self.groups.released))
        self.withheld_button.clicked.connect(lambda: self._show("withheld from Gold", self.groups.withheld))
        self.reason_list = QListWidget()
        self.reason_list.setToolTip("Click a reason (or press Enter on it) to list its items in the item table")
        self.reason_list.itemClicked.connect(self._show_reason)
        self.reason_list.itemActivated.connect(self._show_reason)
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
        counts = QHBoxLayout()
        counts.addWidget(self.released_button)
        counts.addWidget(self.withheld_button)
        counts.addStretch(1)
        layout.addLayout(counts)
        reasons_title = QLabel("Why the other items are not Gold (an item may have several reasons; "
                               "click one to list its items)")
        reasons_title.setObjectName("sectionTitle")
        reasons_title.setWordWrap(True)
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
        self._run("review-release", release_groups, self.session.store, self.dataset_id, on_result=self._counted)

    def _counted(self, groups: ReleaseGroups) -> None:
        self.groups = groups
        self.released, self.total, self.reasons = len(groups.released), groups.total, groups.reasons()
        self.summary.setText(f"<b>{self.released}</b> of {self.total} items are released as Gold "
                             "(settled Pass or Fix, automatic checks pass, ambiguity Low or Medium).")
        self.released_button.setText(f"Released: {self.released}")
        self.withheld_button.setText(f"Withheld: {len(groups.withheld):,}")
        self.released_button.setEnabled(bool(groups.released))
        self.withheld_button.setEnabled(bool(groups.withheld))
        self.reason_list.clear()
        for reason, n in self.reasons.most_common():
            entry = QListWidgetItem(f"{n:>6}  {reason}", self.reason_list)
            entry.setData(Qt.ItemDataRole.UserRole, reason)
        self.status.setText("")
        self.counted.emit()

    def _show_reason(self, entry: QListWidgetItem) -> None:
        reason = entry.data(Qt.ItemDataRole.UserRole)
        self._show(f"withheld ({reason})", self.groups.by_reason.get(reason, []))

    def _show(self, label: str, ids: list[int]) -> None:
        self.show_items.emit(label, list(ids))

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
