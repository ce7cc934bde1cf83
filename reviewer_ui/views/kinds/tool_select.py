"""tool_select (paper 002): the tool list with the expected YES/NO beside each
run's predicted YES/NO; disagreements stand out."""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QBrush, QFont
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from reviewer.kinds import ItemKind
from reviewer_ui import theme
from reviewer_ui.itemprep import ItemBundle
from reviewer_ui.views.kinds.base import KindLayout
from reviewer_ui.views.panes import TextPane, section
from reviewer_ui.widgets.wrapping_delegate import PADDING, RowsFollowWidth, WrappingDelegate


TOOL_MAX = 200  # px: a tool name wider than this wraps
TOOL_SHARE = 0.3  # ... and it takes at most this share of the table
TOOL_MIN = 80  # px: about 10 characters, a readable word per line
RUN_MAX = 60  # px: a run's YES/NO column; its name elides in the middle (whole in the tooltip)
ROOMY = 600  # px: a table this wide shows run names whole (up to their header's width)
DESC_MIN = 120  # px: the description is what the reviewer reads; the tool column gives way first


class _OnResize(QObject):
    """Calls ``slot`` after ``widget`` changed width."""

    def __init__(self, widget: QWidget, slot):
        super().__init__(widget)
        self.slot, self._width = slot, -1
        widget.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.Resize and obj.width() != self._width:
            self._width = obj.width()
            self.slot()
        return False


class ToolSelectLayout(KindLayout):
    kind = ItemKind.TOOL_SELECT
    material_left = False  # the offered tools (the Selection tab) are what is reviewed

    def __init__(self, runner, parent=None):
        super().__init__(runner, parent)
        # The table (tool, description, expected and one YES/NO column per run) needs the room;
        # the user message is a few lines that wrap. (At 40/60 the table had 336 px at 1366x768.)
        self.splitter.setSizes([300, 700])

    def build_left(self) -> QWidget:
        self.message = TextPane()
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setAlignment(Qt.AlignmentFlag.AlignTop)
        box = QWidget()
        col = QVBoxLayout(box)
        col.setContentsMargins(0, 0, 0, 0)
        col.addWidget(section("User message", self.message), 1)
        col.addWidget(self.summary, 1)
        return box

    def extra_tabs(self):
        self.table = QTableWidget()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        self.table.verticalHeader().setVisible(False)
        # Names and descriptions wrap (anywhere if need be) and rows grow, never cut to a tooltip.
        self.table.setItemDelegate(WrappingDelegate(self.table, {0, 1}))
        self.table.setProperty("wrappedColumns", [0, 1])
        # Descriptions wrap: row heights follow the width the description column gets.
        self._rows_follow = RowsFollowWidth(self.table)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        # Run names share long prefixes ("careful-nlt-2024-…"): cut in the middle, whole in the tooltip.
        header.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self._fit_on_resize = _OnResize(self.table.viewport(), self._fit_columns)
        return [(self.table, "Selection")]

    def _fit_columns(self) -> None:
        """YES/NO columns narrow (Expected whole, run names elided in the middle), the tool name
        its own width up to TOOL_MAX or TOOL_SHARE of the table (longer names wrap), and the
        description stretched over the rest: it is what is read, so it gets DESC_MIN before the
        tool column gets more than TOOL_MIN. (Sized to contents, the tool column took 200 of a
        310 px table and the description wrapped one word per line.)"""
        table, header = self.table, self.table.horizontalHeader()
        n = table.columnCount()
        if n < 3:
            return
        room = table.viewport().width()
        fixed = 0
        for col in range(2, n):
            content = table.sizeHintForColumn(col)
            head = header.sectionSizeHint(col)
            # Run names are cut only where the room is short (wide tables show them whole).
            width = max(content, head if col == 2 or room >= ROOMY else min(head, RUN_MAX))
            table.setColumnWidth(col, width)
            fixed += width
        want = max(table.sizeHintForColumn(0), header.sectionSizeHint(0))
        # Never narrower than its longest word (up to TOOL_MAX): "conversatio|n" is hard to read.
        metrics = table.fontMetrics()
        words = [w for r in range(table.rowCount()) if table.item(r, 0) for w in table.item(r, 0).text().split()]
        least = min(TOOL_MAX, max([TOOL_MIN] + [metrics.horizontalAdvance(w) + 2 * PADDING + 2 for w in words]))
        if room - fixed - least < DESC_MIN:  # still short: run columns down to their YES/NO cells
            for col in range(3, n):
                narrow = table.sizeHintForColumn(col)
                fixed -= table.columnWidth(col) - narrow
                table.setColumnWidth(col, narrow)
        tool = min(want, TOOL_MAX, max(least, int(room * TOOL_SHARE)))
        tool = max(min(tool, room - fixed - DESC_MIN), min(want, least))
        table.setColumnWidth(0, tool)
        table.setColumnWidth(1, max(DESC_MIN // 2, room - fixed - tool))
        table.resizeRowsToContents()

    def fill_left(self, bundle: ItemBundle) -> None:
        view, c = bundle.view, theme.colors()
        tools, expected, chosen = view["tools"], view["expected"], view["chosen"]
        self.message.set_text(bundle.detail.question)
        runs = [p.label for p in bundle.outputs]
        headers = ["Tool", "Description", "Expected"] + [p.output.run for p in bundle.outputs]
        self.table.clear()
        self.table.setColumnCount(len(headers))
        self.table.setRowCount(len(tools))
        self.table.setHorizontalHeaderLabels(headers)
        bold = QFont()
        bold.setBold(True)
        wrong = [0] * len(runs)
        for k, label in enumerate(runs):
            self.table.horizontalHeaderItem(3 + k).setToolTip(label)
        for r, tool in enumerate(tools):
            name = str(tool.get("name", "")) if isinstance(tool, dict) else str(tool)
            desc = str(tool.get("description", "")) if isinstance(tool, dict) else ""
            n = QTableWidgetItem(name)
            n.setToolTip(name)
            self.table.setItem(r, 0, n)
            d = QTableWidgetItem(desc)
            d.setToolTip(desc)
            self.table.setItem(r, 1, d)
            want = name in expected
            e = QTableWidgetItem("YES" if want else "NO")
            e.setForeground(QBrush(c["ok"] if want else c["muted"]))
            e.setFont(bold)
            self.table.setItem(r, 2, e)
            for k, picked in enumerate(chosen):
                if picked is None:
                    item = QTableWidgetItem("?")
                    item.setToolTip("no selection could be read from this output: "
                                    + "; ".join(view["notes"][k]))
                else:
                    got = name in picked
                    item = QTableWidgetItem("YES" if got else "NO")
                    if got != want:
                        wrong[k] += 1
                        item.setBackground(QBrush(c["error_bg"]))
                        item.setFont(bold)
                        item.setToolTip("disagrees with the expected answer")
                self.table.setItem(r, 3 + k, item)
        self._fit_columns()
        expected_text = html.escape(", ".join(sorted(expected))) or "none (no tool should be called)"
        verdicts = []
        for run, n, picked, notes in zip(runs, wrong, chosen, view["notes"]):
            verdict = "no selection could be read" if picked is None else "all correct" if n == 0 else f"{n} wrong"
            verdicts.append(f"{html.escape(run)}: {verdict}" + (f" <i>({html.escape('; '.join(notes))})</i>" if notes else ""))
        self.summary.setText(f"<b>Expected:</b> {expected_text}" + ("<br><br>" + "<br>".join(verdicts) if verdicts else ""))
