"""tool_select (paper 002): the tool list with the expected YES/NO beside each
run's predicted YES/NO; disagreements stand out."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
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
from reviewer_ui.widgets.wrapping_delegate import RowsFollowWidth, WrappingDelegate


class ToolSelectLayout(KindLayout):
    kind = ItemKind.TOOL_SELECT
    material_left = False  # the offered tools (the Selection tab) are what is reviewed

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
        return [(self.table, "Selection")]

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
            self.table.setItem(r, 0, QTableWidgetItem(name))
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
        # Names and YES/NO columns take what they need (names at most 200 px);
        # descriptions wrap in the rest of the pane.
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        for col in range(self.table.columnCount()):
            if col != 1:
                self.table.resizeColumnToContents(col)
        self.table.setColumnWidth(0, min(self.table.columnWidth(0), 200))
        # The description takes the rest of the pane (no sideways scrolling to read it); rows grow.
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.resizeRowsToContents()
        expected_text = html.escape(", ".join(sorted(expected))) or "none (no tool should be called)"
        verdicts = []
        for run, n, picked, notes in zip(runs, wrong, chosen, view["notes"]):
            verdict = "no selection could be read" if picked is None else "all correct" if n == 0 else f"{n} wrong"
            verdicts.append(f"{html.escape(run)}: {verdict}" + (f" <i>({html.escape('; '.join(notes))})</i>" if notes else ""))
        self.summary.setText(f"<b>Expected:</b> {expected_text}" + ("<br><br>" + "<br>".join(verdicts) if verdicts else ""))
