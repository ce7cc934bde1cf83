"""Results of scored runs: run x category table, a bar chart and the scorer's own summary.

Fed ``RunScores`` (reviewer.scoring.job) keyed by (run id, mode); shows one
mode at a time. The table and chart show what ``reviewer score`` prints; the
tree shows the scorer's ``summary`` dict (the benchmark's official aggregate)
for the run picked above it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from reviewer.scoring.base import MODES
from reviewer.scoring.job import RunScores
from reviewer_ui.runs.chart import BarChart
from reviewer_ui.runs.tables import SortItem, fill, fmt, make_table

ALL = "(all)"
METRICS = {"pass rate": "pass_rate", "mean score": "mean"}


def category_order(categories) -> list[str]:
    """"(all)" first, then the categories alphabetically."""
    return sorted(set(categories), key=lambda c: (c != ALL, c))


class ResultsView(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.runs: list = []  # RunInfo, in the dataset's order
        self.scores: dict[tuple[int, str], RunScores] = {}
        self.mode_box = QComboBox()
        self.mode_box.addItems(list(MODES))
        self.metric_box = QComboBox()
        self.metric_box.addItems(list(METRICS))
        self.summary_run = QComboBox()
        self.table = make_table(["Run", "Category", "n", "Mean score", "Pass rate"], stretch=1, sortable=True)
        self.chart = BarChart()
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Summary", "Value"])
        self.tree.setAlternatingRowColors(True)
        self.tree.setColumnWidth(0, 260)

        controls = QHBoxLayout()
        controls.addWidget(QLabel("Mode"))
        controls.addWidget(self.mode_box)
        controls.addSpacing(12)
        controls.addWidget(QLabel("Chart"))
        controls.addWidget(self.metric_box)
        controls.addStretch(1)
        summary = QWidget()
        col = QVBoxLayout(summary)
        col.setContentsMargins(0, 0, 0, 0)
        pick = QHBoxLayout()
        pick.addWidget(QLabel("Scorer's summary of"))
        pick.addWidget(self.summary_run, 1)
        col.addLayout(pick)
        col.addWidget(self.tree, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("runsResultsSplitter")
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(self.chart)
        self.splitter.addWidget(summary)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setStretchFactor(2, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(controls)
        layout.addWidget(self.splitter, 1)

        self.mode_box.currentIndexChanged.connect(self.refresh)
        self.metric_box.currentIndexChanged.connect(self._draw_chart)
        self.summary_run.currentIndexChanged.connect(self._show_summary)

    def mode(self) -> str:
        return self.mode_box.currentText()

    def set_mode(self, mode: str) -> None:
        self.mode_box.setCurrentText(mode)

    def set_data(self, runs: list, scores: dict[tuple[int, str], RunScores]) -> None:
        self.runs, self.scores = list(runs), dict(scores)
        self.refresh()

    def add(self, results: list[RunScores]) -> None:
        """New scores replace the stored ones of the same run and mode."""
        for r in results:
            self.scores[(r.run_id, r.mode)] = r
        self.refresh()

    def shown(self) -> list[RunScores]:
        """The scored runs of the current mode, in the dataset's run order."""
        mode = self.mode()
        return [self.scores[(r.id, mode)] for r in self.runs if (r.id, mode) in self.scores]

    def refresh(self) -> None:
        rows = []
        for rs in self.shown():
            for category in category_order(rs.by_category):
                cell = rs.by_category[category]
                rows.append([SortItem(rs.run, rs.run), SortItem(category, category), SortItem(str(cell["n"]), cell["n"]),
                             SortItem(fmt(cell["mean"]), cell["mean"]),
                             SortItem(fmt(cell["pass_rate"], percent=True), cell["pass_rate"])])
        fill(self.table, rows)
        self._draw_chart()
        current = self.summary_run.currentText()
        self.summary_run.blockSignals(True)
        self.summary_run.clear()
        for rs in self.shown():
            self.summary_run.addItem(rs.run, rs.run_id)
        index = self.summary_run.findText(current)
        self.summary_run.setCurrentIndex(max(index, 0))
        self.summary_run.blockSignals(False)
        self._show_summary()

    def _draw_chart(self) -> None:
        label = self.metric_box.currentText()
        key = METRICS[label]
        shown = self.shown()
        groups = category_order(c for rs in shown for c in rs.by_category)
        values = {(c, rs.run): rs.by_category[c][key] for rs in shown for c in rs.by_category}
        self.chart.set_data(f"{label.capitalize()} by category ({self.mode()} scoring)", groups,
                            [rs.run for rs in shown], values)

    def _show_summary(self) -> None:
        self.tree.clear()
        run_id = self.summary_run.currentData()
        rs = self.scores.get((run_id, self.mode()))
        if rs is None:
            return
        root = QTreeWidgetItem([f"{rs.scorer} ({rs.mode}), {rs.scored} outputs", ""])
        self.tree.addTopLevelItem(root)
        _add_tree(root, rs.summary)
        root.setExpanded(True)
        for i in range(root.childCount()):
            root.child(i).setExpanded(True)


def _add_tree(parent: QTreeWidgetItem, value) -> None:
    """Nested dicts and lists as tree rows; numbers rounded for reading."""
    entries = value.items() if isinstance(value, dict) else enumerate(value)
    for key, child in entries:
        if isinstance(child, (dict, list)) and child:
            node = QTreeWidgetItem([str(key), ""])
            parent.addChild(node)
            _add_tree(node, child)
        else:
            parent.addChild(QTreeWidgetItem([str(key), _scalar(child)]))


def _scalar(value) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (dict, list)):
        return "(empty)"
    return str(value)
