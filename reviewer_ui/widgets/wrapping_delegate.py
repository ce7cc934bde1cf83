"""WrappingDelegate: table cells whose text wraps anywhere it must, so nothing an
annotator must read is cut to a tooltip.

Qt's own word wrap breaks only at spaces and elides the rest: a call such as
``search_flights(origin="Porto",destination="Oslo")`` or a long identifier read
"searc…" in a narrow column. This delegate lays the text out with
``WrapAtWordBoundaryOrAnywhere`` (at spaces, and inside a word only when it is longer
than the line) and reports the height that takes at the column's
width, so ``resizeRowsToContents`` grows the rows instead.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QFont, QFontMetrics, QTextLayout, QTextOption
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

PADDING = 4  # px around the text, as the style's item margins


def _wrap_option() -> QTextOption:
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    option.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
    return option


def wrapped_height(text: str, font, width: float) -> int:
    """Height (px) of ``text`` wrapped in ``width`` px: at spaces where it can, anywhere where a
    word is longer than the line (the same layout QPainter.drawText uses with this option)."""
    font = QFont(font)  # the layout keeps a reference: a temporary's copy must outlive it
    layout = QTextLayout(text, font)
    layout.setTextOption(_wrap_option())
    layout.beginLayout()
    height = 0.0
    while True:
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(max(1.0, float(width)))
        line.setPosition(QPointF(0.0, height))
        height += line.height()
    layout.endLayout()
    return int(height + 0.999)


class WrappingDelegate(QStyledItemDelegate):
    """Paints a cell's text wrapped (anywhere if need be) and sizes rows to it."""

    def __init__(self, view, columns: set[int]):
        super().__init__(view)
        self.view = view
        self.columns = columns

    def _grid(self) -> int:
        """The px a table's grid line takes from each cell's right and bottom edge when painted."""
        return 1 if getattr(self.view, "showGrid", lambda: False)() else 0

    def _text_width(self, column: int) -> int:
        # The width paint() gets: the column's less the grid line. Measured on the column's whole
        # width, a call that needed the last px wrapped once more when painted and its last line
        # ("API_call_3,") fell below the row.
        return self.view.columnWidth(column) - self._grid() - 2 * PADDING

    def sizeHint(self, option, index) -> QSize:
        hint = super().sizeHint(option, index)
        if index.column() not in self.columns:
            return hint
        text = str(index.data() or "")
        height = wrapped_height(text, option.font, self._text_width(index.column())) + 2 * PADDING
        # Unwrapped width with this delegate's padding: a column fitted to its contents
        # ("Calendar") must not then break its own text ("Calenda r").
        width = max(QFontMetrics(option.font).horizontalAdvance(line) for line in text.split("\n")) + 2 * PADDING + 2
        return QSize(max(hint.width(), width), max(hint.height(), height + self._grid()))

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
        rect = QRectF(opt.rect.adjusted(PADDING, PADDING, -PADDING, -PADDING))
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
        painter.drawText(rect, text, _wrap_option())
        painter.restore()

    def text_fits(self, index) -> bool:
        """Whether the cell's row is tall enough for its wrapped text (tools/fitcheck)."""
        text = str(index.data() or "")
        need = wrapped_height(text, self.view.font(), self._text_width(index.column())) + 2 * PADDING
        return self.view.rowHeight(index.row()) - self._grid() >= need


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
