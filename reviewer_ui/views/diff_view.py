"""Side-by-side JSON diff: two aligned LineViews, a change list, navigation.

The diff itself is computed on a worker (ui.diffdoc.build_diff through the
job runner, key ``diff:<owner>``); this widget only shows a DiffResult. A big
diff shows its first rows as soon as they are laid out (``first_screen``), then
the whole (``ready``) where the user is looking.
Navigation: F8 / Shift+F8 (or the arrow buttons) go to the next / previous
change; "Differences only" folds long runs of equal lines.
Arrangement ("Auto", "Side by side", "Stacked"): Auto puts the panes side by side
while each shows its lines whole up to READABLE_COLUMNS characters (``wanted_columns``),
else gold above output, so a narrow window (1366x768) stacks rather than cutting every
line at ~20 characters, while a short answer ("0" vs "1") stays side by side.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, QTimer, Signal
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from reviewer.jsondiff import count_by_kind, render_path
from reviewer_ui.diffdoc import DiffResult, build_diff
from reviewer_ui.shortcuts import panel_key
from reviewer_ui.widgets.line_view import LineView

MAX_LISTED = 5000  # a change list longer than this is cut (the panes still show every change)
# A replaced result is dropped this long after the new one is shown, on the GUI thread:
# freeing a 5 MB diff's layout takes 10-20 ms, which should not add to the new diff's first paint.
DROP_AFTER_MS = 200
READABLE_COLUMNS = 60  # characters a pane must show per line before Auto puts the panes side by side
ARRANGEMENTS = ("Auto", "Side by side", "Stacked")


def visible_columns(view: LineView) -> int:
    """How many characters of a line ``view`` shows beside its gutter."""
    cw = max(1.0, QFontMetricsF(view.font()).horizontalAdvance("0" * 100) / 100)
    gutter = getattr(view, "_gw", 0)
    return max(0, int((view.viewport().width() - gutter) / cw))


def columns_width(view: LineView, columns: int) -> int:
    """The width (px) ``view`` needs to show ``columns`` characters beside its gutter and scroll bar."""
    cw = QFontMetricsF(view.font()).horizontalAdvance("0" * 100) / 100
    chrome = view.width() - view.viewport().width() if view.width() > 0 else 0
    chrome = max(chrome, view.verticalScrollBar().sizeHint().width() + 2 * view.frameWidth())
    return int((columns + 1) * cw + getattr(view, "_gw", 0) + chrome + 2)  # +1: the gutter may grow a digit


class DiffView(QWidget):
    """Shows gold (left) against another value (right)."""

    current_changed = Signal(int)  # index of the current change, -1 for none
    ready = Signal()  # a (whole) diff result is shown
    first_screen = Signal()  # the first rows of a big diff are shown, the rest is coming
    _partial_ready = Signal(int, object)  # from the worker: (compare number, partial result)

    def __init__(self, runner, key: str = "diff", parent=None):
        super().__init__(parent)
        self.runner = runner
        self.key = key
        self.result: DiffResult | None = None
        self._rows: list[int | None] | None = None  # view row -> aligned row in "differences only"
        self._current = -1
        self._compares = 0  # numbers each compare, so a stale partial result is ignored
        self._replaced: list[DiffResult] = []  # results just replaced, dropped DROP_AFTER_MS later
        self._awaiting_paint = None  # the ``shown`` event of a partial result not painted yet
        self._partial_ready.connect(self._on_partial, Qt.ConnectionType.QueuedConnection)

        self.title_left = QLabel("Gold")
        self.title_right = QLabel("Output")
        for label in (self.title_left, self.title_right):
            label.setObjectName("sectionTitle")
        self.summary = QLabel("")
        self.summary.setObjectName("muted")
        self.path = QLabel("")  # JSON path of the clicked line
        self.path.setObjectName("muted")
        self.path.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # Long summaries, paths and run names wrap rather than widen the window.
        for label in (self.title_left, self.title_right, self.summary, self.path):
            label.setWordWrap(True)
        self.only_diffs = QCheckBox("Differences only")
        self.only_diffs.toggled.connect(self._show_docs)
        self.prev_button = QToolButton(text="▲", toolTip="Previous change (Shift+F8)")
        self.next_button = QToolButton(text="▼", toolTip="Next change (F8)")
        self.arrangement = QComboBox()
        self.arrangement.addItems(ARRANGEMENTS)
        # Narrow in the bar (the open list shows the names whole): it must not widen the tab's minimum.
        self.arrangement.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.arrangement.setMinimumContentsLength(4)
        self.arrangement.setToolTip("Gold and output side by side, or gold above output. Auto stacks them "
                                    f"when side by side a pane would show fewer than {READABLE_COLUMNS} "
                                    "characters per line")
        self.arrangement.currentIndexChanged.connect(self._arrange)
        self.prev_button.clicked.connect(self.previous_change)
        self.next_button.clicked.connect(self.next_change)

        self.left = LineView()
        self.right = LineView()
        self.left.verticalScrollBar().valueChanged.connect(self.right.verticalScrollBar().setValue)
        self.right.verticalScrollBar().valueChanged.connect(self.left.verticalScrollBar().setValue)
        self.left.horizontalScrollBar().valueChanged.connect(self.right.horizontalScrollBar().setValue)
        self.right.horizontalScrollBar().valueChanged.connect(self.left.horizontalScrollBar().setValue)

        self.right.painted.connect(self._tell_painted)
        self.left.line_clicked.connect(lambda row: self._show_path(row, "left"))
        self.right.line_clicked.connect(lambda row: self._show_path(row, "right"))

        self.changes = QListWidget()
        self.changes.setUniformItemSizes(True)
        self.changes.currentRowChanged.connect(self.go_to_change)

        # The summary reads on its own line (beside the controls it wrapped into three lines, and
        # the controls set the tab's minimum width); the controls sit right-aligned under it.
        head = QHBoxLayout()
        head.addWidget(self.summary, 1)
        head.addWidget(self.path)
        bar = QHBoxLayout()
        bar.addStretch(1)
        bar.addWidget(self.only_diffs)
        bar.addWidget(self.arrangement)
        bar.addWidget(self.prev_button)
        bar.addWidget(self.next_button)

        # Gold and output: side by side, or gold above output (``_arrange``).
        self.panes = QSplitter(Qt.Orientation.Horizontal)
        self.panes.setChildrenCollapsible(False)
        for title, view in ((self.title_left, self.left), (self.title_right, self.right)):
            box = QWidget()
            col = QVBoxLayout(box)
            col.setContentsMargins(0, 0, 0, 0)
            col.addWidget(title)
            col.addWidget(view, 1)
            self.panes.addWidget(box)
        self.panes.setStretchFactor(0, 1)
        self.panes.setStretchFactor(1, 1)

        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("diffSplitter")
        self.splitter.addWidget(self.panes)
        self.splitter.addWidget(self.changes)
        self.splitter.setStretchFactor(0, 4)
        self.splitter.setStretchFactor(1, 1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(head)
        layout.addLayout(bar)
        layout.addWidget(self.splitter, 1)

        for keys, slot, what in (("F8", self.next_change, "Next change"),
                                 ("Shift+F8", self.previous_change, "Previous change")):
            panel_key(self, keys, slot, "Gold vs output", what)

    # -- arrangement ----------------------------------------------------------------

    def stacked(self) -> bool:
        return self.panes.orientation() == Qt.Orientation.Vertical

    def wanted_columns(self) -> int:
        """Characters per line a pane should show: the longest line shown, at most READABLE_COLUMNS
        (READABLE_COLUMNS before a result is in)."""
        if self.result is None:
            return READABLE_COLUMNS
        longest = max(self.left.document().max_len, self.right.document().max_len, 1)
        return min(READABLE_COLUMNS, longest)

    def side_by_side_fits(self, width: int | None = None) -> bool:
        """Whether, side by side in ``width`` px (default: the view's), each pane shows
        ``wanted_columns`` characters."""
        width = self.panes.width() if width is None else width
        return (width - self.panes.handleWidth()) // 2 >= columns_width(self.left, self.wanted_columns())

    def stacked_width(self) -> int:
        """The width the view needs to show ``wanted_columns`` characters per line, stacked."""
        return columns_width(self.left, self.wanted_columns()) + (self.width() - self.panes.width())

    def side_by_side_width(self) -> int:
        """The width the view needs to show ``wanted_columns`` characters per line, side by side."""
        return self.stacked_width() + columns_width(self.left, self.wanted_columns()) + self.panes.handleWidth()

    def _arrange(self, *_args) -> None:
        choice = ARRANGEMENTS[self.arrangement.currentIndex()]
        stack = choice == "Stacked" or (choice == "Auto" and not self.side_by_side_fits())
        orientation = Qt.Orientation.Vertical if stack else Qt.Orientation.Horizontal
        if self.panes.orientation() != orientation:
            self.panes.setOrientation(orientation)
            half = (self.panes.height() if stack else self.panes.width()) // 2
            self.panes.setSizes([half, half])

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._arrange()

    # -- input --------------------------------------------------------------------

    def compare(self, left: Any, right: Any, left_title: str = "Gold", right_title: str = "Output") -> None:
        """Diff two JSON values on a worker; the view updates when it is done."""
        self.title_left.setText(left_title)
        self.title_right.setText(right_title)
        self.summary.setText("comparing…")
        self._compares += 1
        number = self._compares
        self.runner.start(self.key, build_diff, left, right, on_result=self.set_result,
                          on_error=lambda exc, _tb: self.summary.setText(f"cannot compare: {exc}"),
                          on_partial=lambda partial: self._emit_partial(number, partial))

    def _emit_partial(self, number: int, partial: DiffResult) -> None:
        try:  # on the worker thread: queued to the GUI thread
            self._partial_ready.emit(number, partial)
        except RuntimeError:  # the view was deleted meanwhile
            pass

    def _on_partial(self, number: int, partial: DiffResult) -> None:
        if number == self._compares and self.runner.is_running(self.key):
            self.set_result(partial)

    def clear(self, message: str = "") -> None:
        self.runner.cancel(self.key)
        self._compares += 1
        self.result = None
        self._current = -1
        self.left.set_lines([])
        self.right.set_lines([])
        self.changes.clear()
        self.summary.setText(message)

    def show_alone(self, left: Any, left_title: str, right_title: str, message: str = "") -> None:
        """Only the left side exists (the gold of an item no run answered): show it in its pane,
        no diff; the right pane stays empty under ``right_title``, which says why."""
        from reviewer_ui.textdoc import value_document

        self.clear(message)
        self.title_left.setText(left_title)
        self.title_right.setText(right_title)
        self.left.set_document(value_document(left))
        self._arrange()

    def set_result(self, result: DiffResult) -> None:
        """Show a diff. A whole result following the partial one of the same diff keeps
        the change list, the current change and the scroll position."""
        previous = self.result
        follows_partial = previous is not None and not previous.complete and previous.changes is result.changes
        self.result = result
        if previous is not None:
            self._replaced.append(previous)
            QTimer.singleShot(DROP_AFTER_MS, self._replaced.clear)
        del previous
        if not follows_partial:
            self._current = -1
            self.path.setText("")
            self._fill_change_list(result)
        self._show_summary(result)
        self._show_docs(keep_place=follows_partial)
        self._tell_painted()  # whatever was waiting for a paint waits no longer
        if result.shown is not None:
            if self.isVisible():
                self._awaiting_paint = result.shown  # set once the panes painted it
            else:
                result.shown.set()
        self._arrange()  # how wide the lines are is known now
        if result.complete:
            self.ready.emit()
        else:
            self.first_screen.emit()

    def _tell_painted(self) -> None:
        if self._awaiting_paint is not None:
            self._awaiting_paint.set()
            self._awaiting_paint = None

    def _show_summary(self, result: DiffResult) -> None:
        counts = count_by_kind(result.changes)
        if result.changes:
            parts = [f"{n} {kind.replace('_', ' ')}" for kind, n in counts.items() if n]
            n = len(result.changes)
            text = f"{n} difference{'s' if n != 1 else ''}: " + ", ".join(parts)
        else:
            text = "identical"
        self.summary.setText(text if result.complete else f"{text} (laying out the rest…)")

    def _fill_change_list(self, result: DiffResult) -> None:
        self.changes.blockSignals(True)
        self.changes.clear()
        for change in result.changes[:MAX_LISTED]:
            QListWidgetItem(change.describe(), self.changes)
        if len(result.changes) > MAX_LISTED:
            QListWidgetItem(f"… {len(result.changes) - MAX_LISTED} more (see the panes)", self.changes)
        self.changes.blockSignals(False)

    # -- navigation ---------------------------------------------------------------

    @property
    def current_change(self) -> int:
        return self._current

    def next_change(self) -> None:
        if self.result and self.result.changes:
            self.go_to_change(min(len(self.result.changes) - 1, self._current + 1))

    def previous_change(self) -> None:
        if self.result and self.result.changes:
            self.go_to_change(max(0, self._current - 1))

    def go_to_change(self, index: int) -> None:
        if self.result is None or not 0 <= index < len(self.result.changes):
            return
        self._current = index
        if not self.result.complete:  # where it is shown is not known yet: shown when it is
            return
        if index < MAX_LISTED and self.changes.currentRow() != index:
            self.changes.blockSignals(True)
            self.changes.setCurrentRow(index)
            self.changes.blockSignals(False)
        row = self.view_row(self.result.change_rows[index])
        self.left.set_current_line(row)
        self.right.set_current_line(row)
        self.current_changed.emit(index)

    def path_at(self, view_row: int, side: str = "left") -> str | None:
        """The JSON path of the node shown on a row of one pane (None on a filler or fold)."""
        if self.result is None or self.result.aligned is None:
            return None
        row = view_row if self._rows is None else (self._rows[view_row] if view_row < len(self._rows) else None)
        if row is None:
            return None
        aligned = self.result.aligned
        path = aligned.left_path(row) if side == "left" else aligned.right_path(row)
        return None if path is None else render_path(path)

    def _show_path(self, view_row: int, side: str) -> None:
        path = self.path_at(view_row, side)
        self.path.setText(f"{'gold' if side == 'left' else 'output'}: {path}" if path else "")

    def view_row(self, aligned_row: int | None) -> int | None:
        """Where an aligned row is shown (differs in "differences only" mode)."""
        if aligned_row is None or self._rows is None:
            return aligned_row
        try:
            return self._rows.index(aligned_row)
        except ValueError:
            return None

    # -- display ------------------------------------------------------------------

    def _show_docs(self, keep_place: bool = False) -> None:
        if self.result is None:
            return
        if self.only_diffs.isChecked() and self.result.complete:
            left, right, self._rows = self.result.differences_only()
        else:
            left, right, self._rows = self.result.left, self.result.right, None
        top, side = self.left.verticalScrollBar().value(), self.left.horizontalScrollBar().value()
        self.left.set_document(left)
        self.right.set_document(right)
        if keep_place:
            self.left.verticalScrollBar().setValue(top)
            self.left.horizontalScrollBar().setValue(side)
        for pane in (self.left, self.right):
            # A scroll area shows or hides its scroll bars in a queued call; run it now, so
            # the new document is painted once, at its final size, instead of a second full
            # paint landing on whatever comes next (it doubled the stall of the next diff).
            QCoreApplication.sendPostedEvents(pane)
        if self._current >= 0:
            self.go_to_change(self._current)
