"""ElidedComboBox: a combo box whose closed text elides in the middle.

Run names share long prefixes ("citybikes.example.org_v1_stations_alpha-7b_…" and
"…_beta-13b_…"): cut at the right, as QComboBox does, they read the same. This box
drops the start the name shares with another item and cuts the rest in the middle
("city…alpha-7b_direct…ns  (6 outputs)"), puts the
whole text in its tooltip, and opens a list wide enough to show every name whole
(up to the screen's width).
"""

from __future__ import annotations

import os

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox, QStylePainter

KEEP = 4  # characters kept of a start the name shares with another item
POPUP_MARGIN = 48  # px beyond the widest text: the list's frame, item margins and a scroll bar


class ElidedComboBox(QComboBox):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.currentIndexChanged.connect(self._update_tip)
        self.model().rowsInserted.connect(self._tip_items)
        self.model().modelReset.connect(self._update_tip)

    def _tip_items(self, *_args) -> None:
        for i in range(self.count()):
            if not self.itemData(i, Qt.ItemDataRole.ToolTipRole):
                self.setItemData(i, self.itemText(i), Qt.ItemDataRole.ToolTipRole)
        self._update_tip()

    def _update_tip(self, *_args) -> None:
        self.setToolTip(self.currentText())

    def _text_rect(self, opt: QStyleOptionComboBox):
        return self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt,
                                           QStyle.SubControl.SC_ComboBoxEditField, self)

    def displayed_text(self) -> str:
        """The text the closed box shows (the current text, elided in the middle to fit)."""
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        width = max(0, self._text_rect(opt).width() - 2)
        text, metrics = self.currentText(), self.fontMetrics()
        if metrics.horizontalAdvance(text) <= width:
            return text
        # The start another item shares says nothing: keep KEEP of its characters, then the rest.
        shared = max([len(os.path.commonprefix([text, self.itemText(i)]))
                      for i in range(self.count()) if i != self.currentIndex()] + [0])
        if shared > KEEP + 1:
            text = text[:KEEP] + "…" + text[shared:]
        return metrics.elidedText(text, Qt.TextElideMode.ElideMiddle, width)

    def paintEvent(self, _event) -> None:
        if self.toolTip() != self.currentText():  # the index may change with signals blocked
            self._update_tip()
        painter = QStylePainter(self)
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, opt)
        opt.currentText = self.displayed_text()
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, opt)

    def popup_width(self) -> int:
        """The open list's width: every item's text whole, at least the box, at most the screen."""
        metrics = self.view().fontMetrics()
        want = max([metrics.horizontalAdvance(self.itemText(i)) for i in range(self.count())] + [0]) + POPUP_MARGIN
        screen = self.screen() or QGuiApplication.primaryScreen()
        limit = screen.availableGeometry().width() if screen is not None else want
        return max(self.width(), min(want, limit))

    def showPopup(self) -> None:
        self.view().setMinimumWidth(self.popup_width())
        super().showPopup()
