"""call_chain (NesTools, paper 004): the task and API list, gold and predicted
calls aligned in a table, and the data-flow graph of either chain."""

from __future__ import annotations

import json

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QBrush
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from reviewer.jsondiff.callshape import read_chains
from reviewer.kinds import ItemKind
from reviewer_ui import theme
from reviewer_ui.callchain import CallAlignment
from reviewer_ui.itemprep import ItemBundle, PreparedOutput
from reviewer_ui.views.kinds.base import KindLayout
from reviewer_ui.views.panes import TextPane, section
from reviewer_ui.widgets.call_graph import CallGraphView
from reviewer_ui.widgets.line_view import LineView
from reviewer_ui.widgets.wrapping_delegate import RowsFollowWidth, WrappingDelegate

STATUS_ROLE = {"match": "ok", "params differ": "number", "missing": "bad", "extra": "bad"}


def call_text(call: dict | None) -> str:
    if call is None:
        return ""
    params = call.get("parameters") if isinstance(call.get("parameters"), dict) else {}
    args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in params.items())
    responses = call.get("responses")
    if isinstance(responses, dict):
        responses = list(responses.values())
    out = f" → {', '.join(map(str, responses))}" if responses else ""
    return f"{call.get('api_name', '?')}({args}){out}"


STATUS_SHARE = 0.3

CHAIN_SHAPE_TIP = ("Models answer NesTools with \"responses\" as an object of name → placeholder and an api_id; "
                   "the gold lists the placeholders and has no api_id. For this comparison only, the output's "
                   "responses are read as the list of their values (the names are not scored), the gold's api_ids "
                   "are taken from the item's API list (calls are matched by api_id), and keys the scorer never "
                   "reads are left out. Scores are unchanged.")


class _OnResize(QObject):
    """Calls ``slot`` after ``widget`` changed size."""

    def __init__(self, widget: QWidget, slot):
        super().__init__(widget)
        self.slot = slot
        widget.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.slot()
        return False


class CallChainLayout(KindLayout):
    kind = ItemKind.CALL_CHAIN

    def build_left(self) -> QWidget:
        self.task = TextPane(max_height=120)
        self.apis = LineView()
        box = QSplitter(Qt.Orientation.Vertical)
        box.setObjectName("callChainLeft")
        box.addWidget(section("Task", self.task))
        box.addWidget(section("APIs offered", self.apis))
        box.setStretchFactor(1, 1)
        return box

    def extra_tabs(self):
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.calls = QTableWidget(0, 4)
        self.calls.setHorizontalHeaderLabels(["#", "Gold call", "Predicted call", "Status"])
        self.calls.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.calls.setWordWrap(True)
        self.calls.verticalHeader().setVisible(False)
        # Calls and statuses wrap (anywhere if need be) and rows grow: a call cut to "searc…"
        # with the rest in a tooltip cannot be reviewed. tools/fitcheck checks "wrappedColumns".
        self.calls.setItemDelegate(WrappingDelegate(self.calls, {1, 2, 3}))
        self.calls.setProperty("wrappedColumns", [1, 2, 3])
        self._rows_follow = RowsFollowWidth(self.calls)
        h = self.calls.horizontalHeader()
        h.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        h.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        # The status ("params differ: flight_id, passenger…") wraps in at most STATUS_SHARE of the
        # table: sized to its text, it squeezed the two calls to "s…" in a 290 px pane.
        h.setSectionResizeMode(3, QHeaderView.ResizeMode.Interactive)
        self._fit_on_resize = _OnResize(self.calls, self._fit_call_columns)
        table_box = QWidget()
        col = QVBoxLayout(table_box)
        col.setContentsMargins(2, 2, 2, 2)
        col.addWidget(self.summary)
        col.addWidget(self.calls, 1)

        self.which = QComboBox()
        self.which.addItems(["Predicted chain", "Gold chain"])
        self.which.currentIndexChanged.connect(self._draw_graph)
        self.graph = CallGraphView()
        legend = QLabel("red border: call unmatched · red dashed arrow: wrong producer · amber: UNK value · "
                        "red text: unknown placeholder · Ctrl+wheel zooms")
        legend.setObjectName("muted")
        legend.setWordWrap(True)
        graph_box = QWidget()
        gcol = QVBoxLayout(graph_box)
        gcol.setContentsMargins(2, 2, 2, 2)
        top = QHBoxLayout()
        top.addWidget(self.which, 1)
        gcol.addLayout(top)
        gcol.addWidget(legend)  # under the picker, the pane's full width (beside it, it was a narrow column)
        gcol.addWidget(self.graph, 1)
        self._alignment: CallAlignment | None = None
        return [(table_box, "Calls"), (graph_box, "Graph")]

    def _fit_call_columns(self) -> None:
        """Status: its text's width, at most STATUS_SHARE of the table (it wraps); the calls share the rest."""
        want = max(self.calls.sizeHintForColumn(3), self.calls.horizontalHeader().sectionSizeHint(3))
        self.calls.setColumnWidth(3, max(70, min(want, int(self.calls.viewport().width() * STATUS_SHARE))))
        self.calls.resizeRowsToContents()

    def diff_pair(self, p: PreparedOutput) -> tuple:
        """The output in the gold's shape, as the NesTools scorer reads it (display only)."""
        payload = self.bundle.detail.payload or {}
        pair = read_chains(self.bundle.detail.gold, p.value if p.value_ok else None,
                           payload.get("apis"), payload.get("api_ids"))
        if pair is None:
            return super().diff_pair(p)
        return pair.left, pair.right, pair.left_note, pair.right_note, CHAIN_SHAPE_TIP

    def fill_left(self, bundle: ItemBundle) -> None:
        self.task.set_text(bundle.detail.question)
        self.apis.set_document(bundle.view["apis"])

    def fill_tabs(self, bundle: ItemBundle, run_id: int | None) -> None:
        index = next((i for i, p in enumerate(bundle.outputs) if p.output.run_id == run_id), 0)
        if bundle.outputs:
            self._alignment = bundle.view["alignments"][index]
            label = bundle.outputs[index].label
        else:
            self._alignment = bundle.view["gold_alignment"]
            label = None
        self.which.setItemText(0, f"Predicted chain ({label})" if label else "Predicted chain (no output)")
        self._fill_table(self._alignment, label)
        self._draw_graph()

    def _fill_table(self, a: CallAlignment, label: str | None) -> None:
        c = theme.colors()
        self.calls.setRowCount(len(a.rows))
        for r, row in enumerate(a.rows):
            gold = a.gold[row.gold] if row.gold is not None else None
            pred = a.predicted[row.pred] if (row.pred is not None and a.predicted) else None
            number = f"{row.gold + 1}" if row.gold is not None else "–"
            cells = [number, call_text(gold), call_text(pred), row.status]
            if row.differing:
                cells[3] += ": " + ", ".join(row.differing)
            for k, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if k == 3:
                    item.setForeground(QBrush(c[STATUS_ROLE.get(row.status, "text")]))
                self.calls.setItem(r, k, item)
        self.calls.resizeColumnToContents(0)
        self._fit_call_columns()
        if label is None:
            self.summary.setText(f"{len(a.gold)} gold call(s); no model output for this item.")
        elif a.predicted is None:
            self.summary.setText(f"<b>{label}</b>: no list of calls could be read from the output.")
        else:
            counts = {s: sum(1 for r in a.rows if r.status == s) for s in STATUS_ROLE}
            parts = [f"{n} {s}" for s, n in counts.items() if n]
            extra = []
            if a.wrong_producer:
                extra.append(f"{len(a.wrong_producer)} wrong producer(s)")
            unk = sum(1 for side, _, _ in a.unk if side == "pred")
            if unk:
                extra.append(f"{unk} UNK value(s)")
            self.summary.setText(f"<b>{label}</b>: {len(a.gold)} gold, {len(a.predicted)} predicted call(s): "
                                 + ", ".join(parts + extra))

    def _draw_graph(self, *_args) -> None:
        if self._alignment is not None:
            self.graph.show_chain(self._alignment, "pred" if self.which.currentIndex() == 0 else "gold")
