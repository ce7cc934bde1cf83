"""The frame every item layout shares: the kind's own panes on the left, and on
the right tabs with the selected run's output and the gold-vs-output diff.

Subclasses implement ``build_left`` / ``fill_left`` and may add tabs before
the shared ones (``extra_tabs`` / ``fill_tabs``). The diff is computed only
while its tab is visible, on the job runner (key ``diff:<kind>``).

Room for the diff: while "Gold vs output" is the current tab and its arrangement is
Auto, the tabs pane is widened to what the diff needs to show its lines whole up to
READABLE_COLUMNS characters (side by side if the material keeps its minimum, else stacked) (the material pane keeps the rest, or folds away when the rest
would be a useless sliver); leaving the tab gives the material its width back. The
sizes the user chose are what is remembered (``user_state``).
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, Qt, QTimer, Signal
from PySide6.QtWidgets import QSplitter, QTabWidget, QVBoxLayout, QWidget

from reviewer.jsondiff.listlike import read_pair
from reviewer_ui.itemprep import ItemBundle, PreparedOutput
from reviewer_ui.textdoc import value_document
from reviewer_ui.views.diff_view import DiffView
from reviewer_ui.views.panes import OutputsPane, TextPane, section
from reviewer_ui.widgets.line_view import LineView


MIN_MATERIAL = 240  # px (about 30 characters): a narrower material pane folds away while the diff is read

READ_AS_LIST_TIP = ("The answer is stored as text. For this comparison only it is read as a list, so the "
                    "diff shows which elements are missing or extra; scoring compares the text as the "
                    "benchmark does.")


class KindLayout(QWidget):
    diff_reading_changed = Signal()  # the diff tab or its arrangement changed (reviewer_ui.views.narrow_list)
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
        self.tabs.currentChanged.connect(self._schedule_room)
        self.diff.arrangement.currentIndexChanged.connect(self._schedule_room)
        self.tabs.currentChanged.connect(lambda _i: self.diff_reading_changed.emit())
        self.diff.arrangement.currentIndexChanged.connect(lambda _i: self.diff_reading_changed.emit())
        for shown in (self.diff.ready, self.diff.first_screen):  # the room wanted follows the lines shown
            shown.connect(self._schedule_room)
            shown.connect(self.diff_reading_changed.emit)
        self._user_sizes: list[int] | None = None  # the sizes before the diff took room
        self._room_timer = QTimer(self, singleShot=True, interval=0)
        self._room_timer.timeout.connect(self.make_room_for_diff)
        self._hands_off = False  # the user dragged the panes while reading the diff: their sizes stand
        self.tabs.currentChanged.connect(lambda _i: setattr(self, "_hands_off", False))
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
        self.splitter.splitterMoved.connect(self._on_user_drag)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)

    # -- room for the diff --------------------------------------------------------------

    def _schedule_room(self, *_args) -> None:
        self._room_timer.start()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._schedule_room()

    def reading_diff(self) -> bool:
        """Whether the diff is the current tab, arranged automatically."""
        return (self.has_gold_diff and self.tabs.currentWidget() is self.diff
                and self.diff.arrangement.currentText() == "Auto")

    def material_min(self) -> int:
        """The narrowest the material pane may be and still show what it holds: MIN_MATERIAL,
        its minimum size, and its tab titles read whole ("Response", "Tree", "Schema", ...)."""
        material = self.splitter.widget(1 - self.splitter.indexOf(self.tabs))
        need = max(MIN_MATERIAL, material.minimumSizeHint().width())
        for tabs in material.findChildren(QTabWidget):
            bar = tabs.tabBar()
            need = max(need, sum(bar.tabSizeHint(i).width() for i in range(bar.count())) + 8)
        return need

    def _chrome(self) -> int:
        return max(0, self.tabs.width() - self.diff.width()) if self.diff.width() > 0 else 12

    def width_for_side_by_side(self) -> int:
        """The layout's width that holds the diff side by side beside a readable material pane."""
        return self.diff.side_by_side_width() + self._chrome() + self.material_min() + self.splitter.handleWidth()

    def diff_room_taken(self) -> bool:
        return self._user_sizes is not None

    def make_room_for_diff(self) -> None:
        """Widen the tabs pane while the diff is read (Auto), give the room back otherwise."""
        tabs_index = self.splitter.indexOf(self.tabs)
        reading = self.reading_diff() and self.isVisible()
        if not reading:
            self.give_room_back()
            return
        if self._hands_off:
            return
        total = sum(self.splitter.sizes())
        base = self._user_sizes or self.splitter.sizes()
        if total <= 0:
            return
        chrome = self._chrome()
        have = base[tabs_index]
        side, stacked = self.diff.side_by_side_width() + chrome, self.diff.stacked_width() + chrome
        # Preference: side by side as is; side by side on loan with a readable material pane;
        # stacked as is; stacked on loan; the diff alone (the material folds away).
        if have >= side:
            self.give_room_back()
            return
        least = self.material_min()
        if side <= total - least:
            want = side
        elif have >= stacked:
            self.give_room_back()
            return
        elif stacked <= total - least:
            want = stacked
        else:
            want = total
        sizes = [0, 0]
        sizes[tabs_index], sizes[1 - tabs_index] = want, total - want
        if self._user_sizes is None:
            self._user_sizes = base
        if self.splitter.sizes() != sizes:
            self.splitter.setSizes(sizes)

    def _on_user_drag(self, *_args) -> None:
        if self._user_sizes is not None:  # what they dragged to is what they want, here and later
            self._user_sizes = None
            self._hands_off = True

    def _scaled_user_sizes(self) -> list[int]:
        """The user's sizes, scaled to the splitter's width now (the item list may have
        narrowed or widened meanwhile): each pane keeps its share."""
        user, total = self._user_sizes, sum(self.splitter.sizes())
        if not user or sum(user) <= 0 or total <= 0:
            return list(user or [])
        first = round(user[0] * total / sum(user))
        return [first, total - first]

    def give_room_back(self) -> None:
        if self._user_sizes is not None:
            sizes = self._scaled_user_sizes()
            self._user_sizes = None
            self.splitter.setSizes(sizes)
            self._keep_material_readable()

    def _keep_material_readable(self) -> None:
        """Giving back a loan after the item list widened again: the material pane keeps its
        readable minimum (tab titles whole) when the tabs pane can spare it. (Sizes the user
        dragged to are left alone.)"""
        sizes = self.splitter.sizes()
        m = 1 - self.splitter.indexOf(self.tabs)
        short = self.material_min() - sizes[m]
        spare = sizes[1 - m] - self.tabs.minimumSizeHint().width()
        if sizes[m] > 0 and short > 0 and spare > 0:
            move = min(short, spare)
            sizes[m] += move
            sizes[1 - m] -= move
            self.splitter.setSizes(sizes)

    def user_state(self) -> QByteArray:
        """The layout splitter's state with the sizes the user chose (not the diff's loan)."""
        if self._user_sizes is None:
            return self.splitter.saveState()
        now = self.splitter.sizes()
        self.splitter.blockSignals(True)
        self.splitter.setSizes(self._scaled_user_sizes())
        state = self.splitter.saveState()
        self.splitter.setSizes(now)
        self.splitter.blockSignals(False)
        return state

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
        if p is None:  # the gold alone: there is nothing to compare it with, but it can be read
            self.diff.title_left.setToolTip("")
            self.diff.title_right.setToolTip("")
            self.diff.show_alone(self.bundle.detail.gold, "Gold",
                                 "No output: no run answered this item",
                                 "no output to compare with the gold")
            return
        title = f"Output of {p.label}" + ("" if p.value_ok else " (no JSON found: raw text)")
        left, right, left_note, right_note, tip = self.diff_pair(p)
        gold_title = "Gold" + (f" ({left_note})" if left_note else "")
        if right_note:
            title += f" ({right_note})"
        self.diff.title_left.setToolTip(tip)
        self.diff.title_right.setToolTip(tip)
        self.diff.compare(left, right, gold_title, title)

    def diff_pair(self, p: PreparedOutput) -> tuple:
        """(gold, output, gold note, output note, tooltip): what the diff compares and how
        each side was read for it (display only). Kinds whose outputs come in another
        shape than the gold override this."""
        # List answers stored as text ("a, b", "['a', 'b']") are compared element by element
        # here (display only: scoring reads them as the benchmark does); the titles say so.
        pair = read_pair(self.bundle.detail.gold, p.value)
        return pair.left, pair.right, pair.left_note, pair.right_note, READ_AS_LIST_TIP if pair.read else ""


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
