"""extraction (DeepJSONEval, paper 001): the source text with the spans that
support each gold value highlighted, the schema, and the gold beside the output."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSplitter, QTabWidget, QVBoxLayout, QWidget

from reviewer.kinds import ItemKind
from reviewer_ui import theme
from reviewer_ui.itemprep import ItemBundle
from reviewer_ui.views.kinds.base import KindLayout
from reviewer_ui.views.panes import TextPane, section
from reviewer_ui.widgets.line_view import LineView


def highlighted_html(text: str, spans: list[tuple[int, int, str]], color: str) -> str:
    """``text`` as HTML with each span on a coloured background (overlaps merged,
    the first span wins), the supported JSON path in the tooltip."""
    out, pos = [], 0
    for start, end, path in spans:
        if start < pos:
            continue
        out.append(html.escape(text[pos:start]))
        out.append(f'<span style="background-color:{color}" title="{html.escape(path)}">'
                   f"{html.escape(text[start:end])}</span>")
        pos = end
    out.append(html.escape(text[pos:]))
    body = "".join(out).replace("\n", "<br>")
    return f"<div style='line-height:140%'>{body}</div>"


class ExtractionLayout(KindLayout):
    kind = ItemKind.EXTRACTION

    def build_left(self) -> QWidget:
        self.source = TextPane()
        self.support_note = QLabel()
        self.support_note.setWordWrap(True)
        self.support_note.setObjectName("muted")
        self.gold = LineView()
        self.schema = LineView()
        docs = QTabWidget()
        docs.addTab(self.gold, "Gold")
        docs.addTab(self.schema, "Schema")
        # The note sits in a layout under the text, not in the splitter: a splitter pane keeps the
        # height it was first given, and the note wrapped to two lines was cut in half there.
        top = QWidget()
        column = QVBoxLayout(top)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(section("Source text (gold values highlighted)", self.source), 1)
        column.addWidget(self.support_note)
        box = QSplitter(Qt.Orientation.Vertical)
        box.setObjectName("extractionLeft")
        box.addWidget(top)
        box.addWidget(docs)
        return box

    def fill_left(self, bundle: ItemBundle) -> None:
        view = bundle.view
        color = theme.colors()["support"].name()
        self.source.setHtml(highlighted_html(view["text"], view["supports"], color))
        found = len({path for _, _, path in view["supports"]})
        missing = view["unsupported"]
        note = f"{found} gold value(s) found in the text"
        if missing:
            shown = ", ".join(missing[:8]) + (" …" if len(missing) > 8 else "")
            note += f"; not found verbatim: {shown}"
        self.support_note.setText(note)
        self.gold.set_document(view["gold"])
        self.schema.set_document(view["schema"].document)
