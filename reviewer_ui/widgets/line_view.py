"""LineView: a read-only text viewer that paints only the lines on screen.

Why not QPlainTextEdit: putting a 5 MB response (160k lines) into a
QTextDocument takes ~0.5 s and ~90 MB before any highlighting
(shared/NOTES.md). LineView keeps the lines as a Python list (a LineDocument
prepared on a worker thread) and on each paint tokenizes and draws just the
visible lines, clipped to the visible columns, so opening costs one paint.

It supports selection (mouse, Shift+click, Ctrl+A) and Ctrl+C, find ("/" or
F3 opens the find bar; Enter / Shift+Enter or F3 / Shift+F3 go to the next /
previous match, case-insensitive, wrapping), per-line backgrounds and
character spans (diffs, validation errors, highlighted support), a
line-number gutter, and ``scroll_to_line``. A monospace font is
assumed for column arithmetic; a wide glyph (CJK) may overlap its neighbour.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QFontMetricsF, QGuiApplication, QKeySequence, QPainter
from PySide6.QtWidgets import QAbstractScrollArea, QLineEdit

from reviewer_ui import theme
from reviewer_ui.textdoc import LineDocument, TextLines, cancel_pending

_TOKEN_CACHE_LINES = 4000


class LineView(QAbstractScrollArea):
    painted = Signal()  # after each paint that showed a document (benchmarks wait on it)
    line_clicked = Signal(int)  # document line index
    completed = Signal()  # a preview document was replaced by the whole one (LineDocument.pending)
    _pending_done = Signal(object)  # emitted from the thread that finished a pending document

    def __init__(self, parent=None, gutter: bool = True):
        super().__init__(parent)
        self._doc = LineDocument([])
        self._tokens: dict[int, list] = {}
        self._gutter_on = gutter
        self._anchor: tuple[int, int] | None = None
        self._cursor: tuple[int, int] | None = None
        self._current: int | None = None
        self._haystack: TextLines | None = None  # the lower-cased text, built on the first find
        self.find_bar = QLineEdit(self)
        self.find_bar.setPlaceholderText("Find: Enter next, Shift+Enter previous, Esc closes")
        self.find_bar.setClearButtonEnabled(True)
        self.find_bar.hide()
        self.find_bar.returnPressed.connect(lambda: self.find_next(self.find_bar.text()))
        self.find_bar.installEventFilter(self)
        self.setFont(theme.monospace_font())
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.viewport().setCursor(Qt.CursorShape.IBeamCursor)
        self.verticalScrollBar().valueChanged.connect(self._on_scrolled)
        self.horizontalScrollBar().valueChanged.connect(self.viewport().update)
        theme.state().changed.connect(self._on_theme)
        self._pending_done.connect(self._on_pending_done, Qt.ConnectionType.QueuedConnection)
        self._metrics()

    # -- content ----------------------------------------------------------------

    def document(self) -> LineDocument:
        return self._doc

    def set_document(self, doc: LineDocument) -> None:
        if self._doc is not doc:
            cancel_pending(self._doc)  # a big text no longer shown: spare the helper its work
            if doc.pending is not None and doc.pending.cancelled() and doc.restart is not None:
                doc.pending = doc.restart()  # shown again after it was cancelled
        self._doc = doc
        self._haystack = None
        self._tokens.clear()
        self._anchor = self._cursor = None
        self._current = None
        self._metrics()
        self.verticalScrollBar().setValue(0)
        self.horizontalScrollBar().setValue(0)
        self._update_scrollbars()
        self.viewport().update()
        if doc.pending is not None:
            doc.pending.add_done_callback(lambda _f, doc=doc: self._signal_pending_done(doc))

    def _signal_pending_done(self, doc: LineDocument) -> None:
        try:  # runs in whichever thread finished the document (queued to the GUI thread)
            self._pending_done.emit(doc)
        except RuntimeError:  # this view was deleted meanwhile: nobody waits for it
            pass

    def _on_pending_done(self, preview: LineDocument) -> None:
        """Swap the whole document in for its preview, where the user is looking."""
        if preview is not self._doc or preview.pending.cancelled():
            return  # another document was shown meanwhile
        try:
            doc = preview.pending.result()
        except Exception as exc:  # noqa: BLE001 - shown in place of the text, never raised at the user
            doc = LineDocument(preview.lines, preview.tokenizer, banner=f"cannot show the whole text: {exc}")
        top, left = self.verticalScrollBar().value(), self.horizontalScrollBar().value()
        self._doc = doc
        self._haystack = None
        self._tokens.clear()
        self._metrics()
        self._update_scrollbars()
        self.verticalScrollBar().setValue(top)
        self.horizontalScrollBar().setValue(left)
        self.viewport().update()
        self.completed.emit()

    def set_lines(self, lines: list[str], tokenizer=None) -> None:
        kwargs = {"tokenizer": tokenizer} if tokenizer else {}
        self.set_document(LineDocument(lines, **kwargs))

    def set_current_line(self, index: int | None) -> None:
        """Mark one line (e.g. the current change of a diff) and show it."""
        self._current = index
        if index is not None:
            self.scroll_to_line(index)
        self.viewport().update()

    def scroll_to_line(self, index: int, center: bool = True) -> None:
        first = self.first_visible_line()
        visible = self.visible_line_count()
        if center:
            target = index - visible // 3
        elif index < first:
            target = index
        elif index >= first + visible - 1:
            target = index - visible + 2
        else:
            return
        self.verticalScrollBar().setValue(max(0, target))

    def first_visible_line(self) -> int:
        return self.verticalScrollBar().value()

    def visible_line_count(self) -> int:
        top = self._banner_height()
        return max(1, (self.viewport().height() - top) // self._lh)

    def selected_text(self) -> str:
        sel = self._selection()
        if sel is None:
            return ""
        (l0, c0), (l1, c1) = sel
        lines = self._doc.lines
        if l0 == l1:
            return lines[l0][c0:c1]
        parts = [lines[l0][c0:]] + lines[l0 + 1 : l1] + [lines[l1][:c1]]
        return "\n".join(parts)

    def select_all(self) -> None:
        if self._doc.lines:
            self._anchor = (0, 0)
            last = len(self._doc.lines) - 1
            self._cursor = (last, len(self._doc.lines[last]))
            self.viewport().update()

    # -- find -------------------------------------------------------------------------

    def open_find(self) -> None:
        self.find_bar.setFixedWidth(min(360, max(160, self.viewport().width() - 40)))
        self.find_bar.move(self.viewport().x() + self.viewport().width() - self.find_bar.width() - 8,
                           self.viewport().y() + 4)
        self.find_bar.show()
        self.find_bar.raise_()
        self.find_bar.setFocus()
        self.find_bar.selectAll()

    def find_next(self, needle: str, backwards: bool = False) -> bool:
        """Select the next (or previous) match of ``needle`` after the cursor,
        wrapping around; False (and a red find bar) when there is none."""
        if not needle or not self._doc.lines:
            return False
        if self._haystack is None:
            self._haystack = TextLines(self._doc.text().lower())
        hay, low = self._haystack, needle.lower()
        sel = self._selection()
        if backwards:
            here = hay.offset(*sel[0]) if sel else hay.offset(*(self._cursor or (0, 0)))
            found = hay.text.rfind(low, 0, max(0, here + len(low) - 1))
            if found == -1:
                found = hay.text.rfind(low)
        else:
            here = hay.offset(*sel[0]) + 1 if sel else hay.offset(*(self._cursor or (0, 0)))
            found = hay.text.find(low, here)
            if found == -1:
                found = hay.text.find(low)
        miss = theme.colors()["error_bg"].name()
        self.find_bar.setStyleSheet("" if found != -1 else f"QLineEdit {{ background: {miss}; }}")
        if found == -1:
            return False
        self._anchor = hay.position(found)
        self._cursor = hay.position(found + len(low))
        self.scroll_to_line(self._anchor[0], center=False)
        cols = int((self.viewport().width() - self._gw) / self._cw)
        hs = self.horizontalScrollBar()
        if not hs.value() <= self._anchor[1] < hs.value() + cols - len(low):
            hs.setValue(max(0, self._anchor[1] - cols // 3))
        self.viewport().update()
        return True

    def eventFilter(self, obj, event) -> bool:
        if obj is self.find_bar and event.type() == event.Type.KeyPress:
            if event.key() == Qt.Key.Key_Escape:
                self.find_bar.hide()
                self.setFocus()
                return True
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and (
                event.modifiers() & Qt.KeyboardModifier.ShiftModifier
            ):
                self.find_next(self.find_bar.text(), backwards=True)
                return True
            if event.key() == Qt.Key.Key_F3:
                self.find_next(self.find_bar.text(), bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier))
                return True
        return super().eventFilter(obj, event)

    def copy(self) -> None:
        text = self.selected_text()
        if text:
            QGuiApplication.clipboard().setText(text)

    # -- geometry -----------------------------------------------------------------

    def _metrics(self) -> None:
        fm = QFontMetricsF(self.font())
        # The true (fractional) advance: a rounded one drifts along long lines.
        self._cw = max(1.0, fm.horizontalAdvance("0" * 100) / 100)
        self._lh = int(fm.lineSpacing()) + 1
        self._ascent = fm.ascent()
        digits = len(str(max(1, len(self._doc.lines))))
        self._gw = int((digits + 2) * self._cw) if self._gutter_on else int(self._cw // 2)

    def _banner_height(self) -> int:
        return self._lh + 6 if self._doc.banner else 0

    def _update_scrollbars(self) -> None:
        n = len(self._doc.lines)
        visible = self.visible_line_count()
        vs = self.verticalScrollBar()
        vs.setRange(0, max(0, n - visible + 1))
        vs.setPageStep(visible)
        vs.setSingleStep(1)
        cols = max(1, int((self.viewport().width() - self._gw) / self._cw))
        hs = self.horizontalScrollBar()
        hs.setRange(0, max(0, self._doc.max_len - cols + 2))
        hs.setPageStep(cols)
        hs.setSingleStep(4)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._update_scrollbars()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == event.Type.FontChange:
            self._metrics()
            self._update_scrollbars()

    def _on_theme(self, _name: str) -> None:
        self.viewport().update()

    def _on_scrolled(self, value: int) -> None:
        self.viewport().update()

    # -- painting ---------------------------------------------------------------

    def _tokens_of(self, index: int) -> list:
        toks = self._tokens.get(index)
        if toks is None:
            if len(self._tokens) > _TOKEN_CACHE_LINES:
                self._tokens.clear()
            toks = self._doc.tokenizer(self._doc.lines[index])
            self._tokens[index] = toks
        return toks

    def paintEvent(self, event) -> None:
        c = theme.colors()
        p = QPainter(self.viewport())
        try:
            self._paint(p, c)
        finally:
            p.end()
        if self._doc.lines or self._doc.banner:
            self.painted.emit()

    def _paint(self, p: QPainter, c) -> None:
        vp = self.viewport().rect()
        p.fillRect(vp, c["base"])
        doc, lh, cw, gw = self._doc, self._lh, self._cw, self._gw
        top = self._banner_height()
        if doc.banner:
            p.fillRect(QRect(0, 0, vp.width(), top), c.get(doc.banner_role, c["error_bg"]))
            p.setPen(c["text"])
            p.drawText(QRect(6, 0, vp.width() - 12, top), Qt.AlignmentFlag.AlignVCenter, doc.banner)
        first = self.first_visible_line()
        last = min(len(doc.lines), first + self.visible_line_count() + 1)
        col0 = self.horizontalScrollBar().value()
        cols = int((vp.width() - gw) / cw) + 2
        col1 = col0 + cols
        sel = self._selection()
        text_x = gw - col0 * cw
        longest = 0
        for index in range(first, last):
            y = top + (index - first) * lh
            line = doc.lines[index]
            longest = max(longest, len(line))
            role = doc.roles.get(index)
            if index == self._current:
                p.fillRect(QRect(gw, y, vp.width() - gw, lh), c["current"])
            elif role:
                p.fillRect(QRect(gw, y, vp.width() - gw, lh), c.get(role, c["changed"]))
            if sel is not None:
                self._paint_selection(p, c, sel, index, line, y, col0, text_x)
            for s, e, srole in doc.spans.get(index, ()):
                s, e = max(s, col0), min(e, col1)
                if e > s:
                    p.fillRect(QRectF(text_x + s * cw, y, (e - s) * cw, lh), c.get(srole, c["span_changed"]))
            if role == "filler":
                continue
            baseline = y + self._ascent
            if len(line) > col0:
                self._paint_text(p, c, index, line, baseline, col0, col1, text_x)
        if longest > doc.max_len:  # big documents only know the longest line seen so far
            doc.max_len = longest
            QTimer.singleShot(0, self, self._update_scrollbars)
        if self._gutter_on:
            p.fillRect(QRect(0, top, gw - 4, vp.height() - top), c["gutter_bg"])
            p.setPen(c["gutter"])
            for index in range(first, last):
                n = doc.number(index)
                if n is not None:
                    y = top + (index - first) * lh
                    p.drawText(QRect(0, y, gw - 10, lh), Qt.AlignmentFlag.AlignRight, str(n))

    def _paint_text(self, p, c, index, line, baseline, col0, col1, text_x) -> None:
        cw = self._cw
        default = c["text"]
        pos = col0
        for s, e, kind in self._tokens_of(index):
            if e <= col0:
                continue
            if s >= col1:
                break
            if s > pos:  # untokenized text before this token
                p.setPen(default)
                p.drawText(QPointF(text_x + pos * cw, baseline), line[pos : min(s, col1)])
            s2 = max(s, col0)
            p.setPen(c.get(kind, default))
            p.drawText(QPointF(text_x + s2 * cw, baseline), line[s2 : min(e, col1)])
            pos = e
        if pos < min(len(line), col1):
            p.setPen(default)
            p.drawText(QPointF(text_x + pos * cw, baseline), line[pos:col1])

    def _paint_selection(self, p, c, sel, index, line, y, col0, text_x) -> None:
        (l0, c0), (l1, c1) = sel
        if not l0 <= index <= l1:
            return
        s = c0 if index == l0 else 0
        e = c1 if index == l1 else len(line) + 1
        s = max(s, col0)
        if e > s:
            p.fillRect(QRectF(text_x + s * self._cw, y, (e - s) * self._cw, self._lh), c["selection"])

    # -- mouse and keys -------------------------------------------------------------

    def _position_at(self, point: QPoint) -> tuple[int, int] | None:
        if not self._doc.lines:
            return None
        row = (point.y() - self._banner_height()) // self._lh
        index = min(len(self._doc.lines) - 1, max(0, self.first_visible_line() + row))
        col = self.horizontalScrollBar().value() + round((point.x() - self._gw) / self._cw)
        return index, min(len(self._doc.lines[index]), max(0, col))

    def _selection(self):
        if self._anchor is None or self._cursor is None or self._anchor == self._cursor:
            return None
        return tuple(sorted((self._anchor, self._cursor)))

    def mousePressEvent(self, event) -> None:
        pos = self._position_at(event.position().toPoint())
        if pos is None or event.button() != Qt.MouseButton.LeftButton:
            return super().mousePressEvent(event)
        if event.modifiers() & Qt.KeyboardModifier.ShiftModifier and self._anchor is not None:
            self._cursor = pos
        else:
            self._anchor = self._cursor = pos
        self.line_clicked.emit(pos[0])
        self.viewport().update()

    def mouseMoveEvent(self, event) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton and self._anchor is not None:
            pos = self._position_at(event.position().toPoint())
            if pos is not None:
                self._cursor = pos
                if event.position().y() > self.viewport().height():
                    self.verticalScrollBar().setValue(self.verticalScrollBar().value() + 1)
                elif event.position().y() < 0:
                    self.verticalScrollBar().setValue(self.verticalScrollBar().value() - 1)
                self.viewport().update()

    def mouseDoubleClickEvent(self, event) -> None:
        pos = self._position_at(event.position().toPoint())
        if pos is None:
            return
        line = self._doc.lines[pos[0]]
        s = e = pos[1]
        while s > 0 and (line[s - 1].isalnum() or line[s - 1] in "_-."):
            s -= 1
        while e < len(line) and (line[e].isalnum() or line[e] in "_-."):
            e += 1
        self._anchor, self._cursor = (pos[0], s), (pos[0], e)
        self.viewport().update()

    def keyPressEvent(self, event) -> None:
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy()
        elif event.matches(QKeySequence.StandardKey.SelectAll):
            self.select_all()
        elif event.key() == Qt.Key.Key_Slash:
            self.open_find()
        elif event.key() == Qt.Key.Key_F3:
            if self.find_bar.text():
                self.find_next(self.find_bar.text(), bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier))
            else:
                self.open_find()
        elif event.key() == Qt.Key.Key_Home and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.verticalScrollBar().setValue(0)
        elif event.key() == Qt.Key.Key_End and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.verticalScrollBar().setValue(self.verticalScrollBar().maximum())
        else:
            super().keyPressEvent(event)
