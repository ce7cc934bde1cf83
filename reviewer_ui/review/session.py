"""Who is reviewing, shared by every review panel: a ``reviewer.review.Review`` for this person.

Team mode (a PostgreSQL team database): the identity is the database login and the role
comes from its PostgreSQL roles; nothing here can change either. Outside team mode the
name is a local profile persisted with QSettings (key ``review/identity``) and its role
lives in the store; local profiles are not access control.

Signing in reads the database (the role; from the identity dialog it also writes it), so
with a job runner it runs as a job, never on the GUI thread. Until it lands the session is
``signing_in``: its ``review`` is ``Review.assume(store, name)``, the least privilege (an
annotator: no adjudication queue, blind to model identity), which the core refuses to
write with; panels show "Signing in…" and wait for ``changed``. A newer sign-in supersedes
an older one still running (the newest wins, its write included). When the database
refuses, ``failed(message)`` says why and the session goes back to the identity it had
(or, at start, stays signed out with ``error`` set).
"""

from __future__ import annotations

import getpass
import threading
from contextlib import nullcontext

from PySide6.QtCore import QObject, QSettings, Signal

from reviewer.errors import ReviewerError
from reviewer.review import Review

SETTINGS_KEY = "review/identity"
ADVANCE_KEY = "review/advance_after_verdict"
LOCAL_ROLES = ("annotator", "adjudicator")


def default_name() -> str:
    try:
        return getpass.getuser() or "annotator"
    except (KeyError, OSError):  # no user name in a container without passwd entry
        return "annotator"


def sign_in(ctx, store, name: str, role: str | None, lock: threading.Lock | None = None) -> Review:
    """Job body (worker thread, no widgets): write ``name``'s local ``role`` when given, then
    read who ``name`` is (``Review(store, name)``: the role; in team mode the login and its roles).

    ``lock`` serialises one session's sign-ins: a superseded one that has not written yet
    stops here (cancelled), so an older role write can never land after a newer one."""
    with lock if lock is not None else nullcontext():
        if ctx is not None:
            ctx.check_cancelled()
        if role is not None:
            from reviewer.review.core import set_local_role

            set_local_role(store, name, role)
        return Review(store, name)


def refusal(exc: BaseException) -> str:
    """A database or protocol error as one line for a person (never a traceback): the driver's
    own message for a database error, without SQLAlchemy's statement and link."""
    from sqlalchemy.exc import SQLAlchemyError

    if isinstance(exc, SQLAlchemyError):
        orig = getattr(exc, "orig", None)
        text = str(orig) if orig is not None else str(exc)
    else:
        text = str(exc) or type(exc).__name__
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


class ReviewSession(QObject):
    """The current reviewer. ``changing`` fires just before the identity changes (panels
    save pending edits under the old name), ``changed`` after the identity, the role or the
    sign-in state changed (a sign-in starting, landing or failing), ``failed(message)`` when
    the database refused a sign-in. With ``runner`` every sign-in runs as a job (see the
    module docstring); without one (scripts, a panel tested alone) it reads on the spot."""

    changing = Signal()
    changed = Signal()
    failed = Signal(str)

    def __init__(self, store, settings: QSettings | None = None, parent: QObject | None = None, runner=None):
        super().__init__(parent)
        self.store = store
        self.runner = runner
        self.settings = settings if settings is not None else QSettings()
        self.error: str | None = None  # why the last sign-in failed, while signed out
        self._confirmed: Review | None = None  # the last identity the database confirmed
        self._job = None  # the newest sign-in still running
        self._lock = threading.Lock()
        stored = self.settings.value(SETTINGS_KEY, "", type=str)
        name = stored.strip() or default_name()
        if runner is None:
            self.review: Review = Review(store, name)
            self._confirmed = self.review
        else:
            self.review = Review.assume(store, name)
            self._start(name, None, remember=False)

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
    def signing_in(self) -> bool:
        """A sign-in is running: the role is not known yet (treated as an annotator)."""
        return self._job is not None

    @property
    def signed_in(self) -> bool:
        """The database confirmed who this is: review reads and writes may run."""
        return not self.review.assumed

    def waiting_text(self) -> str:
        """What a panel says while it cannot read the review: signing in, or why not signed in."""
        if self.signing_in:
            return f"Signing in as {self.name}…"
        return f"Not signed in: {self.error or 'unknown reason'}. Try again in Review ▸ Identity…"

    @property
    def advance_after_verdict(self) -> bool:
        """P / F / R move on to the next item once the verdict is saved (a setting; on by default)."""
        return self.settings.value(ADVANCE_KEY, True, type=bool)

    def set_advance_after_verdict(self, on: bool) -> None:
        self.settings.setValue(ADVANCE_KEY, bool(on))

    def set_identity(self, name: str, role: str | None = None):
        """Become the local profile ``name``; with ``role``, also register that role in the store.
        Refused in team mode, where you are your database login.

        With a job runner the write and the role's read run as a job, returned (the session is
        ``signing_in`` as ``name`` until it lands; ``changed`` fires as it starts and as it lands);
        without one they run here and None is returned."""
        if self.team:
            raise ReviewerError("in team mode you are your PostgreSQL login; an admin changes roles with "
                                "`reviewer team add LOGIN --role ...`")
        name = name.strip()
        if not name:
            raise ValueError("a reviewer needs a name")
        if role is not None and role not in LOCAL_ROLES:
            raise ReviewerError(f"unknown role {role!r}: annotator or adjudicator")
        if self.runner is None:
            review = sign_in(None, self.store, name, role)
            if name != self.name:
                self.changing.emit()
            self.review = self._confirmed = review
            self.error = None
            self._remember(review)
            self.changed.emit()
            return None
        if name != self.name:
            self.changing.emit()
        self.review = Review.assume(self.store, name)
        return self._start(name, role, remember=True)

    # -- the sign-in job ------------------------------------------------------------------------

    def _start(self, name: str, role: str | None, remember: bool):
        self.error = None
        job = self.runner.start(f"review-sign-in-{id(self)}", sign_in, self.store, name, role, self._lock)
        job.finished.connect(lambda review, j=job: self._landed(j, review, remember))
        job.failed.connect(lambda exc, _tb, j=job: self._failed(j, name, exc))
        self._job = job
        self.changed.emit()  # signing in: least privilege until it lands
        return job

    def _landed(self, job, review: Review, remember: bool) -> None:
        if job is not self._job:
            return  # superseded (the runner drops those; belt and braces)
        self._job = None
        self.review = self._confirmed = review
        self.error = None
        if remember:
            self._remember(review)
        self.changed.emit()

    def _failed(self, job, name: str, exc: BaseException) -> None:
        if job is not self._job:
            return
        self._job = None
        message = f"Could not sign in as {name}: {refusal(exc)}"
        if self._confirmed is not None:
            self.review = self._confirmed  # nothing changed: back to who the database confirmed
            self.error = None
        else:
            self.error = refusal(exc)
        self.failed.emit(message)
        self.changed.emit()

    def _remember(self, review: Review) -> None:
        if review.team:
            return  # the login is not a local profile
        self.settings.setValue(SETTINGS_KEY, review.viewer)
        self.settings.sync()
