"""Review ▸ Identity…: who am I. A local profile on SQLite (not access control); the
PostgreSQL login, read-only, in team mode."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit

from reviewer.errors import ReviewerError
from reviewer.review import Review

LOCAL_WARNING = ("Local profiles are not access control: anyone using this database can pick any name and role. "
                 "For a team, use PostgreSQL team mode (reviewer team init).")
TEAM_NOTE = ("Team mode: you are your PostgreSQL login and your rights are its roles; "
             "an admin changes them with `reviewer team add LOGIN --role ...`.")


class IdentityDialog(QDialog):
    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.setWindowTitle("Review identity")
        self.name = QLineEdit(session.name)
        self.role = QComboBox()
        self.role.addItems(["annotator", "adjudicator"] + (["admin"] if session.role == "admin" else []))
        self.role.setCurrentText(session.role)
        self.name.textChanged.connect(self._name_changed)
        self.note = QLabel(TEAM_NOTE if session.team else LOCAL_WARNING)
        self.note.setWordWrap(True)
        self.note.setObjectName("muted")
        self.error = QLabel("")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        if session.team:
            self.name.setReadOnly(True)
            self.role.setEnabled(False)
        form = QFormLayout(self)
        form.addRow("Login" if session.team else "Local profile", self.name)
        form.addRow("Role", self.role)
        form.addRow(self.note)
        form.addRow(self.error)
        form.addRow(buttons)

    def _name_changed(self, text: str) -> None:
        self.ok.setEnabled(bool(text.strip()))
        if text.strip() and not self.session.team:  # show the role this profile already has
            self.role.setCurrentText(Review(self.session.store, text.strip()).role)

    def accept(self) -> None:
        if self.session.team:
            super().accept()
            return
        try:
            self.session.set_identity(self.name.text(), self.role.currentText())
        except (ValueError, ReviewerError) as exc:  # shown; the dialog stays open
            self.error.setText(f"Not changed: {exc}")
            return
        super().accept()
