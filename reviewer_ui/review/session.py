"""Who is reviewing: the identity (a name) and its role, shared by every review panel.

The name is persisted with QSettings (key ``review/identity``) so the app
remembers who you are; the role lives in the store (``annotate.role_of``)
because adjudicator rights are the team's decision, not the machine's.
"""

from __future__ import annotations

import getpass

from PySide6.QtCore import QObject, QSettings, Signal

from reviewer.review import annotate

SETTINGS_KEY = "review/identity"


def default_name() -> str:
    try:
        return getpass.getuser() or "annotator"
    except (KeyError, OSError):  # no user name in a container without passwd entry
        return "annotator"


class ReviewSession(QObject):
    """The current reviewer. ``changing`` fires just before the identity changes (panels
    save pending edits under the old name), ``changed`` after the identity or role changed."""

    changing = Signal()
    changed = Signal()

    def __init__(self, store, settings: QSettings | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.store = store
        self.settings = settings if settings is not None else QSettings()
        stored = self.settings.value(SETTINGS_KEY, "", type=str)
        self.name: str = stored.strip() or default_name()

    @property
    def role(self) -> str:
        """``annotator`` or ``adjudicator`` (read from the store each time: it is one small query)."""
        return annotate.role_of(self.store, self.name)

    @property
    def is_adjudicator(self) -> bool:
        return self.role == "adjudicator"

    def set_identity(self, name: str, role: str | None = None) -> None:
        """Become ``name``; with ``role``, also register that role in the store."""
        name = name.strip()
        if not name:
            raise ValueError("a reviewer needs a name")
        if role is not None:
            annotate.set_role(self.store, name, role)
        if name != self.name:
            self.changing.emit()
        self.name = name
        self.settings.setValue(SETTINGS_KEY, name)
        self.settings.sync()
        self.changed.emit()
