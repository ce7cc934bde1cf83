"""A grouped bar chart drawn with QPainter: one group per category, one bar per run.

Values are fractions in [0, 1] (pass rate or mean score); None draws no bar
and writes "n/a" in its place, so an undefined value is never shown as 0.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPalette
from PySide6.QtWidgets import QSizePolicy, QWidget

# Distinguishable in light and dark themes (Okabe-Ito, colour-blind safe).
SERIES_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999")


class BarChart(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.title = ""
        self.series: list[str] = []
        self.groups: list[str] = []
        self.values: dict[tuple[str, str], float | None] = {}  # (group, series) -> value
        self.setMinimumHeight(180)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def sizeHint(self) -> QSize:
        return QSize(520, 240)

    def set_data(self, title: str, groups: list[str], series: list[str],
                 values: dict[tuple[str, str], float | None]) -> None:
        self.title, self.groups, self.series, self.values = title, groups, series, values
        self.update()

    def paintEvent(self, _event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal = self.palette()
        text = pal.color(QPalette.ColorRole.WindowText)
        grid = QColor(text)
        grid.setAlpha(50)
        fm = self.fontMetrics()
        line = fm.height()
        w, h = self.width(), self.height()
        p.setPen(text)
        p.drawText(QRectF(0, 0, w, line + 4), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, self.title)
        if not self.groups or not self.series:
            p.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "No scores yet: select runs and press Score.")
            return
        legend_h = line + 6
        left, right, top = fm.horizontalAdvance("100%") + 10, 8, 2 * line + 8 + legend_h
        # Category names that do not fit under their group are written slanting, in full
        # (elided to "attr…" they said nothing); only a name longer than the room left is cut.
        slot = (w - left - right) / len(self.groups)
        widest = max(fm.horizontalAdvance(g) for g in self.groups)
        slanted = widest > slot - 4
        room = min(widest, int(h * 0.5 / 0.71)) if slanted else 0
        bottom = h - (int(room * 0.71) + line + 8 if slanted else 2 * line + 8)
        plot_h = max(10, bottom - top)
        # legend
        x = left
        for n, name in enumerate(self.series):
            p.fillRect(QRectF(x, line + 8, 10, 10), QColor(SERIES_COLOURS[n % len(SERIES_COLOURS)]))
            label = fm.elidedText(name, Qt.TextElideMode.ElideRight, 160)
            p.setPen(text)
            p.drawText(QRectF(x + 14, line + 4, fm.horizontalAdvance(label) + 4, line + 4),
                       Qt.AlignmentFlag.AlignVCenter, label)
            x += 14 + fm.horizontalAdvance(label) + 16
        # axis and grid
        for tick in (0, 0.25, 0.5, 0.75, 1.0):
            y = bottom - tick * plot_h
            p.setPen(grid)
            p.drawLine(int(left), int(y), int(w - right), int(y))
            p.setPen(text)
            p.drawText(QRectF(0, y - line / 2, left - 6, line), Qt.AlignmentFlag.AlignRight, f"{tick:.0%}")
        group_w = (w - left - right) / len(self.groups)
        bar_w = max(2.0, min(36.0, group_w * 0.8 / len(self.series)))
        for g, group in enumerate(self.groups):
            gx = left + g * group_w + (group_w - bar_w * len(self.series)) / 2
            for s, name in enumerate(self.series):
                value = self.values.get((group, name))
                bx = gx + s * bar_w
                if value is None:
                    p.setPen(grid)
                    p.drawText(QRectF(bx, bottom - line, bar_w, line), Qt.AlignmentFlag.AlignCenter, "–")
                    continue
                bar_h = max(1.0, min(1.0, value) * plot_h)
                p.fillRect(QRectF(bx + 1, bottom - bar_h, bar_w - 2, bar_h),
                           QColor(SERIES_COLOURS[s % len(SERIES_COLOURS)]))
                label = f"{value:.0%}"
                if fm.horizontalAdvance(label) <= bar_w:  # values on the bars when they fit (0% stays readable)
                    p.setPen(text)
                    p.drawText(QRectF(bx, bottom - bar_h - line - 1, bar_w, line), Qt.AlignmentFlag.AlignCenter, label)
            p.setPen(text)
            if slanted:  # ends under its group, running down to the left
                cx = left + g * group_w + group_w / 2
                label = fm.elidedText(group, Qt.TextElideMode.ElideRight, int(min(room, cx / 0.71)))
                p.save()
                p.translate(cx, bottom + 6)
                p.rotate(-45)
                p.drawText(QRectF(-room - 4, 0, room + 4, line + 2), Qt.AlignmentFlag.AlignRight, label)
                p.restore()
            else:
                p.drawText(QRectF(left + g * group_w, bottom + 4, group_w, line + 2), Qt.AlignmentFlag.AlignHCenter,
                           group)
        p.end()
