"""The agreement panel: the curation report of the store's annotations, live.

Scope (the current dataset or all), bootstrap resamples and seed choose what
is computed; the computation runs on the JobRunner under one key, so a new
request cancels the one still running. ``schedule_refresh`` (wired to
annotation saves and adjudications) recomputes once the edits pause for
``REFRESH_DELAY_MS``. A hidden panel only remembers that it is stale and
recomputes when shown, so reviewing never pays for a panel nobody looks at.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from reviewer.agreement.render import RENDERERS, write_report
from reviewer.agreement.report import Report
from reviewer.agreement.table import variable_label
from reviewer_ui import theme
from reviewer_ui.agreement.figures import (
    OVERALL,
    Cell,
    breakdowns,
    coefficient_chart,
    coefficient_table,
    main_variables,
    warning_html,
)
from reviewer_ui.agreement.job import AgreementResult, compute_agreement
from reviewer_ui.agreement.svg_chart import SvgChart

REFRESH_DELAY_MS = 1500
WARNINGS_MAX_HEIGHT = 240
FOREST_OVERFLOW = 160  # room for "undefined: <three coefficient names>" right of a forest plot
JOB_KEY = "agreement"
EXPORT_FILTERS = {
    "HTML with charts (*.html)": ".html",
    "Markdown (*.md)": ".md",
    "CSV, one row per figure (*.csv)": ".csv",
    "JSON (*.json)": ".json",
    "Plain text (*.txt)": ".txt",
}
SCOPE_CURRENT, SCOPE_ALL = "current", "all"


def _export(ctx, report: Report, path: str) -> Path:
    return write_report(report, path)


class ChartList(QScrollArea):
    """A vertical list of SVG charts and rich-text notes, scrolled as one page."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.page = QWidget()
        self.column = QVBoxLayout(self.page)
        self.column.setContentsMargins(8, 8, 8, 8)
        self.setWidget(self.page)
        self.charts: list[SvgChart] = []

    def clear(self) -> None:
        while self.column.count():
            item = self.column.takeAt(0)
            widget = item.widget()
            if widget is not None:  # hidden now: deleteLater waits for the event loop
                widget.hide()
                widget.setParent(None)
                widget.deleteLater()
        self.charts = []

    def add_chart(self, svg: str, overflow_right: int = 0) -> SvgChart:
        chart = SvgChart(svg, overflow_right=overflow_right)
        self.charts.append(chart)
        self.column.addWidget(chart)
        return chart

    def add_text(self, html: str) -> QLabel:
        label = QLabel(html)
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.column.addWidget(label)
        return label

    def finish(self) -> None:
        self.column.addStretch(1)


class AgreementPanel(QWidget):
    """Agreement statistics of the review, computed in the background.

    ``navigate(item_id)`` asks the host to show a store item (a clicked
    disagreement); ``updated(AgreementResult)`` follows each shown result,
    ``failed(message)`` a failed computation, ``exported(Path)`` a written report.
    """

    navigate = Signal(int)
    updated = Signal(object)
    failed = Signal(str)
    exported = Signal(object)

    def __init__(self, store, runner, current_dataset: Callable[[], object] | None = None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.store, self.runner = store, runner
        self.current_dataset = current_dataset or (lambda: None)
        self.result: AgreementResult | None = None
        self.stale = True
        self.timer = QTimer(self, singleShot=True, interval=REFRESH_DELAY_MS)
        self.timer.timeout.connect(self.refresh)

        # -- controls ------------------------------------------------------------------
        self.scope_box = QComboBox()
        self.scope_box.addItem("Current dataset", SCOPE_CURRENT)
        self.scope_box.addItem("All datasets", SCOPE_ALL)
        self.resamples = QSpinBox(minimum=0, maximum=100_000, value=1000, singleStep=500)
        self.resamples.setToolTip("Bootstrap resamples of the items for the 95% intervals (0: no intervals)")
        self.seed = QSpinBox(minimum=0, maximum=2**31 - 1, value=0)
        self.seed.setToolTip("Seed of the bootstrap: the same seed gives the same intervals")
        self.recompute_button = QPushButton("Recompute")
        self.export_button = QPushButton("Export report…")
        self.export_button.setEnabled(False)
        for box in (self.scope_box,):
            box.currentIndexChanged.connect(self.refresh)
        for spin in (self.resamples, self.seed):
            spin.editingFinished.connect(self._on_parameters)
        self.recompute_button.clicked.connect(self.refresh)
        self.export_button.clicked.connect(self.export_dialog)
        bar = QHBoxLayout()
        for label, widget in (("Scope", self.scope_box), ("Resamples", self.resamples)):
            bar.addWidget(QLabel(label))
            bar.addWidget(widget)
        bar.addStretch(1)
        # The buttons get a row of their own: the panel lives in a dock beside the item.
        buttons = QHBoxLayout()
        buttons.addWidget(QLabel("Seed"))
        buttons.addWidget(self.seed)
        buttons.addStretch(1)
        buttons.addWidget(self.recompute_button)
        buttons.addWidget(self.export_button)

        self.status = QLabel("")
        self.status.setObjectName("muted")
        self.status.setWordWrap(True)
        self.warnings = QLabel("")
        self.warnings.setObjectName("agreementWarnings")
        self.warnings.setWordWrap(True)
        self.warnings.setTextFormat(Qt.TextFormat.RichText)
        self.warnings.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.warnings.linkActivated.connect(self._toggle_warnings)
        self.warnings_expanded = False
        # The expanded list of warnings may be long: it scrolls instead of squeezing the tabs.
        self.warnings_area = QScrollArea()
        self.warnings_area.setWidgetResizable(True)
        self.warnings_area.setFrameShape(QScrollArea.Shape.NoFrame)
        self.warnings_area.setMaximumHeight(WARNINGS_MAX_HEIGHT)
        self.warnings_area.setWidget(self.warnings)
        self.warnings_area.setVisible(False)
        self.notes = QLabel("")
        self.notes.setObjectName("muted")
        self.notes.setWordWrap(True)

        # -- coefficients ----------------------------------------------------------------
        self.breakdown_box = QComboBox()
        self.variable_box = QComboBox()
        for box in (self.breakdown_box, self.variable_box):
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(10)
        self.breakdown_box.currentIndexChanged.connect(self._show_coefficients)
        self.variable_box.currentIndexChanged.connect(self._show_coefficients)
        self.coef_table = QTableWidget()
        self.coef_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.coef_table.verticalHeader().setVisible(False)
        self.coef_table.setWordWrap(False)
        self.coef_chart = ChartList()
        choose = QHBoxLayout()
        choose.addWidget(QLabel("Breakdown"))
        choose.addWidget(self.breakdown_box)
        self.variable_label = QLabel("Variable")
        choose.addWidget(self.variable_label)
        choose.addWidget(self.variable_box)
        choose.addStretch(1)
        top = QWidget()
        top_col = QVBoxLayout(top)
        top_col.setContentsMargins(0, 0, 0, 0)
        top_col.addLayout(choose)
        top_col.addWidget(self.coef_table)
        split = QSplitter(Qt.Orientation.Vertical)
        split.setObjectName("agreementCoefficientsSplitter")
        split.addWidget(top)
        split.addWidget(self.coef_chart)
        split.setSizes([330, 420])  # a table of ~9 variables, and the chart under it

        # -- other tabs ------------------------------------------------------------------
        self.verdict_page = ChartList()
        self.ambiguity_page = ChartList()
        self.tags_page = ChartList()
        self.fixes_text = QTextBrowser()
        self.disagreement_table = QTableWidget(0, 4)
        self.disagreement_table.setHorizontalHeaderLabels(["item", "differs in", "verdicts", "differences"])
        self.disagreement_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.disagreement_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.disagreement_table.verticalHeader().setVisible(False)
        self.disagreement_table.horizontalHeader().setStretchLastSection(True)
        self.disagreement_table.setWordWrap(False)  # one line per item; the full text is the tooltip
        self.disagreement_table.cellClicked.connect(self._on_disagreement)
        self.disagreement_table.cellActivated.connect(self._on_disagreement)
        disagreements = QWidget()
        dcol = QVBoxLayout(disagreements)
        dcol.setContentsMargins(0, 4, 0, 0)
        hint = QLabel("Items whose first submissions differ: verdict disagreements first, then rubric, then "
                      "fixes whose gold differs (with the paths). Click one to open it.")
        hint.setObjectName("muted")
        hint.setWordWrap(True)
        dcol.addWidget(hint)
        dcol.addWidget(self.disagreement_table)

        self.tabs = QTabWidget()
        # Short titles (the full name in each tab's tooltip): at 1366x768 the dock is ~470 px
        # and six long titles scrolled. No scroll arrows: every title reads whole.
        self.tabs.setUsesScrollButtons(False)
        self.tabs.setElideMode(Qt.TextElideMode.ElideNone)
        for page, title, tip in ((split, "Coefficients", "Agreement coefficients per rubric field"),
                                 (self.verdict_page, "Verdicts", "Verdicts: annotator A against annotator B"),
                                 (self.ambiguity_page, "Levels", "Ambiguity and difficulty levels"),
                                 (self.tags_page, "Tags", "Error tags"),
                                 (self.fixes_text, "Fixes", "Fixes to the gold"),
                                 (disagreements, "Disputes", "Items with the most disagreement")):
            self.tabs.setTabToolTip(self.tabs.addTab(page, title), tip)

        col = QVBoxLayout(self)
        col.setContentsMargins(6, 6, 6, 6)
        col.addLayout(bar)
        col.addLayout(buttons)
        col.addWidget(self.status)
        col.addWidget(self.warnings_area)
        col.addWidget(self.notes)
        col.addWidget(self.tabs, 1)
        self._style_warnings()
        theme.state().changed.connect(self._style_warnings)

    # -- computing ---------------------------------------------------------------------

    def scope(self) -> str:
        return self.scope_box.currentData()

    def set_scope(self, scope: str) -> None:
        self.scope_box.setCurrentIndex(self.scope_box.findData(scope))

    def schedule_refresh(self, *_args) -> None:
        """Recompute once the edits pause (each call restarts the wait)."""
        self.stale = True
        self.timer.start()

    def on_dataset_changed(self, *_args) -> None:
        """The host's current dataset changed: only the current-dataset scope cares."""
        if self.scope() == SCOPE_CURRENT:
            self.schedule_refresh()

    def refresh(self, *_args) -> None:
        """Recompute now (cancelling a computation still running); deferred while hidden."""
        self.timer.stop()
        self.stale = True
        if not self.isVisible():
            return
        if self.scope() == SCOPE_CURRENT:
            ds = self.current_dataset()
            if ds is None:
                self.status.setText("No dataset is open.")
                return
            ids = [ds.id]
        else:
            ids = None
        self.stale = False
        self.status.setText("Computing agreement…")
        self.runner.start(JOB_KEY, compute_agreement, self.store, ids, self.resamples.value(), self.seed.value(),
                          on_result=self.show_result, on_error=self._on_error, on_progress=self._on_progress)

    def _on_parameters(self) -> None:
        report = self.result.report if self.result else None
        if report is None or (report.n_resamples, report.seed) != (self.resamples.value(), self.seed.value()):
            self.refresh()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self.stale:
            QTimer.singleShot(0, self, self.refresh)

    def _on_progress(self, p) -> None:
        if p.message:
            self.status.setText(f"Computing agreement: {p.message}…")

    def _on_error(self, exc: BaseException, _trace: str) -> None:
        message = f"The agreement could not be computed: {exc}"
        self.status.setText(f"<span style='color:{theme.colors()['bad'].name()}'>{message}</span>")
        self.failed.emit(message)

    # -- showing -----------------------------------------------------------------------

    def show_result(self, result: AgreementResult) -> None:
        self.result = result
        report = result.report
        self.export_button.setEnabled(report is not None)
        if report is None:
            self.status.setText(f"No annotations yet in {result.scope}.")
            self.warnings_area.setVisible(False)
            self.notes.setText("")
            for page in (self.verdict_page, self.ambiguity_page, self.tags_page):
                page.clear()
            self.coef_table.setRowCount(0)
            self.coef_chart.clear()
            self.fixes_text.clear()
            self.disagreement_table.setRowCount(0)
            self.updated.emit(result)
            return
        self.status.setText(
            f"{result.scope}: {report.n_items:,} items, {report.n_ratings:,} ratings by "
            f"{len(report.annotators)} annotator{'s' if len(report.annotators) != 1 else ''} "
            f"({', '.join(report.annotators)})."
        )
        self.warnings_expanded = False
        self._show_warnings()
        self.notes.setText(" ".join(report.notes))
        self._fill_breakdowns(report)
        self._show_coefficients()
        self._fill_charts(result)
        self.fixes_text.setHtml(result.texts.get("fixes", ""))
        self._fill_disagreements(report)
        self.updated.emit(result)

    def _show_warnings(self, *_args) -> None:
        report = self.result.report if self.result else None
        warnings = report.warnings if report else []
        self.warnings.setText(warning_html(warnings, self.warnings_expanded))
        self.warnings_area.setVisible(bool(warnings))
        self._fit_warnings()

    def _fit_warnings(self) -> None:
        """As tall as the warnings (up to WARNINGS_MAX_HEIGHT, then they scroll)."""
        width = self.warnings_area.viewport().width() or self.width()
        self.warnings_area.setFixedHeight(min(WARNINGS_MAX_HEIGHT, self.warnings.heightForWidth(width) + 2))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.warnings_area.isVisible():
            self._fit_warnings()

    def _toggle_warnings(self, *_args) -> None:
        self.warnings_expanded = not self.warnings_expanded
        self._show_warnings()

    def _fill_breakdowns(self, report: Report) -> None:
        keep_b, keep_v = self.breakdown_box.currentData(), self.variable_box.currentData()
        for box, entries, keep in (
            (self.breakdown_box, breakdowns(report), keep_b),
            (self.variable_box, [(v, variable_label(v)) for v in main_variables(report)], keep_v or "verdict"),
        ):
            box.blockSignals(True)
            box.clear()
            for key, label in entries:
                box.addItem(label, key)
            box.setCurrentIndex(max(0, box.findData(keep)))
            box.blockSignals(False)

    def _show_coefficients(self, *_args) -> None:
        report = self.result.report if self.result else None
        if report is None:
            return
        breakdown = self.breakdown_box.currentData() or OVERALL
        variable = self.variable_box.currentData() or "verdict"
        self.variable_box.setVisible(breakdown != OVERALL)
        self.variable_label.setVisible(breakdown != OVERALL)
        headers, rows = coefficient_table(report, breakdown, variable)
        table = self.coef_table
        table.clear()
        table.setColumnCount(len(headers))
        table.setRowCount(len(rows))
        table.setHorizontalHeaderLabels(headers)
        for r, row in enumerate(rows):
            for c, cell in enumerate(row):
                table.setItem(r, c, self._cell_item(cell, numeric=c > 0))
        table.resizeColumnsToContents()
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.coef_chart.clear()
        self.coef_chart.add_chart(coefficient_chart(report, breakdown, variable), FOREST_OVERFLOW)
        self.coef_chart.finish()

    def _cell_item(self, cell: Cell, numeric: bool) -> QTableWidgetItem:
        item = QTableWidgetItem(cell.text)
        if cell.tooltip:
            item.setToolTip(cell.tooltip)
        if numeric:
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if cell.undefined:
            item.setForeground(QColor(theme.colors()["unk"]))
            font = QFont(item.font())
            font.setItalic(True)
            item.setFont(font)
        return item

    def _fill_charts(self, result: AgreementResult) -> None:
        charts = result.charts
        page = self.verdict_page
        page.clear()
        for svg in charts.get("verdicts", []):
            page.add_chart(svg)
        for svg in charts.get("pairs", [])[1:]:  # [0] is the pairs' forest plot, on the first tab
            page.add_chart(svg)
        page.finish()
        page = self.ambiguity_page
        page.clear()
        for svg in charts.get("ambiguity", []):
            page.add_chart(svg)
        page.add_text(result.texts.get("difficulty", ""))
        page.finish()
        page = self.tags_page
        page.clear()
        page.add_text(result.texts.get("tags", ""))
        for svg in charts.get("tags", []):
            page.add_chart(svg, FOREST_OVERFLOW)
        page.finish()

    def _fill_disagreements(self, report: Report) -> None:
        """One row per item whose first submissions differ, verdict disagreements first, then
        rubric, then fix content (with the JSON paths where the two fixes differ)."""
        table = self.disagreement_table
        found = self.result.disputes if self.result is not None else []
        table.setRowCount(len(found))
        for r, d in enumerate(found):
            a, b = d.annotators
            verdicts = f"{a}={d.verdicts[0]}, {b}={d.verdicts[1]}"
            details = "; ".join(d.reasons)
            if d.fix_paths:
                details += " at " + ", ".join(p or "/ (the whole gold)" for p in d.fix_paths)
            cells = [d.key, d.kind, verdicts, details]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                table.setItem(r, c, item)
        for c in range(3):
            table.resizeColumnToContents(c)

    def _on_disagreement(self, row: int, _column: int) -> None:
        item = self.disagreement_table.item(row, 0)
        if item is None or self.result is None:
            return
        store_id = self.result.item_ids.get(item.text())
        if store_id is not None:
            self.navigate.emit(store_id)

    def _style_warnings(self, *_args) -> None:
        c = theme.colors()
        self.warnings.setStyleSheet(
            f"QLabel#agreementWarnings {{ background: {c['changed'].name()}; color: {c['text'].name()}; "
            f"border: 1px solid {c['unk'].name()}; border-radius: 4px; padding: 6px; }}"
        )

    # -- export ------------------------------------------------------------------------

    def export_dialog(self) -> None:
        if self.result is None or self.result.report is None:
            return
        path, chosen = QFileDialog.getSaveFileName(self, "Export agreement report", "agreement-report.html",
                                                   ";;".join(EXPORT_FILTERS))
        if not path:
            return
        if Path(path).suffix.lower() not in RENDERERS:
            path += EXPORT_FILTERS.get(chosen, ".html")
        self.export(path)

    def export(self, path: str | Path) -> None:
        """Write the shown report to ``path`` (format from the suffix) in the background."""
        if self.result is None or self.result.report is None:
            raise RuntimeError("no report to export yet")
        self.status.setText(f"Writing {path}…")
        self.runner.start(JOB_KEY + "-export", _export, self.result.report, str(path),
                          on_result=self._on_exported, on_error=self._on_error)

    def _on_exported(self, path: Path) -> None:
        self.status.setText(f"Wrote {path}")
        self.exported.emit(path)
