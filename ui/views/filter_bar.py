"""The item browser's filters: text search, kind, category, depth, edited gold,
and named saved filters (kept in QSettings under ``filters/saved``)."""

from __future__ import annotations

import json
from dataclasses import replace

from PySide6.QtCore import QSettings, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
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

SAVED_KEY = "filters/saved"
ANY = "Any"
GOLD_CHOICES = {ANY: None, "Edited gold": True, "Original gold": False}


class FilterBar(QWidget):
    changed = Signal()  # the filters changed (text search debounced by 250 ms)

    def __init__(self, settings: QSettings, parent=None):
        super().__init__(parent)
        self.settings = settings
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search id or question  (Ctrl+F)")
        self.search.setClearButtonEnabled(True)
        self.kind = QComboBox()
        self.category = QComboBox()
        self.depth = QComboBox()
        self.gold = QComboBox()
        self.gold.addItems(list(GOLD_CHOICES))
        for combo in (self.kind, self.category, self.depth):
            combo.addItem(ANY, None)
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(8)
        self.saved = QComboBox()
        self.saved.setToolTip("Saved filters")
        self.save_button = QToolButton(text="Save…", toolTip="Save the current filters under a name")
        self.delete_button = QToolButton(text="Delete", toolTip="Delete the chosen saved filter")
        self._debounce = QTimer(self, singleShot=True, interval=250)
        self._debounce.timeout.connect(self.changed)
        self.search.textChanged.connect(self._debounce.start)
        for combo in (self.kind, self.category, self.depth, self.gold):
            combo.currentIndexChanged.connect(self._on_combo)
        self.saved.activated.connect(self._load_saved)
        self.save_button.clicked.connect(self._ask_save)
        self.delete_button.clicked.connect(self._delete_saved)
        self._quiet = False

        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        for col, (label, widget) in enumerate(
            (("Kind", self.kind), ("Category", self.category), ("Depth", self.depth), ("Gold", self.gold))
        ):
            grid.addWidget(QLabel(label), 0, col)
            grid.addWidget(widget, 1, col)
        saved_row = QHBoxLayout()
        saved_row.addWidget(QLabel("Saved:"))
        saved_row.addWidget(self.saved, 1)
        saved_row.addWidget(self.save_button)
        saved_row.addWidget(self.delete_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.search)
        layout.addLayout(grid)
        layout.addLayout(saved_row)
        self._refresh_saved()

    # -- facets ----------------------------------------------------------------------

    def set_facets(self, facets: Facets) -> None:
        """Offer the dataset's values (keeping a current choice when it still exists)."""
        self._quiet = True
        try:
            for combo, values in ((self.kind, facets.kinds), (self.category, facets.categories),
                                  (self.depth, facets.depths)):
                current = combo.currentData()
                combo.clear()
                combo.addItem(ANY, None)
                for value, n in values:
                    combo.addItem(f"{value}  ({n})", value)
                i = combo.findData(current) if current is not None else 0
                combo.setCurrentIndex(max(0, i))
                combo.setEnabled(len(values) > 1 or current is not None)
        finally:
            self._quiet = False

    # -- state -----------------------------------------------------------------------

    def state(self) -> dict:
        """The filters as plain JSON values (what saved filters store)."""
        return {
            "text": self.search.text(),
            "kind": self.kind.currentData(),
            "category": self.category.currentData(),
            "depth": self.depth.currentData(),
            "gold": self.gold.currentText(),
        }

    def set_state(self, state: dict) -> None:
        self._quiet = True
        try:
            self.search.setText(state.get("text") or "")
            for combo, key in ((self.kind, "kind"), (self.category, "category"), (self.depth, "depth")):
                value = state.get(key)
                i = combo.findData(value) if value is not None else 0
                if i < 0:  # a value this dataset does not have: offer it anyway, it filters to nothing
                    combo.addItem(f"{value}  (0)", value)
                    i = combo.count() - 1
                combo.setCurrentIndex(i)
            self.gold.setCurrentText(state.get("gold") or ANY)
        finally:
            self._quiet = False
        self._debounce.stop()
        self.changed.emit()

    def clear(self) -> None:
        self.set_state({})

    def apply(self, base: ItemQuery) -> ItemQuery:
        s = self.state()
        return replace(
            base,
            text=s["text"].strip(),
            kinds=[s["kind"]] if s["kind"] is not None else [],
            categories=[s["category"]] if s["category"] is not None else [],
            depths=[s["depth"]] if s["depth"] is not None else [],
            edited=GOLD_CHOICES.get(s["gold"]),
        )

    def _on_combo(self) -> None:
        if not self._quiet:
            self.changed.emit()

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
        if state is not None:
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
