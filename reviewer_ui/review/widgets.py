"""Small widgets the review panels share: a row of exclusive choices, a banner
with an action, and one-line summaries of annotations."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from reviewer.review.rubric import Draft


class ChoiceRow(QWidget):
    """Exclusive checkable buttons, one per value; none chosen is allowed (an
    unanswered field). ``chosen(value)`` fires only on a user's click."""

    chosen = Signal(object)

    def __init__(self, choices: list[tuple[object, str]], parent: QWidget | None = None):
        super().__init__(parent)
        self.value: object = None
        self.buttons: dict[object, QPushButton] = {}
        # The chosen button must stand out at a glance (the default checked look is faint).
        # Every state is styled alike so a chosen button keeps its size.
        self.setStyleSheet(
            "QPushButton { border: 1px solid palette(mid); border-radius: 3px; padding: 3px 12px;"
            " background: palette(button); }"
            "QPushButton:hover { border-color: palette(highlight); }"
            "QPushButton:checked { background: palette(highlight); color: palette(highlighted-text);"
            " border-color: palette(highlight); }"
            "QPushButton:disabled { color: palette(mid); background: palette(window); }")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        for value, label in choices:
            b = QPushButton(label)
            b.setCheckable(True)
            b.setAutoDefault(False)
            b.clicked.connect(lambda _checked=False, v=value: self.chosen.emit(v))
            self.buttons[value] = b
            layout.addWidget(b)
        layout.addStretch(1)

    def set_value(self, value: object) -> None:
        """Show ``value`` as chosen (None: nothing chosen) without emitting ``chosen``."""
        self.value = value
        for v, b in self.buttons.items():
            b.blockSignals(True)
            b.setChecked(v == value)
            b.blockSignals(False)


class Banner(QFrame):
    """A coloured message line with one action button (hidden until ``show_message``)."""

    def __init__(self, action_text: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("reviewBanner")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.label = QLabel("")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.action = QPushButton(action_text)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.action)
        self.hide()

    def show_message(self, text: str, background: str) -> None:
        self.label.setText(text)
        self.setStyleSheet(f"QFrame#reviewBanner {{ background: {background}; border-radius: 3px; }}")
        self.show()


# The verdict keys of the annotation and adjudication panels.
VERDICT_KEYS = {"pass": "P", "fix": "F", "reject": "R"}


def summarize(draft: Draft) -> str:
    """One line naming everything an annotation says, for people (rich text, escaped)."""
    parts = [f"<b>{html.escape((draft.verdict or 'no verdict').capitalize())}</b>"]
    failed = [c for c, v in draft.checks.items() if v is False]
    if failed:
        parts.append("failed: " + ", ".join(html.escape(c) for c in failed))
    if draft.ambiguity:
        parts.append(f"ambiguity {html.escape(draft.ambiguity)}")
    if draft.difficulty:
        parts.append(f"difficulty {html.escape(draft.difficulty)}")
    if draft.error_tags:
        parts.append("tags: " + ", ".join(html.escape(t) for t in draft.error_tags))
    if draft.note:
        parts.append(f"“{html.escape(draft.note)}”")
    return " · ".join(parts)


def rich_label(object_name: str | None = None) -> QLabel:
    """A word-wrapped label that always reads its text as (escaped) HTML."""
    label = QLabel("")
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    if object_name:
        label.setObjectName(object_name)
    return label
