"""The frame every item layout shares: the kind's own panes on the left, and on
the right tabs with the selected run's output and the gold-vs-output diff.

Subclasses implement ``build_left`` / ``fill_left`` and may add tabs before
the shared ones (``extra_tabs`` / ``fill_tabs``). The diff is computed only
while its tab is visible, on the job runner (key ``diff:<kind>``).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSplitter, QTabWidget, QVBoxLayout, QWidget

from reviewer.jsondiff.listlike import read_pair
from reviewer_ui.itemprep import ItemBundle, PreparedOutput
from reviewer_ui.textdoc import value_document
from reviewer_ui.views.diff_view import DiffView
from reviewer_ui.views.panes import OutputsPane, TextPane, section
from reviewer_ui.widgets.line_view import LineView


READ_AS_LIST_TIP = ("The answer is stored as text. For this comparison only it is read as a list, so the "
                    "diff shows which elements are missing or extra; scoring compares the text as the "
                    "benchmark does.")


class KindLayout(QWidget):
    kind = ""
    has_gold_diff = True
    material_left = True  # whether the material under review is on the left (else in the right-hand tabs)

    def __init__(self, runner, parent=None):
        super().__init__(parent)
        self.runner = runner
        self.bundle: ItemBundle | None = None
        self._diff_for: tuple | None = None
        self.outputs = OutputsPane()
        self.diff = DiffView(runner, key=f"diff:{self.kind or 'item'}")
        self.tabs = QTabWidget()
        # Every tab title reads whole: no scroll arrows, no "Gold vs o…". The tab bar's full
        # width becomes the pane's minimum, which the layout splitter respects.
        self.tabs.setUsesScrollButtons(False)
        self.tabs.setElideMode(Qt.TextElideMode.ElideNone)
        for widget, title in self.extra_tabs():
            self.tabs.addTab(widget, title)
        self.tabs.addTab(self.outputs, "Output")
        if self.has_gold_diff:
            self.tabs.addTab(self.diff, "Gold vs output")
        self.tabs.currentChanged.connect(self._maybe_diff)
        self.outputs.output_changed.connect(self._on_output)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName(f"layoutSplitter_{self.kind or 'generic'}")
        self.splitter.addWidget(self.build_left())
        self.splitter.addWidget(self.tabs)
        # The material under review (response, source, APIs, chain) gets the larger share;
        # the sizes the user drags to are kept per kind (splitters/layoutSplitter_<kind>).
        big, small = (0, 1) if self.material_left else (1, 0)
        self.splitter.setStretchFactor(big, 3)
        self.splitter.setStretchFactor(small, 2)
        self.splitter.setSizes([600, 400] if self.material_left else [400, 600])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)

    # -- for subclasses -------------------------------------------------------------

    def build_left(self) -> QWidget:
        raise NotImplementedError

    def fill_left(self, bundle: ItemBundle) -> None:
        raise NotImplementedError

    def extra_tabs(self) -> list[tuple[QWidget, str]]:
        return []

    def fill_tabs(self, bundle: ItemBundle, run_id: int | None) -> None:
        """Refresh the extra tabs (also called when the selected run changes)."""

    # -- shared -----------------------------------------------------------------------

    def show_item(self, bundle: ItemBundle, run_id: int | None) -> None:
        self.bundle = bundle
        self._diff_for = None
        self.fill_left(bundle)
        self.outputs.set_outputs(bundle.outputs, run_id)
        self.fill_tabs(bundle, run_id)
        self._maybe_diff()

    def select_run(self, run_id: int | None) -> None:
        if self.bundle is not None:
            self.outputs.select_run(run_id)
            self.fill_tabs(self.bundle, run_id)

    def _on_output(self, _p: PreparedOutput | None) -> None:
        self._maybe_diff()

    def _maybe_diff(self, *_args) -> None:
        if not self.has_gold_diff or self.bundle is None or self.tabs.currentWidget() is not self.diff:
            return
        p = self.outputs.current()
        key = (self.bundle.detail.id, self.bundle.detail.version, p.output.id if p else None)
        if key == self._diff_for:
            return
        self._diff_for = key
        if p is None:
            self.diff.clear("no output to compare with the gold")
            return
        title = f"Output of {p.label}" + ("" if p.value_ok else " (no JSON found: raw text)")
        # List answers stored as text ("a, b", "['a', 'b']") are compared element by element
        # here (display only: scoring reads them as the benchmark does); the titles say so.
        pair = read_pair(self.bundle.detail.gold, p.value)
        gold_title = "Gold" + (f" ({pair.left_note})" if pair.left_note else "")
        if pair.right_note:
            title += f" ({pair.right_note})"
        tip = READ_AS_LIST_TIP if pair.read else ""
        self.diff.title_left.setToolTip(tip)
        self.diff.title_right.setToolTip(tip)
        self.diff.compare(pair.left, pair.right, gold_title, title)


class GenericLayout(KindLayout):
    """For kinds without a layout of their own: question and gold."""

    def build_left(self) -> QWidget:
        self.question = TextPane()
        self.gold = LineView()
        box = QSplitter(Qt.Orientation.Vertical)
        box.addWidget(section("Question", self.question))
        box.addWidget(section("Gold", self.gold))
        return box

    def fill_left(self, bundle: ItemBundle) -> None:
        self.question.set_text(bundle.detail.question)
        self.gold.set_document(value_document(bundle.detail.gold))
