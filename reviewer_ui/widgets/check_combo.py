"""A combo box whose entries are check boxes: pick any number of values.

Entry 0 is "Any" (nothing checked = no filter). Clicking an entry in the popup, or
Space on it, toggles it and keeps the popup open; "Any" clears and closes. The box
shows "Any", the single checked label, or "N of M". Picking an entry
programmatically with ``setCurrentIndex`` checks that entry alone (a plain
single choice), so code written for a QComboBox keeps working.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox, QStylePainter

_CHECKED, _UNCHECKED = Qt.CheckState.Checked, Qt.CheckState.Unchecked


class CheckCombo(QComboBox):
    checked_changed = Signal()  # the set of checked values changed (by the user or the code)

    def __init__(self, any_text: str = "Any", parent=None):
        super().__init__(parent)
        self.any_text = any_text
        self._model = QStandardItemModel(self)
        self.setModel(self._model)
        self._quiet = False
        self.clear()
        self.view().viewport().installEventFilter(self)
        self.view().installEventFilter(self)  # Space on an entry
        self.currentIndexChanged.connect(self._on_index)

    # -- entries -------------------------------------------------------------------

    def clear(self) -> None:
        self._quiet = True
        try:
            self._model.clear()
            self._model.appendRow(QStandardItem(self.any_text))
            self.setCurrentIndex(0)
        finally:
            self._quiet = False

    def add_value(self, label: str, value) -> None:
        item = QStandardItem(label)
        item.setData(value, Qt.ItemDataRole.UserRole)
        item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
        item.setData(_UNCHECKED, Qt.ItemDataRole.CheckStateRole)
        self._model.appendRow(item)

    def values(self) -> list:
        """Every value offered (checked or not), in order."""
        return [self._model.item(i).data(Qt.ItemDataRole.UserRole) for i in range(1, self._model.rowCount())]

    def checked(self) -> list:
        """The checked values, in the order offered (empty = Any)."""
        return [self._model.item(i).data(Qt.ItemDataRole.UserRole) for i in range(1, self._model.rowCount())
                if self._model.item(i).checkState() == _CHECKED]

    def set_checked(self, values) -> None:
        """Check exactly ``values`` (those offered; others are ignored)."""
        wanted = list(values or [])
        before = self.checked()
        for i in range(1, self._model.rowCount()):
            item = self._model.item(i)
            item.setCheckState(_CHECKED if item.data(Qt.ItemDataRole.UserRole) in wanted else _UNCHECKED)
        self._sync_index()
        if self.checked() != before:
            self.checked_changed.emit()
            self.update()

    # -- user interaction ----------------------------------------------------------

    def eventFilter(self, obj, event) -> bool:
        # A click on an entry, or Space on the current one, toggles it instead of choosing it
        # and closing the popup. Space was left to the list view, which ticked the box without
        # a word to the filter: the box said "2 of 5" while the table kept one value.
        if event.type() == QEvent.Type.MouseButtonRelease and obj is self.view().viewport():
            index = self.view().indexAt(event.position().toPoint())
            if index.isValid():
                self._toggle(index.row())
                return True
        if (event.type() == QEvent.Type.KeyPress and obj is self.view() and event.key() == Qt.Key.Key_Space
                and self.view().currentIndex().isValid()):
            self._toggle(self.view().currentIndex().row())
            return True
        return super().eventFilter(obj, event)

    def _toggle(self, row: int) -> None:
        """Toggle entry ``row`` ("Any", row 0, clears and closes)."""
        if row == 0:
            self.set_checked([])
            self.hidePopup()
            return
        item = self._model.item(row)
        item.setCheckState(_UNCHECKED if item.checkState() == _CHECKED else _CHECKED)
        self._sync_index()
        self.checked_changed.emit()
        self.update()

    def showPopup(self) -> None:
        # The list is as wide as the box by default, which elides "AGGREGATION  (2)".
        fm = self.view().fontMetrics()
        widest = max((fm.horizontalAdvance(self.itemText(i)) for i in range(self.count())), default=0)
        self.view().setMinimumWidth(widest + 4 * fm.height())  # room for the check box and margins
        super().showPopup()

    def _on_index(self, index: int) -> None:
        if not self._quiet:  # a programmatic single choice
            self.set_checked([] if index <= 0 else [self.itemData(index)])

    def _sync_index(self) -> None:
        """Keep the current index on the single checked entry (else on "Any"), so
        ``currentData()`` answers as for a plain combo."""
        rows = [i for i in range(1, self._model.rowCount()) if self._model.item(i).checkState() == _CHECKED]
        self._quiet = True
        try:
            self.setCurrentIndex(rows[0] if len(rows) == 1 else 0)
        finally:
            self._quiet = False

    def summary(self) -> str:
        rows = [i for i in range(1, self._model.rowCount()) if self._model.item(i).checkState() == _CHECKED]
        if not rows:
            return self.any_text
        if len(rows) == 1:
            return self._model.item(rows[0]).text()
        return f"{len(rows)} of {self._model.rowCount() - 1}"

    def paintEvent(self, _event) -> None:
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        option.currentText = self.summary()
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)
