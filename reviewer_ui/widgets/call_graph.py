"""The data flow of a call chain drawn with QGraphicsView.

Each call is a box (its API name and parameters), placed in layers by nesting
depth: layers are columns left to right in a wide view, rows top to bottom in a
tall one (the pane beside the review dock is usually tall and narrow), so the
graph is readable at the zoom that fits it; the layout follows the view's shape
when it is resized. An arrow runs from the producing call's response to each
consuming parameter. Marks: calls missing from / extra in the prediction (red border),
edges whose producer is wrong (red, dashed), parameters whose value is "UNK"
(amber), placeholders no earlier call returns (red text).
"""

from __future__ import annotations

import json

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QFont, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsScene, QGraphicsView

from reviewer.callgraph import call_depths
from reviewer_ui import theme
from reviewer_ui.callchain import CallAlignment

BOX_W, LINE_H, PAD, COL_GAP, ROW_GAP = 250, 18, 8, 90, 26
# Fitting the graph to the view: a small graph is enlarged (up to MAX_FIT, where a
# one-call graph's text is large but still reads as a diagram), a big one shrunk
# only down to MIN_FIT (below that the text is unreadable: scroll instead).
MIN_FIT, MAX_FIT = 0.6, 1.8


def _short(value, limit=26) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class CallGraphView(QGraphicsView):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.scene_ = QGraphicsScene(self)
        self.setScene(self.scene_)
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.boxes: list[QRectF] = []
        self.edge_items = []
        self.marked_edges = 0
        self._zoomed = False  # once the user zooms, stop fitting the graph to the view
        self._shown = None  # (alignment, side) drawn last, redrawn when the view's shape flips
        self.vertical = False  # layers as rows (tall view) instead of columns
        self.setToolTip("Ctrl+wheel zooms; double-click fits the graph to the view again")

    def wheelEvent(self, event) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            factor = 1.15 if event.angleDelta().y() > 0 else 1 / 1.15
            self.scale(factor, factor)
            self._zoomed = True
        else:
            super().wheelEvent(event)

    def show_chain(self, alignment: CallAlignment, side: str) -> None:
        """Draw the gold (``side="gold"``) or predicted (``"pred"``) chain of an alignment."""
        self._shown = (alignment, side)
        self.vertical = self._wants_vertical()
        c = theme.colors()
        self.scene_.clear()
        self.boxes, self.edge_items, self.marked_edges = [], [], 0
        self.scene_.setBackgroundBrush(QBrush(c["base"]))
        calls = alignment.gold if side == "gold" else (alignment.predicted or [])
        edges = alignment.gold_edges if side == "gold" else alignment.pred_edges
        if not calls:
            text = "no calls" if side == "gold" else "no calls could be read from this output"
            self.scene_.addText(text).setDefaultTextColor(c["muted"])
            return
        unmatched = {r.gold if side == "gold" else r.pred for r in alignment.rows
                     if r.status in ("missing", "extra") and (r.gold if side == "gold" else r.pred) is not None}
        differing = {(r.gold if side == "gold" else r.pred): set(r.differing) for r in alignment.rows
                     if r.status == "params differ"}
        depths = call_depths(calls)
        font = QFont(self.font())
        mono = theme.monospace_font()
        column_y: dict[int, float] = {}
        param_pos: dict[tuple[int, str], QPointF] = {}
        out_pos: dict[int, QPointF] = {}
        heights = [PAD * 2 + LINE_H * (1 + max(1, len(c_.get("parameters") or {})
                                               if isinstance(c_.get("parameters"), dict) else 1))
                   for c_ in calls]
        layer_top: dict[int, float] = {}  # vertical: the top of each layer's row
        top = 0.0
        for layer in sorted({d - 1 for d in depths}):
            layer_top[layer] = top
            top += max(h for h, d in zip(heights, depths) if d - 1 == layer) + ROW_GAP * 2
        row_x: dict[int, float] = {}
        for i, call in enumerate(calls):
            params = call.get("parameters") if isinstance(call.get("parameters"), dict) else {}
            col = depths[i] - 1
            h = heights[i]
            if self.vertical:
                x, y = row_x.get(col, 0.0), layer_top[col]
                row_x[col] = x + BOX_W + COL_GAP / 2
            else:
                x = col * (BOX_W + COL_GAP)
                y = column_y.get(col, 0.0)
                column_y[col] = y + h + ROW_GAP
            rect = QRectF(x, y, BOX_W, h)
            self.boxes.append(rect)
            border = QPen(c["bad"] if i in unmatched else c["border"], 2.5 if i in unmatched else 1.2)
            self.scene_.addRect(rect, border, QBrush(c["alt"]))
            title = self.scene_.addText(f"#{i + 1} {call.get('api_name', '?')}", font)
            title.setDefaultTextColor(c["bad"] if i in unmatched else c["text"])
            title.setPos(x + PAD - 4, y + PAD - 6)
            if i in unmatched:
                title.setToolTip("missing from the prediction" if side == "gold" else "not in the gold chain")
            if not params:
                note = self.scene_.addText("(no parameters)", mono)
                note.setDefaultTextColor(c["muted"])
                note.setPos(x + PAD, y + PAD + LINE_H - 4)
            for k, (name, value) in enumerate(params.items()):
                py = y + PAD + LINE_H * (k + 1)
                item = self.scene_.addText(f"{name} = {_short(value)}", mono)
                key = (side, i, str(name))
                if key in alignment.unk:
                    item.setDefaultTextColor(c["unk"])
                    item.setToolTip("value is UNK: the model could not fill it")
                elif key in alignment.dangling:
                    item.setDefaultTextColor(c["bad"])
                    item.setToolTip("placeholder that no earlier call returns")
                elif str(name) in differing.get(i, ()):
                    item.setDefaultTextColor(c["number"])
                    item.setToolTip("differs from the matched call")
                else:
                    item.setDefaultTextColor(c["text"])
                item.setPos(x + PAD, py - 4)
                param_pos[(i, str(name))] = QPointF(x, py + LINE_H / 2)
            out_pos[i] = QPointF(x + BOX_W / 2, y + h) if self.vertical else QPointF(x + BOX_W, y + PAD + LINE_H / 2)
        wrong = alignment.wrong_producer if side == "pred" else set()
        for index, e in enumerate(edges):
            start, end = out_pos.get(e.producer), param_pos.get((e.consumer, e.parameter))
            if start is None or end is None:
                continue
            bad = index in wrong
            pen = QPen(c["bad"] if bad else c["keyword"], 2.2 if bad else 1.6)
            if bad:
                pen.setStyle(Qt.PenStyle.DashLine)
                self.marked_edges += 1
            path = QPainterPath(start)
            if self.vertical:
                # Down out of the producer into the gap, left of the consumer's box, then into the
                # parameter's line: right angles in the gaps never cross a box or its title.
                gap_y = start.y() + ROW_GAP * 0.7
                lane_x = end.x() - 16 - 6 * (index % 3)  # parallel edges a few px apart
                path.lineTo(start.x(), gap_y)
                path.lineTo(lane_x, gap_y)
                path.lineTo(lane_x, end.y())
                path.lineTo(end)
            else:
                dx = max(40.0, abs(end.x() - start.x()) / 2)
                path.cubicTo(start + QPointF(dx, 0), end - QPointF(dx, 0), end)
            item = self.scene_.addPath(path, pen)
            item.setToolTip(f"{e.response} of call #{e.producer + 1} → {e.parameter} of call #{e.consumer + 1}"
                            + (" (wrong producer)" if bad else ""))
            self.edge_items.append(item)
            head = QPolygonF([end, end + QPointF(-9, -5), end + QPointF(-9, 5)])
            self.scene_.addPolygon(head, pen, QBrush(pen.color()))
        self.setSceneRect(self.scene_.itemsBoundingRect().adjusted(-20, -20, 20, 20))
        self._zoomed = False
        self._fit()

    def _wants_vertical(self) -> bool:
        view = self.viewport().rect()
        return not view.isEmpty() and view.height() > view.width() * 1.2

    def fit_scale(self) -> float:
        """The zoom that fits the whole graph in the view, kept within MIN_FIT..MAX_FIT."""
        rect, view = self.sceneRect(), self.viewport().rect()
        if rect.isEmpty() or view.isEmpty():
            return 1.0
        return max(MIN_FIT, min(MAX_FIT, view.width() / rect.width(), view.height() / rect.height()))

    def _fit(self) -> None:
        """Scale the graph to fill the view (unless the user zoomed) and centre it."""
        if self._zoomed:
            return
        self.resetTransform()
        scale = self.fit_scale()
        self.scale(scale, scale)
        self.centerOn(self.sceneRect().center())

    def fit(self) -> None:
        """Fit the graph to the view again, after the user zoomed."""
        self._zoomed = False
        self._fit()

    def mouseDoubleClickEvent(self, event) -> None:
        self.fit()
        super().mouseDoubleClickEvent(event)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self._shown is not None and not self._zoomed and self._wants_vertical() != self.vertical:
            self.show_chain(*self._shown)  # the view's shape flipped: lay the layers out the other way
            return
        self._fit()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._fit()  # a graph drawn while its tab was hidden was fitted to a stale size
