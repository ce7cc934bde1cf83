"""function_call (BFCL): the conversation, the functions offered, and the
possible answers beside the model's output.

Possible answers list the acceptable values of each parameter, so the output is
compared with them "any of" (reviewer.scoring.bfcl_compare): the Parameters tab
shows each parameter's match or mismatch, and the gold-vs-output diff compares
the output with the possible answers resolved against it (42.0 against [42.0]
is no change)."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSplitter, QTabWidget, QWidget

from reviewer.kinds import ItemKind
from reviewer.scoring.bfcl_compare import compare_output, gold_for_diff
from reviewer_ui import theme
from reviewer_ui.itemprep import ItemBundle
from reviewer_ui.views.kinds.base import KindLayout
from reviewer_ui.views.panes import TextPane, section
from reviewer_ui.widgets.line_view import LineView


def messages_html(turns) -> str:
    """BFCL's question turns (a list of turns, each a list of messages) as HTML."""
    parts = []
    flat = [m for turn in turns for m in (turn if isinstance(turn, list) else [turn])]
    for m in flat:
        if not isinstance(m, dict):
            parts.append(f"<p>{html.escape(str(m))}</p>")
            continue
        role = html.escape(str(m.get("role", "?")))
        content = html.escape(str(m.get("content", ""))).replace("\n", "<br>")
        parts.append(f"<p><b>{role}:</b> {content}</p>")
    return "".join(parts) or "<i>no messages</i>"


_STATUS = {"match": "✓ match", "optional_absent": "✓ optional", "mismatch": "✗ mismatch",
           "missing": "✗ missing", "unexpected": "✗ unexpected"}
_NOWRAP = " style='white-space:nowrap'"


def params_html(comparison) -> str:
    """The per-parameter comparison as an HTML table of two columns: each parameter's name and
    verdict on a shaded row, then its output and the allowed values ("any of") under it, each
    value across the pane's width. (Four columns side by side left each value ~60 px at
    1366x768: 'America/New_York' broke into 'America / New_Yor / k' and "any of" was clipped
    at the pane's edge.)"""
    esc = lambda v: html.escape(repr(v))  # noqa: E731
    shade = theme.colors()["filler"].name()  # neutral: a group heading, not a difference
    parts = []
    if comparison.problem:
        parts.append(f"<p><b>The output could not be read as calls:</b> {html.escape(comparison.problem)}</p>")
    for call in comparison.calls:
        given = html.escape(call.output_function) if call.output_function else "<i>no call of this function</i>"
        parts.append(f"<p><b>{html.escape(call.function)}</b> — output: {given}</p>")
        rows = []
        for p in call.params:
            output = esc(p.value) if p.status not in ("missing", "optional_absent") else "—"
            allowed = ", ".join(esc(a) for a in p.allowed if a != "") + (" (or absent)" if "" in p.allowed else "")
            rows.append(f"<tr style='background-color:{shade}'><td{_NOWRAP}><b>{html.escape(p.name)}</b></td>"
                        f"<td{_NOWRAP}>{_STATUS.get(p.status, p.status)}</td></tr>"
                        f"<tr><td{_NOWRAP}>output</td><td>{output}</td></tr>"
                        f"<tr><td{_NOWRAP}>any of</td><td>{allowed or '—'}</td></tr>")
        parts.append("<table border='1' cellspacing='0' cellpadding='3' width='100%'>" + "".join(rows) + "</table>")
        parts.extend(f"<p><b>{html.escape(p.name)}</b>: {html.escape(p.reason)}</p>" for p in call.params if p.reason)
    for extra in comparison.extra_calls:
        parts.append(f"<p>✗ extra call: {html.escape(repr(extra))}</p>")
    return "".join(parts) or "<i>no possible answers for this item</i>"


class FunctionCallLayout(KindLayout):
    kind = ItemKind.FUNCTION_CALL

    def __init__(self, runner, parent=None):
        super().__init__(runner, parent)
        # The shared diff compares the gold as stored; for BFCL that is lists of allowed values,
        # so compare the output with the possible answers resolved "any of" instead.
        self._plain_compare = self.diff.compare
        self.diff.compare = self._compare_any_of

    def extra_tabs(self):
        self.params = TextPane()
        self.params.setObjectName("functionCallParams")
        return [(self.params, "Parameters")]

    def fill_tabs(self, bundle: ItemBundle, run_id: int | None) -> None:
        self._fill_params()

    def _on_output(self, p) -> None:
        self._fill_params()
        super()._on_output(p)

    def _comparison(self):
        p = self.outputs.current() if self.bundle is not None else None
        if p is None:
            return None
        detail = self.bundle.detail
        return compare_output(detail.gold, p.output.text, p.output.extra or {},
                              (detail.payload or {}).get("functions") or [], detail.category)

    def _fill_params(self) -> None:
        comparison = self._comparison()
        if comparison is None:
            self.params.setHtml("<i>no output to compare with the possible answers</i>")
        else:
            self.params.setHtml(params_html(comparison))

    def _compare_any_of(self, gold, value, left_title="Gold", right_title="Output") -> None:
        comparison = self._comparison()
        if comparison is not None and comparison.output_calls is not None and comparison.calls:
            gold, value = gold_for_diff(comparison), comparison.output_calls
            left_title = "Gold (any of the allowed values)"
        self._plain_compare(gold, value, left_title, right_title)

    def build_left(self) -> QWidget:
        self.messages = TextPane()
        self.functions = LineView()
        self.gold = LineView()
        docs = QTabWidget()
        docs.addTab(self.functions, "Functions")
        docs.addTab(self.gold, "Possible answers")
        self.docs = docs
        box = QSplitter(Qt.Orientation.Vertical)
        box.setObjectName("functionCallLeft")
        box.addWidget(section("Messages", self.messages))
        box.addWidget(docs)
        box.setStretchFactor(1, 2)
        return box

    def fill_left(self, bundle: ItemBundle) -> None:
        view = bundle.view
        self.messages.setHtml(messages_html(view["messages"]))
        self.functions.set_document(view["functions"])
        self.gold.set_document(view["gold"])
