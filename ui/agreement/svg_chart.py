"""One of the core's SVG charts (``reviewer.agreement.svg``) as a widget.

The charts are drawn black on white, so the widget paints a white card under
them in either theme. It keeps the chart's aspect ratio, never draws it larger
than its natural size (text stays the size the chart was laid out for) and
shrinks it to the available width.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QSizePolicy, QWidget

MARGIN = 6


class SvgChart(QWidget):
    def __init__(self, svg: str = "", parent: QWidget | None = None):
        super().__init__(parent)
        self.renderer = QSvgRenderer(self)
        self.svg = ""
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.set_svg(svg)

    def set_svg(self, svg: str) -> None:
        """Show ``svg`` (an ``<svg>`` element as text); raises ValueError if Qt cannot parse it."""
        self.svg = svg
        if svg and not self.renderer.load(QByteArray(svg.encode("utf-8"))):
            raise ValueError("the chart is not valid SVG")
        if not svg:
            self.renderer.load(QByteArray(b'<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>'))
        self.setToolTip(self._title())
        self.updateGeometry()
        self.update()

    def _title(self) -> str:
        start = self.svg.find('aria-label="')
        if start < 0:
            return ""
        start += len('aria-label="')
        return self.svg[start:self.svg.find('"', start)].replace("&amp;", "&").replace("&#x27;", "'")

    def natural_size(self) -> QSize:
        return self.renderer.defaultSize() if self.svg else QSize(0, 0)

    def sizeHint(self) -> QSize:
        size = self.natural_size()
        return QSize(size.width() + 2 * MARGIN, size.height() + 2 * MARGIN)

    def minimumSizeHint(self) -> QSize:
        return QSize(120, self.heightForWidth(120))

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        size = self.natural_size()
        if size.isEmpty():
            return 0
        scale = min(1.0, max(1, width - 2 * MARGIN) / size.width())
        return round(size.height() * scale) + 2 * MARGIN

    def chart_rect(self) -> QRectF:
        """Where the chart is drawn: natural size at most, aspect kept, left-aligned."""
        size = self.natural_size()
        if size.isEmpty():
            return QRectF()
        scale = min(1.0, (self.width() - 2 * MARGIN) / size.width(), (self.height() - 2 * MARGIN) / size.height())
        scale = max(scale, 0.0)
        return QRectF(MARGIN, MARGIN, size.width() * scale, size.height() * scale)

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
