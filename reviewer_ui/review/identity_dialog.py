"""Review ▸ Identity…: who am I (persisted) and my role (stored in the team's store)."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit

from reviewer.errors import ReviewerError
from reviewer.review import annotate


class IdentityDialog(QDialog):
    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.setWindowTitle("Review identity")
        self.name = QLineEdit(session.name)
        self.role = QComboBox()
        self.role.addItems(["annotator", "adjudicator"])
        self.role.setCurrentText(session.role)
        self.name.textChanged.connect(self._name_changed)
        self.error = QLabel("")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        form = QFormLayout(self)
        form.addRow("Name", self.name)
        form.addRow("Role", self.role)
        form.addRow(QLabel("Annotations are saved under this name; the role is shared with the team's store."))
        form.addRow(self.error)
        form.addRow(buttons)

    def _name_changed(self, text: str) -> None:
        self.ok.setEnabled(bool(text.strip()))
        if text.strip():  # show the role this person already has
            self.role.setCurrentText(annotate.role_of(self.session.store, text.strip()))

    def accept(self) -> None:
        try:
            self.session.set_identity(self.name.text(), self.role.currentText())
        except (ValueError, ReviewerError) as exc:  # shown; the dialog stays open
            self.error.setText(f"Not changed: {exc}")
            return
        super().accept()
