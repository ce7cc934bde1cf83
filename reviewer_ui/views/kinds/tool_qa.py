"""tool_qa (paper 000): question and gold above the tool response, shown as fast
highlighted text and as a lazy tree (with the reduced view), plus its schema."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSplitter, QTabWidget, QVBoxLayout, QWidget

from reviewer.kinds import ItemKind
from reviewer_ui.itemprep import ItemBundle
from reviewer_ui.textdoc import LineDocument, ensure_value, python_tokens
from reviewer_ui.views.kinds.base import KindLayout
from reviewer_ui.views.panes import TextPane, section
from reviewer_ui.widgets.json_tree_view import JsonTreeView
from reviewer_ui.widgets.line_view import LineView


class ToolQaLayout(KindLayout):
    kind = ItemKind.TOOL_QA

    def build_left(self) -> QWidget:
        self.question = TextPane(max_height=110)
        self.gold = QLabel()
        self.gold.setWordWrap(True)
        self.gold.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.meta = QLabel()
        self.meta.setObjectName("muted")
        self.meta.setWordWrap(True)
        self.meta.setTextFormat(Qt.TextFormat.PlainText)  # payload text as it is: no entities, no markup
        top = QWidget()
        col = QVBoxLayout(top)
        col.setContentsMargins(0, 0, 0, 0)
        col.addWidget(section("Question", self.question))
        col.addWidget(self.gold)
        col.addWidget(self.meta)

        self.response = LineView()
        self.tree = JsonTreeView()
        self.schema = LineView()
        self.gold_code = LineView()
        self.docs = QTabWidget()
        self.docs.addTab(self.response, "Response")
        self.docs.addTab(self.tree, "Tree")
        self.docs.addTab(self.schema, "Schema")
        self.docs.addTab(self.gold_code, "Gold code")
        self.docs.currentChanged.connect(self._fill_tree)
        self._tree_parsed = None
        self._tree_stale = False

        box = QSplitter(Qt.Orientation.Vertical)
        box.setObjectName("toolQaLeft")
        box.addWidget(top)
        box.addWidget(self.docs)
        box.setStretchFactor(1, 1)
        return box

    def fill_left(self, bundle: ItemBundle) -> None:
        d, view = bundle.detail, bundle.view
        self.question.set_text(d.question)
        self.gold.setText(f"<b>Gold answer:</b> {html.escape(str(d.gold))}"
                          + (" <i>(edited)</i>" if d.gold_edited else ""))
        p = d.payload or {}
        facts = [f"{k}: {p[k]}" for k in ("task", "app", "endpoint", "api_query", "exact_match_metric") if p.get(k)]
        self.meta.setText(" · ".join(str(f) for f in facts))
        self.response.set_document(view["response"].document)
        self.schema.set_document(view["schema"].document)
        code = p.get("gold_code")
        self.gold_code.set_document(LineDocument(code.split("\n"), python_tokens) if code
                                    else LineDocument([], banner="no gold code for this item"))
        self.docs.setTabEnabled(3, bool(code))
        self.docs.setTabEnabled(1, view["response"].ok)
        self._tree_parsed = view["response"]
        self._tree_stale = True
        self.tree.set_value(None)  # let go of the previous response now (its parsed value is in the helper)
        self._fill_tree(self.docs.currentIndex())

    def _fill_tree(self, index: int) -> None:
        # The tree is filled only when its tab is shown; a big response is
        # parsed for it then, on a worker (the text view never needed the value).
        if self.docs.widget(index) is not self.tree or not self._tree_stale or self._tree_parsed is None:
            return
        self._tree_stale = False
        parsed = self._tree_parsed
        if parsed.value_ready:
            self.tree.set_value(parsed.value)
        else:
            self.tree.set_value(None)
            self.runner.start("tree", ensure_value, parsed, on_result=self.tree.set_value)
