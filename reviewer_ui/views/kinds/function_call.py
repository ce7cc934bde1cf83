"""function_call (BFCL v3): the conversation, the functions offered, and the
possible answers beside the model's output."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSplitter, QTabWidget, QWidget

from reviewer.kinds import ItemKind
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


class FunctionCallLayout(KindLayout):
    kind = ItemKind.FUNCTION_CALL

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
