"""WrappingDelegate: table cells whose text wraps anywhere it must, so nothing an
annotator must read is cut to a tooltip.

Qt's own word wrap breaks only at spaces and elides the rest: a call such as
``search_flights(origin="Porto",destination="Oslo")`` or a long identifier read
"searc…" in a narrow column. This delegate lays the text out with
Qt's "wrap anywhere" (a line breaks where it is full) and reports the height that takes at the column's
width, so ``resizeRowsToContents`` grows the rows instead.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect, QSize, Qt, QTimer
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

PADDING = 4  # px around the text, as the style's item margins


WRAP = Qt.TextFlag.TextWordWrap | Qt.TextFlag.TextWrapAnywhere  # measured and painted alike


def wrapped_height(text: str, font, width: float) -> int:
    """Height (px) of ``text`` wrapped in ``width`` px (anywhere a line must break)."""
    bound = QFontMetrics(font).boundingRect(QRect(0, 0, max(1, int(width)), 1_000_000),
                                            int(WRAP.value), text)
    return bound.height()


class WrappingDelegate(QStyledItemDelegate):
    """Paints a cell's text wrapped (anywhere if need be) and sizes rows to it."""

    def __init__(self, view, columns: set[int]):
        super().__init__(view)
        self.view = view
        self.columns = columns

    def _text_width(self, column: int) -> int:
        return self.view.columnWidth(column) - 2 * PADDING

    def sizeHint(self, option, index) -> QSize:
        hint = super().sizeHint(option, index)
        if index.column() not in self.columns:
            return hint
        text = str(index.data() or "")
        height = wrapped_height(text, option.font, self._text_width(index.column())) + 2 * PADDING
        return QSize(hint.width(), max(hint.height(), height))

    def paint(self, painter, option, index) -> None:
        if index.column() not in self.columns:
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        text = opt.text
        opt.text = ""
        style = opt.widget.style() if opt.widget is not None else self.view.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        rect = opt.rect.adjusted(PADDING, PADDING, -PADDING, -PADDING)
        painter.save()
        selected = opt.state & QStyle.StateFlag.State_Selected
        brush = index.data(Qt.ItemDataRole.ForegroundRole)
        if selected:
            painter.setPen(opt.palette.highlightedText().color())
        elif brush is not None:
            painter.setPen(brush.color())
        else:
            painter.setPen(opt.palette.text().color())
        painter.setFont(opt.font)
        painter.drawText(rect, int(WRAP.value) | int((Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop).value),
                         text)
        painter.restore()

    def text_fits(self, index) -> bool:
        """Whether the cell's row is tall enough for its wrapped text (tools/fitcheck)."""
        text = str(index.data() or "")
        need = wrapped_height(text, self.view.font(), self._text_width(index.column())) + 2 * PADDING
        return self.view.rowHeight(index.row()) + 1 >= need


class RowsFollowWidth(QObject):
    """Re-fits ``view``'s row heights (posted, once) whenever its viewport changes width:
    a wrapped cell's height depends on its column's width."""

    def __init__(self, view):
        super().__init__(view)
        self.view = view
        self._width = -1
        self._timer = QTimer(self, singleShot=True, interval=0)
        self._timer.timeout.connect(view.resizeRowsToContents)
        view.viewport().installEventFilter(self)
        view.horizontalHeader().sectionResized.connect(lambda *_: self._timer.start())

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.Resize and obj.width() != self._width:
            self._width = obj.width()
            self._timer.start()
        return False
