"""Review ▸ Identity…: who am I. A local profile on SQLite (not access control); the
PostgreSQL login, read-only, in team mode.

Nothing here reads the database on the GUI thread: the role a typed name already has is
looked up in a job (the newest name wins; a role picked by hand wins over a lookup still
running), and OK signs in through the session, whose job writes the role and reads it back.
The dialog stays open, saying so, until that job lands; a refusal is shown in the dialog."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit

from reviewer.errors import ReviewerError
from reviewer.review.annotate import role_of
from reviewer_ui.review.session import refusal

LOCAL_WARNING = ("Local profiles are not access control: anyone using this database can pick any name and role. "
                 "For a team, use PostgreSQL team mode (reviewer team init).")
TEAM_NOTE = ("Team mode: you are your PostgreSQL login and your rights are its roles; "
             "an admin changes them with `reviewer team add LOGIN --role ...`.")


def _role_of(_ctx, store, name: str) -> str:
    """Job body (worker thread, no widgets): the role the local profile ``name`` has."""
    return role_of(store, name)


class IdentityDialog(QDialog):
    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.runner = session.runner
        self._lookup = 0  # the newest lookup of a typed name's role; older ones are not shown
        self._looking_up = False  # the newest lookup is still running
        self._submit_after_lookup = False  # OK was pressed while it ran: sign in once it lands
        self._job = None  # the sign-in this dialog started, until it lands
        self._waiting = False  # opened while the session signs in: shown once it has landed
        self.setWindowTitle("Review identity")
        self.name = QLineEdit(session.name)
        self.role = QComboBox()
        self.role.addItems(["annotator", "adjudicator"] + (["admin"] if session.role == "admin" else []))
        self.role.setCurrentText(session.role)
        self.name.textChanged.connect(self._name_changed)
        self.role.activated.connect(self._role_picked)  # by hand (mouse or keys), not by a lookup
        self.note = QLabel(TEAM_NOTE if session.team else LOCAL_WARNING)
        self.note.setWordWrap(True)
        self.note.setObjectName("muted")
        self.error = QLabel("")
        self.error.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        if session.team:
            self.name.setReadOnly(True)
            self.role.setEnabled(False)
        self.form = form = QFormLayout(self)
        form.addRow("Login" if session.team else "Local profile", self.name)
        form.addRow("Role", self.role)
        form.addRow(self.note)
        form.addRow(self.error)
        form.addRow(buttons)
        session.changed.connect(self._session_changed)
        if session.signing_in:
            # Who this is (even whether it is team mode) is not known yet, and OK would write the
            # role shown, an assumption: the fields wait for the sign-in to land.
            self._waiting = True
            self._set_busy(True, session.waiting_text())
        elif not session.signed_in:  # signed out: show the profile's own role, looked up
            self.error.setText(session.waiting_text())
            self._name_changed(self.name.text())

    @property
    def busy(self) -> bool:
        """Signing in (or waiting for the role lookup, or the session's sign-in): the fields are locked."""
        return self._job is not None or self._submit_after_lookup or self._waiting

    def _session_changed(self) -> None:
        """The session's own sign-in (running when the dialog opened) landed: show who it found."""
        if not self._waiting or self.session.signing_in:
            return
        self._waiting = False
        team = self.session.team
        self.name.blockSignals(True)  # not a typed name: no lookup
        self.name.setText(self.session.name)
        self.name.blockSignals(False)
        self._show_role(self.session.role)
        self.note.setText(TEAM_NOTE if team else LOCAL_WARNING)
        self.form.labelForField(self.name).setText("Login" if team else "Local profile")
        self._set_busy(False)
        if not self.session.signed_in:
            self.error.setText(self.session.waiting_text())
            self._name_changed(self.name.text())

    # -- the role a typed name already has ---------------------------------------------------------

    def _name_changed(self, text: str) -> None:
        name = text.strip()
        self.ok.setEnabled(bool(name) and not self.busy)
        if not name or self.session.team:
            return
        self._lookup += 1
        if self.runner is None:
            self._show_role(role_of(self.session.store, name))
            return
        n = self._lookup
        self._looking_up = True
        self.runner.start(f"identity-lookup-{id(self)}", _role_of, self.session.store, name,
                          on_result=lambda role: self._looked_up(n, role),
                          on_error=lambda exc, _tb: self._lookup_failed(n, name, exc))

    def _looked_up(self, n: int, role: str) -> None:
        if n != self._lookup:
            return  # another name was typed, or a role picked, meanwhile
        self._looking_up = False
        self._show_role(role)
        if self._submit_after_lookup:
            self._submit_after_lookup = False
            self._submit()

    def _lookup_failed(self, n: int, name: str, exc: BaseException) -> None:
        if n != self._lookup:
            return
        self._looking_up = False
        self._submit_after_lookup = False
        self._set_busy(False)
        self.error.setText(f"Could not read the role of {name}: {refusal(exc)}")

    def _show_role(self, role: str) -> None:
        if self.role.findText(role) < 0:
            self.role.addItem(role)
        self.role.setCurrentText(role)

    def _role_picked(self, _index: int) -> None:
        """A role chosen by hand wins over a lookup still running (the last thing done wins)."""
        self._lookup += 1
        self._looking_up = False
        if self.runner is not None:
            self.runner.cancel(f"identity-lookup-{id(self)}")

    # -- signing in ----------------------------------------------------------------------------------

    def accept(self) -> None:
        if self.session.team:
            super().accept()
            return
        if self.busy:
            return  # Enter again while signing in
        if self._looking_up and self.name.text().strip():
            # The role shown may still be the previous name's: sign in once the typed name's is in.
            self._submit_after_lookup = True
            self._set_busy(True, f"Reading the role of {self.name.text().strip()}…")
            return
        self._submit()

    def _submit(self) -> None:
        try:
            job = self.session.set_identity(self.name.text(), self.role.currentText())
        except (ValueError, ReviewerError) as exc:  # shown; the dialog stays open
            self._set_busy(False)
            self.error.setText(f"Not changed: {exc}")
            return
        if job is None:  # no job runner: signed in already
            super().accept()
            return
        self._job = job
        self._set_busy(True, f"Signing in as {self.name.text().strip()}…")
        # Connected after the session's own handlers: the session has the new identity when these run.
        job.finished.connect(self._signed_in)
        job.failed.connect(self._refused)
        job.cancelled.connect(self._superseded)

    def _signed_in(self, _review) -> None:
        self._job = None
        self._set_busy(False)
        if self.isVisible():
            super().accept()

    def _refused(self, exc: BaseException, _trace: str) -> None:
        self._job = None
        self._set_busy(False)
        self.error.setText(f"Not changed: {refusal(exc)}")

    def _superseded(self) -> None:
        self._job = None
        self._set_busy(False)
        self.error.setText("Not changed: another sign-in replaced this one.")

    def _set_busy(self, on: bool, text: str = "") -> None:
        """Lock the fields while signing in. The keyboard stays in the name field (read-only
        meanwhile): disabling the focused field or OK would hand the focus to Cancel, and an
        Enter pressed twice would then close the dialog."""
        if on:
            self.name.setFocus()
        self.name.setReadOnly(on or self.session.team)
        self.role.setEnabled(not on and not self.session.team)
        self.ok.setEnabled(not on and bool(self.name.text().strip()))
        self.error.setText(text)
