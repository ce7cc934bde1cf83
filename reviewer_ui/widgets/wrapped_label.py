"""A word-wrapped label whose minimum and preferred height is the height its text needs at its width.

Qt lays out a plain word-wrapped QLabel by its one-line minimum: a splitter or a
squeezed dock then gives the layout less than the wrapped text needs, and the
widgets around the label are drawn on top of each other (the Runs panel's
three-line connection error pushed its buttons under the runs table). Its size hint is
QLabel's guess at a narrow width (three lines for a one-line text): a form that had the
room gave it that, an empty band around the text (the Import dialog's detected format).
"""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QLabel


class WrappedLabel(QLabel):
    def __init__(self, text: str = "", parent=None):
        super().__init__(text, parent)
        self.setWordWrap(True)
        self._last_width = -1

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        hint = super().minimumSizeHint()
        if self.width() > 0 and self.text():
            hint.setHeight(max(hint.height(), self.heightForWidth(self.width())))
        return hint

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        hint = super().sizeHint()
        if self.width() > 0 and self.text():
            hint.setHeight(self.heightForWidth(self.width()))
        return hint

    def setText(self, text: str) -> None:
        super().setText(text)
        self.updateGeometry()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if event.size().width() != self._last_width:
            self._last_width = event.size().width()
            self.updateGeometry()  # a new width: a new height for the text
