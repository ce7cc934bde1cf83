"""Who is reviewing, shared by every review panel: a ``reviewer.review.Review`` for this person.

Team mode (a PostgreSQL team database): the identity is the database login and the role
comes from its PostgreSQL roles; nothing here can change either. Outside team mode the
name is a local profile persisted with QSettings (key ``review/identity``) and its role
lives in the store; local profiles are not access control.
"""

from __future__ import annotations

import getpass

from PySide6.QtCore import QObject, QSettings, Signal

from reviewer.errors import ReviewerError
from reviewer.review import Review

SETTINGS_KEY = "review/identity"
ADVANCE_KEY = "review/advance_after_verdict"


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
        self.review: Review = Review(store, stored.strip() or default_name())

    @property
    def name(self) -> str:
        return self.review.viewer

    @property
    def team(self) -> bool:
        return self.review.team

    @property
    def role(self) -> str:
        return self.review.role

    @property
    def is_adjudicator(self) -> bool:
        return self.review.may_adjudicate

    @property
    def advance_after_verdict(self) -> bool:
        """P / F / R move on to the next item once the verdict is saved (a setting; on by default)."""
        return self.settings.value(ADVANCE_KEY, True, type=bool)

    def set_advance_after_verdict(self, on: bool) -> None:
        self.settings.setValue(ADVANCE_KEY, bool(on))

    def set_identity(self, name: str, role: str | None = None) -> None:
        """Become the local profile ``name``; with ``role``, also register that role in the store.
        Refused in team mode, where you are your database login."""
        if self.team:
            raise ReviewerError("in team mode you are your PostgreSQL login; an admin changes roles with "
                                "`reviewer team add LOGIN --role ...`")
        name = name.strip()
        if not name:
            raise ValueError("a reviewer needs a name")
        if role is not None:
            from reviewer.review.core import set_local_role

            set_local_role(self.store, name, role)
        if name != self.name:
            self.changing.emit()
        self.review = Review(self.store, name)
        self.settings.setValue(SETTINGS_KEY, name)
        self.settings.sync()
        self.changed.emit()
