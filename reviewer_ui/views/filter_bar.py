"""The item browser's filters and named saved filters (kept in QSettings under
``filters/saved``).

Filters: text search; kinds, categories and depths (any number of each);
edited gold; review state; a score range in the selected run; items on which
the selected run and another run disagree; and the score mode (faithful /
fixed) that the score filters and the table's Score column use.

The run the score filters use is the main window's Run picker (``set_run``);
without a run the score range and "disagrees with" are disabled and ignored.
Saved filters name the other run by its name, so a saved filter means the same
in any dataset that has a run of that name.

"Only these items" (``show_only``): a set of items picked elsewhere (the release
panel's counts) narrows the table on top of the other filters, shown as a line
with a "Show all" button; it is not saved, and clearing the filters drops it.
"""

from __future__ import annotations

import json
from dataclasses import replace

from PySide6.QtCore import QSettings, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from reviewer.store.browse import Facets
from reviewer.store.queries import ItemQuery
from reviewer_ui.views.guards_pane import GuardFilter
from reviewer_ui.widgets.check_combo import CheckCombo

SAVED_KEY = "filters/saved"
ANY = "Any"
GOLD_CHOICES = {ANY: None, "Edited gold": True, "Original gold": False}
# Review state label -> ItemQuery.review (reviewer.store.queries.REVIEW_STATES)
REVIEW_CHOICES = {ANY: None, "Not annotated": "unannotated", "In review": "in_review",
                  "Disagreement": "disagreement", "Settled": "settled"}
SCORE_MODES = ("faithful", "fixed")
NO_RUN = "(no other run)"
# (state key, legacy single-value key of filters saved before multi-select)
_MULTI = (("kinds", "kind"), ("categories", "category"), ("depths", "depth"))


class FilterBar(QWidget):
    changed = Signal()  # the filters changed (text search and score bounds debounced by 250 ms)
    score_mode_changed = Signal(str)  # "faithful" or "fixed"

    def __init__(self, settings: QSettings, parent=None):
        super().__init__(parent)
        self.settings = settings
        self._run_id: int | None = None
        self._runs: list[tuple[int, str]] = []  # (id, name) of the dataset's runs
        self._quiet = False
        self._only: tuple[str, tuple[int, ...]] | None = None  # (label, item ids) from show_only

        self.only_label = QLabel("")
        self.only_label.setObjectName("onlyItems")
        self.only_label.setWordWrap(True)
        self.only_clear = QToolButton(text="Show all", toolTip="Drop the item set; the other filters stay")
        self.only_clear.clicked.connect(lambda: self.clear_only())
        self.only_row = QWidget()
        only = QHBoxLayout(self.only_row)
        only.setContentsMargins(0, 0, 0, 0)
        only.addWidget(self.only_label, 1)
        only.addWidget(self.only_clear)
        self.only_row.setVisible(False)

        self.search = QLineEdit()
        self.search.setPlaceholderText("Search id or question  (Ctrl+F)")
        self.search.setClearButtonEnabled(True)
        self.kind, self.category, self.depth = CheckCombo(ANY), CheckCombo(ANY), CheckCombo(ANY)
        for combo in (self.kind, self.category, self.depth):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(8)
            combo.setToolTip("Tick any number of values (none ticked: any)")
        self.gold = QComboBox()
        self.gold.addItems(list(GOLD_CHOICES))
        self.review = QComboBox()
        for label, value in REVIEW_CHOICES.items():
            self.review.addItem(label, value)
        self.score_mode = QComboBox()
        self.score_mode.addItems(list(SCORE_MODES))
        self.score_mode.setToolTip("faithful: the benchmark's official scorer, quirks included; "
                                   "fixed: with those quirks corrected. Drives the Score column and score filters.")
        self.disagree = QComboBox()
        self.disagree.addItem(NO_RUN, None)
        self.disagree.setToolTip("Only items whose pass/fail in the selected run differs from this run's")
        self.score_range = QCheckBox("Score from")
        self.score_range.setToolTip("Only items whose score in the selected run (first replication) is in the range")
        self.score_min, self.score_max = QDoubleSpinBox(), QDoubleSpinBox()
        for spin, value in ((self.score_min, 0.0), (self.score_max, 1.0)):
            spin.setRange(-1_000_000.0, 1_000_000.0)
            spin.setDecimals(3)
            spin.setSingleStep(0.1)
            spin.setValue(value)
            spin.setKeyboardTracking(False)
        self.guard = GuardFilter()  # quality guards (reviewer.guards): ItemQuery.guard_failed
        self.saved = QComboBox()
        self.saved.setToolTip("Saved filters")
        self.save_button = QToolButton(text="Save…", toolTip="Save the current filters under a name")
        self.delete_button = QToolButton(text="Delete", toolTip="Delete the chosen saved filter")

        # The browser shares the screen with the item under review: every box may
        # shrink to a few characters (the full choice shows in the open list).
        for combo in (self.kind, self.category, self.depth, self.gold, self.review, self.score_mode,
                      self.disagree, self.saved):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(5)
        for spin in (self.score_min, self.score_max):
            spin.setMinimumWidth(spin.fontMetrics().horizontalAdvance("-0.000") + 36)

        self._debounce = QTimer(self, singleShot=True, interval=250)
        self._debounce.timeout.connect(self.changed)
        self.search.textChanged.connect(self._debounce.start)
        for combo in (self.kind, self.category, self.depth):
            combo.checked_changed.connect(self._on_edit)
        for combo in (self.gold, self.review, self.disagree, self.guard):
            combo.currentIndexChanged.connect(self._on_edit)
        self.score_mode.currentIndexChanged.connect(self._on_mode)
        self.score_range.toggled.connect(self._on_range_toggled)
        for spin in (self.score_min, self.score_max):
            spin.valueChanged.connect(self._on_bound)
        self.saved.activated.connect(self._load_saved)
        self.save_button.clicked.connect(self._ask_save)
        self.delete_button.clicked.connect(self._delete_saved)

        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        # Three columns: the browser is a narrow column beside the item under review.
        cells = (("Kind", self.kind, 1), ("Category", self.category, 1), ("Depth", self.depth, 1),
                 ("Gold", self.gold, 1), ("Review", self.review, 1), ("Score mode", self.score_mode, 1),
                 ("Disagrees with", self.disagree, 3), ("Guard", self.guard, 3))
        row = col = 0
        for label, widget, span in cells:
            if col + span > 3:
                row, col = row + 2, 0
            grid.addWidget(QLabel(label), row, col)
            grid.addWidget(widget, row + 1, col, 1, span)
            col += span
        score_row = QHBoxLayout()
        score_row.addWidget(self.score_range)
        score_row.addWidget(self.score_min, 1)
        score_row.addWidget(QLabel("to"))
        score_row.addWidget(self.score_max, 1)
        self.score_note = QLabel("")
        self.score_note.setObjectName("muted")
        score_row.addWidget(self.score_note)
        saved_row = QHBoxLayout()
        saved_row.addWidget(QLabel("Saved:"))
        saved_row.addWidget(self.saved, 1)
        saved_row.addWidget(self.save_button)
        saved_row.addWidget(self.delete_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.only_row)
        layout.addWidget(self.search)
        layout.addLayout(grid)
        layout.addLayout(score_row)
        layout.addLayout(saved_row)
        self._refresh_saved()
        self._enable_run_filters()

    # -- dataset choices ----------------------------------------------------------------

    def set_facets(self, facets: Facets) -> None:
        """Offer the dataset's values (keeping checked values that still exist)."""
        self._quiet = True
        try:
            for combo, values in ((self.kind, facets.kinds), (self.category, facets.categories),
                                  (self.depth, facets.depths)):
                wanted = combo.checked()
                combo.clear()
                for value, n in values:
                    combo.add_value(f"{value}  ({n:,})", value)
                combo.set_checked(wanted)
                combo.setEnabled(len(values) > 1 or bool(wanted))
        finally:
            self._quiet = False

    def set_runs(self, runs) -> None:
        """The dataset's runs (objects with ``id`` and ``name``), for "disagrees with"."""
        self._runs = [(r.id, r.name) for r in runs]
        self._fill_disagree(self.disagree_run_name())

    def set_run(self, run_id: int | None) -> bool:
        """The run the score filters use (the window's Run picker). Returns whether the
        filters depend on the run (before or after), i.e. the caller must re-apply them."""
        if run_id == self._run_id:
            return False
        before = self.uses_run()
        self._run_id = run_id
        self._fill_disagree(self.disagree_run_name())
        self._enable_run_filters()
        return before or self.uses_run()

    def run_id(self) -> int | None:
        return self._run_id

    def mode(self) -> str:
        return self.score_mode.currentText()

    def disagree_run_name(self) -> str | None:
        return self.disagree.currentData()

    def uses_run(self) -> bool:
        """Whether the current filters depend on the selected run."""
        return self._run_id is not None and (self.score_range.isChecked() or self.disagree_run_name() is not None)

    def _fill_disagree(self, wanted: str | None) -> None:
        was = self._quiet
        self._quiet = True
        try:
            self.disagree.clear()
            self.disagree.addItem(NO_RUN, None)
            for run_id, name in self._runs:
                if run_id != self._run_id:
                    self.disagree.addItem(name, name)
            i = self.disagree.findData(wanted) if wanted is not None else 0
            self.disagree.setCurrentIndex(max(0, i))
        finally:
            self._quiet = was

    def _enable_run_filters(self) -> None:
        has_run = self._run_id is not None
        for widget in (self.score_range, self.score_min, self.score_max, self.disagree):
            widget.setEnabled(has_run)
        self.disagree.setEnabled(has_run and self.disagree.count() > 1)
        self.score_note.setText("" if has_run else "(pick a run)")

    # -- a set of items picked elsewhere -------------------------------------------------

    def show_only(self, label: str, item_ids) -> None:
        """Narrow the table to ``item_ids`` (described by ``label``) and emit ``changed``."""
        ids = tuple(item_ids)
        self._only = (label, ids)
        n = len(ids)
        self.only_label.setText(f"Showing only the {n:,} item{'s' if n != 1 else ''} {label}")
        self.only_row.setVisible(True)
        self._emit()

    def only(self) -> tuple[str, tuple[int, ...]] | None:
        return self._only

    def clear_only(self, emit: bool = True) -> None:
        if self._only is None:
            return
        self._only = None
        self.only_label.setText("")
        self.only_row.setVisible(False)
        if emit:
            self._emit()

    # -- state ---------------------------------------------------------------------------

    def state(self) -> dict:
        """The filters as plain JSON values (what saved filters store)."""
        return {
            "text": self.search.text(),
            "kinds": self.kind.checked(),
            "categories": self.category.checked(),
            "depths": self.depth.checked(),
            "gold": self.gold.currentText(),
            "review": self.review.currentData(),
            "score_mode": self.mode(),
            "score_range": self.score_range.isChecked(),
            "score_min": self.score_min.value(),
            "score_max": self.score_max.value(),
            "disagree_run": self.disagree_run_name(),
            "guard_failed": self.guard.currentData(),
        }

    def set_state(self, state: dict) -> None:
        """Show ``state`` (missing keys: their defaults) and emit ``changed`` once."""
        mode_before = self.mode()
        self._quiet = True
        try:
            self.clear_only(emit=False)
            self.search.setText(state.get("text") or "")
            for combo, (key, legacy) in zip((self.kind, self.category, self.depth), _MULTI):
                values = state.get(key)
                if values is None:
                    values = [] if state.get(legacy) is None else [state[legacy]]
                for value in values:
                    if value not in combo.values():  # a value this dataset lacks: shown, filters to nothing
                        combo.add_value(f"{value}  (0)", value)
                        combo.setEnabled(True)
                combo.set_checked(values)
            self.gold.setCurrentText(state.get("gold") or ANY)
            self.review.setCurrentIndex(max(0, self.review.findData(state.get("review"))))
            self.guard.setCurrentIndex(max(0, self.guard.findData(state.get("guard_failed"))))
            mode = state.get("score_mode")
            self.score_mode.setCurrentText(mode if mode in SCORE_MODES else SCORE_MODES[0])
            self.score_range.setChecked(bool(state.get("score_range")))
            for spin, key, default in ((self.score_min, "score_min", 0.0), (self.score_max, "score_max", 1.0)):
                value = state.get(key)
                spin.setValue(float(value) if isinstance(value, (int, float)) else default)
            self._fill_disagree(state.get("disagree_run"))
        finally:
            self._quiet = False
        self._debounce.stop()
        if self.mode() != mode_before:
            self.score_mode_changed.emit(self.mode())
        self.changed.emit()

    def clear(self) -> None:
        self.set_state({})

    def apply(self, base: ItemQuery) -> ItemQuery:
        """``base`` (its dataset and sort) narrowed by these filters."""
        s = self.state()
        run = self._run_id
        other = next((run_id for run_id, name in self._runs if name == s["disagree_run"] and run_id != run), None)
        ranged = run is not None and s["score_range"]
        query = replace(
            base,
            text=s["text"].strip(),
            kinds=s["kinds"],
            categories=s["categories"],
            depths=s["depths"],
            edited=GOLD_CHOICES.get(s["gold"]),
            review=s["review"],
            score_run_id=run,
            score_mode=s["score_mode"],
            score_min=s["score_min"] if ranged else None,
            score_max=s["score_max"] if ranged else None,
            runs_disagree=(run, other) if run is not None and other is not None else None,
            guard_failed=s.get("guard_failed"),
            item_ids=self._only[1] if self._only is not None else None,
        )
        if query.sort == "score" and run is None:  # nothing to sort by without a run
            query = replace(query, sort="position", descending=False)
        return query

    def _emit(self) -> None:
        if not self._quiet:
            self._debounce.stop()
            self.changed.emit()

    def _on_edit(self, *_args) -> None:
        self._emit()

    def _on_mode(self, *_args) -> None:
        if not self._quiet:
            self.score_mode_changed.emit(self.mode())
            self._emit()

    def _on_range_toggled(self, _on: bool) -> None:
        self._emit()

    def _on_bound(self, *_args) -> None:
        if not self._quiet and self.score_range.isChecked():
            self._debounce.start()  # typing 0.75 must not query for 0, 0.7 and 0.75

    # -- saved filters -----------------------------------------------------------------

    def saved_filters(self) -> dict[str, dict]:
        raw = self.settings.value(SAVED_KEY, "{}")
        try:
            data = json.loads(raw) if isinstance(raw, str) else {}
        except ValueError:
            data = {}
        return data if isinstance(data, dict) else {}

    def save_as(self, name: str) -> None:
        data = self.saved_filters()
        data[name] = self.state()
        self.settings.setValue(SAVED_KEY, json.dumps(data))
        self._refresh_saved(name)

    def delete_saved(self, name: str) -> None:
        data = self.saved_filters()
        data.pop(name, None)
        self.settings.setValue(SAVED_KEY, json.dumps(data))
        self._refresh_saved()

    def load_saved(self, name: str) -> None:
        state = self.saved_filters().get(name)
        if isinstance(state, dict):
            self.set_state(state)

    def _refresh_saved(self, current: str | None = None) -> None:
        self.saved.clear()
        names = sorted(self.saved_filters())
        self.saved.addItems(names)
        self.saved.setEnabled(bool(names))
        self.delete_button.setEnabled(bool(names))
        if current in names:
            self.saved.setCurrentText(current)

    def _load_saved(self, index: int) -> None:
        self.load_saved(self.saved.itemText(index))

    def _ask_save(self) -> None:
        name, ok = QInputDialog.getText(self, "Save filters", "Name:")
        if ok and name.strip():
            self.save_as(name.strip())

    def _delete_saved(self) -> None:
        if self.saved.currentText():
            self.delete_saved(self.saved.currentText())
