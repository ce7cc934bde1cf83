"""A dialog's result or error line that shows all of its text, long paths included.

A word-wrapped QLabel breaks lines only between words, so a message naming a deep
path ("…/pytest-6/test_export/gold.jsonl, line 4: …") ran past the dialog's edge
and what came after the path (the line number, "Withheld 2 items: …") was cut
off. This read-only text box wraps between words and, where one word is wider
than the box, inside it; its height follows the wrapped text. Copying the text
gives the path as it is (no break characters are inserted into it).
Label-like API: ``setText`` / ``text`` with plain text.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QTextOption
from PySide6.QtWidgets import QFrame, QSizePolicy, QTextEdit


class MessageText(QTextEdit):
    def __init__(self, text: str = "", parent=None):
        super().__init__(parent)
        self.setReadOnly(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                     | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Tab goes from field to button, as past a label
        self.viewport().setAutoFillBackground(False)  # the dialog's own background, as a label's
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self.document().setDocumentMargin(0)
        self.document().documentLayout().documentSizeChanged.connect(lambda _size: self.updateGeometry())
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        self.setPlainText(text)
        self.setVisible(bool(text))
        self.updateGeometry()

    def text(self) -> str:
        return self.toPlainText()

    def _text_height(self) -> int:
        return int(self.document().size().height() + 0.999) + 2 * self.frameWidth()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(super().sizeHint().width(), self._text_height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(0, self._text_height())

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()  # a new width: the text wraps anew, and needs a new height
