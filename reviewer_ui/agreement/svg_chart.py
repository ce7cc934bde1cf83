"""One of the core's SVG charts (``reviewer.agreement.svg``) as a widget.

The charts are drawn black on white, so the widget paints a white card under
them in either theme. It shows the chart at its natural size, so the text
stays the size the chart was laid out for (a scroll area makes room).
"""

from __future__ import annotations

from html import unescape

from PySide6.QtCore import QByteArray, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QWidget

MARGIN = 6


class SvgChart(QWidget):
    """``overflow_right`` widens the view past the SVG's own width, for text that runs
    over its right edge (a forest plot's "undefined: ..." notes do with long names)."""

    def __init__(self, svg: str = "", parent: QWidget | None = None, overflow_right: int = 0):
        super().__init__(parent)
        self.renderer = QSvgRenderer(self)
        self.overflow_right = overflow_right
        self.svg = ""
        self.set_svg(svg)

    def set_svg(self, svg: str) -> None:
        """Show ``svg`` (an ``<svg>`` element as text); raises ValueError if Qt cannot parse it."""
        self.svg = svg
        if svg and not self.renderer.load(QByteArray(svg.encode("utf-8"))):
            raise ValueError("the chart is not valid SVG")
        if not svg:
            self.renderer.load(QByteArray(b'<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>'))
        elif self.overflow_right:
            box = self.renderer.viewBoxF()
            self.renderer.setViewBox(box.adjusted(0, 0, self.overflow_right, 0))
        self.setToolTip(self._title())
        self.setFixedSize(self.sizeHint())
        self.update()

    def _title(self) -> str:
        start = self.svg.find('aria-label="')
        if start < 0:
            return ""
        start += len('aria-label="')
        return unescape(self.svg[start:self.svg.find('"', start)])

    def natural_size(self) -> QSize:
        """The SVG's own size (plus the overflow room): one chart pixel per screen pixel."""
        if not self.svg:
            return QSize(0, 0)
        size = self.renderer.defaultSize()
        return QSize(size.width() + self.overflow_right, size.height())

    def sizeHint(self) -> QSize:
        size = self.natural_size()
        return QSize(size.width() + 2 * MARGIN, size.height() + 2 * MARGIN)

    def chart_rect(self) -> QRectF:
        return QRectF(MARGIN, MARGIN, self.natural_size().width(), self.natural_size().height())

    def paintEvent(self, _event) -> None:
        if not self.svg:
            return
        rect = self.chart_rect()
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor("#ffffff"))
        painter.drawRoundedRect(rect.adjusted(-MARGIN / 2, -MARGIN / 2, MARGIN / 2, MARGIN / 2), 4, 4)
        self.renderer.render(painter, rect)
        painter.end()
