"""Small building blocks of the item layouts: titled sections, wrapped text and
the outputs pane (one run's output at a time)."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QStackedWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from reviewer_ui.itemprep import PreparedOutput
from reviewer_ui.textdoc import LineDocument
from reviewer_ui.widgets.elided_combo import ElidedComboBox
from reviewer_ui.widgets.line_view import LineView


def section(title: str, widget: QWidget, *extra: QWidget) -> QWidget:
    """``widget`` under a bold title; ``extra`` widgets go right of the title."""
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(2, 2, 2, 2)
    layout.setSpacing(2)
    head = QHBoxLayout()
    label = QLabel(title)
    label.setObjectName("sectionTitle")
    head.addWidget(label)
    head.addStretch(1)
    for w in extra:
        head.addWidget(w)
    layout.addLayout(head)
    layout.addWidget(widget, 1)
    return box


class TextPane(QTextBrowser):
    """Read-only wrapped text (questions, tasks, source documents)."""

    def __init__(self, parent=None, max_height: int | None = None):
        super().__init__(parent)
        self.setOpenExternalLinks(False)
        self.setReadOnly(True)
        if max_height:
            self.setMaximumHeight(max_height)
            self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)

    def set_text(self, text: str | None, empty: str = "—") -> None:
        self.setPlainText(text if text else empty)


class OutputsPane(QWidget):
    """One output of the item at a time, chosen by run; shows the model's text
    (Python highlighted for code answers), the benchmark's prediction, status and extras.

    Which of the three is shown is a small "Show" list, not tabs: this pane is often
    the narrow one (about 220 px at 1366x768), where three tabs scrolled ("Model text",
    "Prediction", "D…")."""

    VIEWS = ("Model text", "Prediction", "Details")

    output_changed = Signal(object)  # PreparedOutput or None

    def __init__(self, parent=None):
        super().__init__(parent)
        self.outputs: list[PreparedOutput] = []
        # Long run labels elide in the middle inside the box (runs often share a long prefix; the
        # tooltip and the open list show them whole) rather than widen the pane.
        self.picker = ElidedComboBox()
        self.picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.picker.setMinimumContentsLength(8)
        self.picker.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.picker.currentIndexChanged.connect(self._on_pick)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.RichText)
        self.text = LineView()
        self.prediction = LineView()
        self.extra = LineView()
        self.stack = QStackedWidget()
        self.view_picker = QComboBox()
        self.view_picker.setToolTip("What of the output to show: the model's text, the benchmark's "
                                    "prediction read from it, or the other recorded fields")
        for view, name in zip((self.text, self.prediction, self.extra), self.VIEWS):
            self.stack.addWidget(view)
            self.view_picker.addItem(name)
        self.view_picker.currentIndexChanged.connect(self.stack.setCurrentIndex)
        head = QHBoxLayout()
        title = QLabel("Output of")
        title.setObjectName("sectionTitle")
        head.addWidget(title)
        head.addWidget(self.picker, 1)
        shown = QHBoxLayout()
        show_label = QLabel("Show")
        show_label.setBuddy(self.view_picker)
        shown.addWidget(show_label)
        shown.addWidget(self.view_picker)
        shown.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(head)
        layout.addWidget(self.status)
        layout.addLayout(shown)
        layout.addWidget(self.stack, 1)

    def set_outputs(self, outputs: list[PreparedOutput], run_id: int | None) -> None:
        self.outputs = outputs
        self.picker.blockSignals(True)
        self.picker.clear()
        for p in outputs:
            self.picker.addItem(p.label)
        self.picker.setEnabled(bool(outputs))
        index = next((i for i, p in enumerate(outputs) if p.output.run_id == run_id), 0)
        self.picker.setCurrentIndex(index if outputs else -1)
        self.picker.blockSignals(False)
        self._on_pick(index if outputs else -1)

    def select_run(self, run_id: int | None) -> None:
        for i, p in enumerate(self.outputs):
            if p.output.run_id == run_id:
                self.picker.setCurrentIndex(i)
                return

    def current(self) -> PreparedOutput | None:
        i = self.picker.currentIndex()
        return self.outputs[i] if 0 <= i < len(self.outputs) else None

    def _on_pick(self, index: int) -> None:
        p = self.current()
        if p is None:
            self.status.setText("<i>No model output for this item. Import a run or rerun a model.</i>")
            for view in (self.text, self.prediction, self.extra):
                view.set_document(LineDocument([]))
            self.output_changed.emit(None)
            return
        o = p.output
        facts = [f"<b>{html.escape(o.status)}</b>"]
        if o.error:
            facts.append(f"error: {html.escape(o.error[:300])}")
        if o.latency_ms is not None:
            facts.append(f"{o.latency_ms:.0f} ms")
        if o.prompt_tokens is not None or o.completion_tokens is not None:
            facts.append(f"tokens {o.prompt_tokens or 0} in / {o.completion_tokens or 0} out")
        if not p.value_ok:
            facts.append("<i>no answer could be read from the text</i>")
        self.status.setText(" · ".join(facts))
        self.text.set_document(p.text)
        self.prediction.set_document(p.prediction or LineDocument([], banner="no separate prediction"))
        self.extra.set_document(p.extra or LineDocument([], banner="no other fields"))
        self.set_view_enabled(1, p.prediction is not None)
        self.set_view_enabled(2, p.extra is not None)
        if o.text is None and o.status == "ok" and p.prediction is not None and self.view_picker.currentIndex() == 0:
            # a file that records only the answer (toolJSON's official results: model_output null):
            # show the answer, not an empty "no text" the user has to look past on every item
            self.view_picker.setCurrentIndex(1)
        self.output_changed.emit(p)

    def set_view_enabled(self, index: int, enabled: bool) -> None:
        """Offer (or grey out) one of the views; a greyed-out view shown falls back to the text."""
        self.view_picker.model().item(index).setEnabled(enabled)
        if not enabled and self.view_picker.currentIndex() == index:
            self.view_picker.setCurrentIndex(0)

    def show_view(self, name: str) -> None:
        self.view_picker.setCurrentIndex(self.VIEWS.index(name))
