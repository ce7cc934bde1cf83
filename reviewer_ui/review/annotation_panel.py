"""The annotation panel: one annotator's verdict and rubric for the shown item.

Keyboard-first (shortcuts active while the focus is inside the panel, or in
the whole window after ``set_shortcut_context(Qt.WindowShortcut)``):
P / F / R verdict · 1-5 toggle the kind's checks (yes <-> no) · A cycles the
ambiguity · D confirms the suggested difficulty, then toggles it · E opens the
fix editor · N saves and moves to the next item of my queue · Ctrl+Z undoes.
A verdict (P / R, or F once the fix is saved) is the submission; with the session's
"advance after verdict" setting (on by default) the next item of my queue follows.

Contracts:
- Every change is saved at once through the session's ``Review.save`` (one small
  transaction, on the job runner when the panel has one, else synchronously), based
  on the annotation version and the item version this panel last read.
- Showing an item reads its review (``Review.snapshot``) on the job runner too: the
  panel is neutral ("loading", nothing editable) until it lands; keys typed meanwhile
  apply once it has; a newer item supersedes an older read. The note is saved after typing
  pauses (``NOTE_SAVE_DELAY_MS``) and before leaving the item.
- A draft the protocol forbids (High ambiguity passed, a Fix without a changed
  gold) stays local and unsaved, with the reason shown inline.
- A StaleWrite (the annotation changed in another window or by someone else)
  is shown with a Reload action and nothing is written until the user reloads.
- Undo restores the previously saved draft by saving it again as a new
  version (the audit log keeps every version); the history lasts the session.
- Blindness: the panel shows only what ``Review.snapshot`` returns: for an
  annotator their own annotation and a status phrase, never another annotation.
- Fixed layout: the verdict row and the line under it keep their place and size
  whatever the draft (a blocked Pass is a disabled button and a reserved line),
  so nothing moves under the pointer.
"""

from __future__ import annotations

import copy
import html
from collections import deque

from PySide6.QtCore import Qt, QTimer, Signal
from shiboken6 import isValid
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication, QDialog, QGridLayout, QGroupBox, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QScrollArea,
    QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget,
)

from sqlalchemy.exc import SQLAlchemyError

from reviewer.errors import ItemBusy, ReviewerError, StaleWrite
from reviewer.review import Draft, ProtocolViolation, ReviewSnapshot, Saved
from reviewer.review.patch import make_patch
from reviewer.review.rubric import (
    AMBIGUITY, CHECK_LABELS, ERROR_TAGS, TAXONOMIES_BY_KIND, checks_for, problems, suggested_difficulty,
)
from reviewer_ui import theme
from reviewer_ui.review.fix_editor import FixEditor
from reviewer_ui.review.widgets import VERDICT_KEYS, Banner, ChoiceRow, rich_label, summarize
from reviewer_ui.shortcuts import panel_key

NOTE_SAVE_DELAY_MS = 700
AWAIT_NEXT_MS = 10000  # keys typed for the next item are dropped if it has not opened by then
_NOTHING = object()  # no item waits to be shown
_LOOKING = object()  # the next item is being looked up


class AnnotationPanel(QWidget):
    saved = Signal(object)  # AnnotationView, after each successful save
    landed = Signal(object)  # reviewer.review.Saved, after each successful save (with the progress)
    # "Saved <record>: <the protocol's warnings>", after a save that stored a warned draft: the panel
    # may already show the next item (the verdict moved on), so the host says it where it stays
    warned = Signal(str)
    navigate = Signal(int)  # the item id N wants shown next
    queue_done = Signal()  # N found no item left that needs me
    status_changed = Signal(str)

    def __init__(self, session, runner=None, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.store = session.store
        self.detail = None  # ItemDetail shown
        self._focus_before_disable = None  # the form's widget that had the keyboard while it was disabled
        self.snapshot: ReviewSnapshot | None = None
        self.version: int | None = None  # stored version this panel is based on
        self.saved_draft: Draft | None = None  # as stored (None: no annotation yet)
        self.draft = Draft()
        self.stale = False
        self.kept_fix = None  # a fix set aside when the verdict moved away from Fix
        self.undo_history: dict[int, list[Draft]] = {}  # item id -> drafts saved before, newest last
        self.fix_dialog: QDialog | None = None
        self._fields_kind: str | None = None  # the kind the check rows and tags were built for
        self.fix_editor: FixEditor | None = None
        self.shortcuts: list[QShortcut] = []

        # Clicking the panel's background gives it the focus, so its keys work.
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._build()
        self._note_timer = QTimer(self, singleShot=True, interval=NOTE_SAVE_DELAY_MS)
        self._note_timer.timeout.connect(self.flush_note)
        self._bind_keys()
        self.session.changing.connect(self.flush_note)  # a pending note belongs to the old name
        self.session.changed.connect(self._identity_changed)
        self._set_enabled(False)
        self.runner = runner
        self._saving = False  # a save is in flight
        self._wanted: tuple[Draft, bool] | None = None  # the draft to save next (newest wins)
        self._advance: str | None = None  # a verdict whose save, once stored, moves on to the next item
        self._awaiting = None  # the next item asked for (or _LOOKING), until it is shown
        self._deferred = _NOTHING  # an item to show once the saves in flight landed
        self._closing_fix = False  # the fix dialog closes when the fix is stored
        self._typeahead: deque = deque()
        self._loading: int | None = None  # the item whose review is being read (off the GUI thread)
        self._awaiting_timer = QTimer(self, singleShot=True, interval=AWAIT_NEXT_MS)
        self._awaiting_timer.timeout.connect(self._next_never_came)

    # -- layout ------------------------------------------------------------------------

    def _build(self) -> None:
        self.title = QLabel("Annotation")
        self.title.setObjectName("heading")
        self.who = QLabel("")
        self.who.setTextFormat(Qt.TextFormat.PlainText)
        self.who.setObjectName("muted")
        # The item's status (what an annotator may know of its progress), one line in the header.
        self.stage_label = QLabel("")
        self.stage_label.setTextFormat(Qt.TextFormat.PlainText)
        self.stage_label.setObjectName("stageStatus")
        self.banner = Banner("Reload")
        self.banner.action.clicked.connect(self.reload)

        self.verdict = ChoiceRow([(v, f"{v.capitalize()}  ({k})") for v, k in VERDICT_KEYS.items()])
        self.verdict.chosen.connect(self.set_verdict)
        self.pass_note = QLabel("")
        self.pass_note.setObjectName("muted")
        self.pass_note.setWordWrap(True)
        # Two lines reserved whether or not Pass is blocked: nothing below jumps when it is.
        self.pass_note.setFixedHeight(self.pass_note.fontMetrics().lineSpacing() * 2 + 2)

        self.checks_box = QGroupBox("Checks")
        self.checks_grid = QGridLayout(self.checks_box)
        self.check_rows: dict[str, ChoiceRow] = {}

        self.ambiguity = ChoiceRow([(a, a.capitalize()) for a in AMBIGUITY])
        self.ambiguity.chosen.connect(self.set_ambiguity)
        self.difficulty = ChoiceRow([("medium", "Medium"), ("hard", "Hard")])
        self.difficulty.chosen.connect(self.set_difficulty)
        self.suggested = QLabel("")
        self.suggested.setObjectName("muted")
        self.suggested.setWordWrap(True)  # a long hint wraps rather than widening the dock
        rubric = QGridLayout()
        rubric.addWidget(QLabel("Ambiguity (A)"), 0, 0)
        rubric.addWidget(self.ambiguity, 0, 1)
        rubric.addWidget(QLabel("Difficulty (D)"), 1, 0)
        rubric.addWidget(self.difficulty, 1, 1)
        rubric.addWidget(self.suggested, 2, 1)

        self.fix_summary = QLabel("")
        self.fix_summary.setWordWrap(True)
        self.fix_button = QPushButton("Edit fix…  (E)")
        self.fix_button.setAutoDefault(False)
        self.fix_button.clicked.connect(self.open_fix_editor)
        # "Edit fix…" sits on the verdict row, and the fix's summary shows only with a Fix verdict:
        # a row of its own for them pushed the Error tags out of the Annotate tab at 1366x768
        # (one line of a NesTools item's tags was in view).
        verdict_row = QHBoxLayout()
        verdict_row.addWidget(self.verdict, 1)
        verdict_row.addWidget(self.fix_button)
        self.fix_summary.hide()

        self.tags = QTreeWidget()
        self.tags.setHeaderHidden(True)
        self.tags.setMinimumHeight(120)
        self.tags.itemChanged.connect(self._tag_changed)
        self.note = QPlainTextEdit()
        self.note.setPlaceholderText("Note (saved when you pause typing)")
        self.note.setMaximumHeight(70)
        self.note.setTabChangesFocus(True)  # Tab goes on to the next control (a note needs no tab characters)
        self.note.textChanged.connect(self._note_edited)

        self.problems_label = rich_label()
        self.others_label = rich_label()
        self.status = QLabel("")
        self.status.setObjectName("muted")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # messages quote store errors verbatim

        head = QHBoxLayout()
        head.addWidget(self.title)
        head.addStretch(1)
        head.addWidget(self.who)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addLayout(head)
        layout.addWidget(self.stage_label)
        layout.addWidget(self.banner)
        layout.addLayout(verdict_row)
        layout.addWidget(self.fix_summary)
        layout.addWidget(self.pass_note)
        layout.addWidget(self.checks_box)
        layout.addLayout(rubric)
        tags_title = QLabel("Error tags (T)")
        tags_title.setObjectName("sectionTitle")
        layout.addWidget(tags_title)
        layout.addWidget(self.tags)
        layout.addWidget(self.note)
        layout.addWidget(self.problems_label)
        layout.addWidget(self.others_label)
        layout.addWidget(self.status)
        layout.addStretch(1)

    def _bind_keys(self) -> None:
        bindings = [(k, lambda v=v: self.set_verdict(v), f"Verdict: {v.capitalize()}") for v, k in VERDICT_KEYS.items()]
        bindings += [(str(i + 1), lambda i=i: self.toggle_check(i), f"Check {i + 1}: Yes / No") for i in range(9)]
        bindings += [("A", self.cycle_ambiguity, "Ambiguity: next level"),
                     ("D", self.toggle_difficulty, "Difficulty: confirm or correct"),
                     ("E", self.open_fix_editor, "Edit the fix"),
                     ("T", self.focus_tags, "Error tags: go to the list (arrows move, Space ticks)"),
                     ("N", self.save_and_next, "Next item I have not annotated"),
                     (QKeySequence.StandardKey.Undo, self.undo, "Undo the last save (as a new version)")]
        for key, slot, description in bindings:
            self.shortcuts.append(panel_key(self, key, slot, "Annotation panel", description))

    def set_shortcut_context(self, context: Qt.ShortcutContext) -> None:
        """Where the panel's keys work: inside the panel (default) or the whole window."""
        for sc in self.shortcuts:
            sc.setContext(context)

    def _set_enabled(self, on: bool) -> None:
        """Enable or disable the form. Disabling the widget that has the keyboard (the error
        tags, say, after R saved and the next item loads) made Qt pass the keyboard on to the
        next button, "Next item I have not annotated (N)", where a Space meant for the next
        item's tags jumped to another item: the keyboard goes back where it was, unless the
        user has put it somewhere since."""
        fields = (self.verdict, self.checks_box, self.ambiguity, self.difficulty, self.tags, self.note,
                  self.fix_button)
        focused = QApplication.focusWidget()
        if not on and focused is not None and any(w is focused or w.isAncestorOf(focused) for w in fields):
            self._focus_before_disable = focused
            self.setFocus(Qt.FocusReason.OtherFocusReason)  # the panel holds it meanwhile, not a button
        for w in fields:
            w.setEnabled(on)
        held = self._focus_before_disable
        if on and held is not None:
            self._focus_before_disable = None
            if QApplication.focusWidget() is self and held.isEnabled() and held.isVisible():
                held.setFocus(Qt.FocusReason.OtherFocusReason)

    # -- showing an item -----------------------------------------------------------------

    def show_item(self, detail) -> None:
        """Show ``detail`` (a store ItemDetail) as the session's reviewer sees it. While saves
        of the item shown are in flight, the next item waits for them (keys typed meanwhile
        apply to it once it is shown). The same item shown again (the host refreshed it: a run
        was imported, another process wrote) keeps edits not yet stored: it is read again only
        when nothing is pending, and otherwise the save in flight brings its review back."""
        if detail is not None and self.detail is not None and detail.id == self.detail.id \
                and self.has_pending_edits:
            self.detail = detail
            return
        if self.detail is not None and (detail is None or detail.id != self.detail.id):
            self.flush_note()
            if self.saving:
                self._deferred = detail
                return
        self._deferred = _NOTHING
        if self._awaiting is not None:
            self._awaiting = None
            self._awaiting_timer.stop()
        self.detail = detail
        if detail is None:
            self._loading = None
            self.title.setText("Annotation")
            self._set_enabled(False)
            return
        self._build_kind_fields(detail.kind)
        self.reload()
        self._replay()

    def reload(self) -> None:
        """Read the item's review from the store again, dropping local unsaved edits
        (and any save not yet started). With a job runner the read runs off the GUI thread:
        the panel shows a neutral "loading" state until it lands, and a newer item (or a newer
        reload) supersedes an older read, whose result is dropped."""
        if self.detail is None:
            return
        self._wanted = None
        self._note_timer.stop()
        item_id, review = self.detail.id, self.session.review
        if not self.session.signed_in:  # nothing is read (or written) until the database said who this is
            self._show_signing_in(item_id)
            return
        if self.runner is None:
            self._show_snapshot(review.snapshot(item_id))
            return
        self._loading = item_id
        self._show_loading()
        self.runner.start(f"annotation-load-{id(self)}", _read_snapshot, review, item_id,
                          on_result=lambda snap: self._snapshot_landed(item_id, review, snap),
                          on_error=lambda exc, _tb: self._snapshot_failed(item_id, review, exc))

    @property
    def loading(self) -> bool:
        """The shown item's review is being read (the panel shows "loading" and takes no edits)."""
        return self._loading is not None

    def _show_loading(self) -> None:
        """Neutral while the review is read: no verdict, no rubric, nothing editable, and
        nothing of the previous item (its draft would be mistaken for this one's)."""
        self.snapshot = None
        self.version = None
        self.saved_draft = None
        self.draft = Draft()
        self.kept_fix = None
        self.stale = False
        self.banner.hide()
        self.title.setText(f"Annotation · {self.detail.record_id}")
        self.who.setText(f"as {self.session.name}")
        self._set_enabled(False)
        self._refresh()
        self.stage_label.setText("Status: loading…")
        self.others_label.setText("")
        self.others_label.setVisible(False)
        self._set_status("Loading your annotation of this item…")

    def _show_signing_in(self, item_id: int) -> None:
        """Neutral, like loading, while the session signs in: keys typed meanwhile wait for the
        item's review, read once the role has landed (``changed`` reloads). Signed out (the
        sign-in failed) the panel only says why."""
        self._show_loading()
        if self.session.signing_in:
            self._loading = item_id
            self.stage_label.setText("Status: signing in…")
        else:
            self._loading = None
            self._typeahead.clear()
            self.stage_label.setText("Status: not signed in")
        self._set_status(self.session.waiting_text())

    def _snapshot_landed(self, item_id: int, review, snap: ReviewSnapshot) -> None:
        """GUI thread: the review read for ``item_id`` arrived; shown when it is still the item asked for."""
        if not isValid(self):
            return  # the panel was closed while the read ran
        if self._loading != item_id or self.detail is None or self.detail.id != item_id \
                or review is not self.session.review:
            return  # superseded: another item or another identity was asked for meanwhile
        self._loading = None
        self._show_snapshot(snap)
        self._replay()  # keys typed while it loaded apply to it now

    def _snapshot_failed(self, item_id: int, review, exc: BaseException) -> None:
        if not isValid(self) or self._loading != item_id or review is not self.session.review:
            return
        self._loading = None
        self._typeahead.clear()
        self._set_status(f"Could not read your annotation of this item: {exc}")

    def _show_snapshot(self, snap: ReviewSnapshot) -> None:
        self.snapshot = snap
        mine = self.snapshot.mine
        self.version = mine.version if mine else None
        self.saved_draft = copy.deepcopy(mine.draft) if mine else None
        self.draft = copy.deepcopy(mine.draft) if mine else Draft()
        self.kept_fix = None
        self.stale = False
        self.banner.hide()
        self.title.setText(f"Annotation · {self.detail.record_id}")
        self.who.setText(f"as {self.session.name}")
        settled = self.snapshot.stage.settled
        self._set_enabled(not settled)
        self._refresh()
        self._show_others()
        if settled:
            self._set_status("Settled: annotations can no longer be revised.")
        else:
            self._set_status(f"Saved version {self.version}." if mine else "Not annotated by you yet.")

    def _identity_changed(self) -> None:
        self.undo_history.clear()
        self.reload()

    def _build_kind_fields(self, kind: str) -> None:
        if kind != self._fields_kind:  # J/K browsing within one kind reuses the rows
            self._build_checks_and_tags(kind)
            self._fields_kind = kind
        depth = self.detail.depth if self.detail else None
        hint = suggested_difficulty(depth)
        self.suggested.setText(f"Suggested: {hint.capitalize()} (depth {depth}); press D to confirm or correct"
                               if hint else "No suggestion (the item has no depth)")

    def _build_checks_and_tags(self, kind: str) -> None:
        while self.checks_grid.count():
            w = self.checks_grid.takeAt(0).widget()
            if w is not None:
                w.deleteLater()
        self.check_rows = {}
        for i, check in enumerate(checks_for(kind)):
            label = QLabel(f"{i + 1}. {CHECK_LABELS.get(check, check)}")
            label.setWordWrap(True)
            row = ChoiceRow([(True, "Yes"), (False, "No")])
            row.chosen.connect(lambda value, c=check: self.set_check(c, value))
            self.checks_grid.addWidget(label, i, 0)
            self.checks_grid.addWidget(row, i, 1)
            self.check_rows[check] = row
        self.checks_grid.setColumnStretch(0, 1)
        self.tags.blockSignals(True)
        self.tags.clear()
        for taxonomy in TAXONOMIES_BY_KIND.get(kind, tuple(ERROR_TAGS)):
            top = QTreeWidgetItem([taxonomy])
            top.setFlags(Qt.ItemFlag.ItemIsEnabled)
            for tag in ERROR_TAGS[taxonomy]:
                child = QTreeWidgetItem([tag.replace("_", " ")])
                child.setData(0, Qt.ItemDataRole.UserRole, tag)
                child.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
                child.setCheckState(0, Qt.CheckState.Unchecked)
                top.addChild(child)
            self.tags.addTopLevelItem(top)
        self.tags.expandAll()
        self.tags.blockSignals(False)
        # Tall enough for every tag of the kind, no taller: the rest of the panel keeps its room.
        rows = self.tags.topLevelItemCount() + sum(
            self.tags.topLevelItem(i).childCount() for i in range(self.tags.topLevelItemCount()))
        self.tags.setFixedHeight(min(360, rows * self.tags.fontMetrics().height() * 13 // 10 + 8))

    def _tag_items(self):
        for i in range(self.tags.topLevelItemCount()):
            top = self.tags.topLevelItem(i)
            for j in range(top.childCount()):
                yield top.child(j)

    def _refresh(self) -> None:
        """Show ``self.draft`` in the widgets (no signals back)."""
        d = self.draft
        self.verdict.set_value(d.verdict)
        for check, row in self.check_rows.items():
            row.set_value(d.checks.get(check))
        self.ambiguity.set_value(d.ambiguity)
        self.difficulty.set_value(d.difficulty)
        self.tags.blockSignals(True)
        for item in self._tag_items():
            on = item.data(0, Qt.ItemDataRole.UserRole) in d.error_tags
            item.setCheckState(0, Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
        self.tags.blockSignals(False)
        if self.note.toPlainText() != d.note:
            self.note.blockSignals(True)
            self.note.setPlainText(d.note)
            self.note.blockSignals(False)
        blockers = self._pass_blockers(d)
        self.verdict.buttons["pass"].setEnabled(not blockers)
        self.pass_note.setText(f"Pass is unavailable: {blockers}" if blockers else "")
        ops = self._patch_ops(d)
        if d.fixed_gold is not None and d.verdict == "fix":
            self.fix_summary.setText(f"Fix: {ops} patch operation(s) on the gold")
        elif d.verdict == "fix":
            self.fix_summary.setText("Fix: no corrected gold yet: edit it (E)")
        else:
            self.fix_summary.setText("")
        self.fix_summary.setVisible(bool(self.fix_summary.text()))
        self._show_problems(problems(d, self.detail.kind, ops))

    def _pass_blockers(self, d: Draft) -> str:
        """Why Pass is not allowed for this draft: the protocol's own rules (rubric.problems), not a copy."""
        as_pass = copy.deepcopy(d)
        as_pass.verdict, as_pass.fixed_gold = "pass", None
        found = [p.message for p in problems(as_pass, self.detail.kind) if p.level == "error" and p.field == "verdict"]
        return "; ".join(found) + ("." if found else "")

    def _patch_ops(self, d: Draft) -> int:
        if d.verdict != "fix" or d.fixed_gold is None:
            return 0
        return len(make_patch(self.detail.gold, d.fixed_gold))

    def _show_problems(self, found) -> None:
        c = theme.colors()
        lines = [f"<span style='color:{c['bad' if p.level == 'error' else 'unk'].name()}'>"
                 f"{'✗' if p.level == 'error' else '⚠'} {html.escape(p.message)}</span>" for p in found]
        self.problems_label.setText("<br>".join(lines))
        self.problems_label.setVisible(bool(lines))

    def _show_others(self) -> None:
        snap = self.snapshot
        self.stage_label.setText(f"Status: {snap.status}")
        lines = []
        for other in snap.others:  # adjudicators only: annotators never get others
            lines.append(f"{html.escape(other.annotator)}: {summarize(other.draft)}")
        if snap.adjudication is not None:
            a = snap.adjudication
            who = "automatically (both agreed)" if a.resolution == "auto" else f"by {html.escape(a.adjudicator or '?')}"
            lines.append(f"<b>Settled</b> {who}: {html.escape(a.verdict)}"
                         + (f" · {html.escape(a.rationale)}" if a.rationale and a.resolution != "auto" else ""))
        self.others_label.setText("<br>".join(lines))
        self.others_label.setVisible(bool(lines))

    def _set_status(self, text: str) -> None:
        self.status.setText(text)
        self.status_changed.emit(text)

    # -- editing ---------------------------------------------------------------------------

    def _edited(self, **changes) -> bool:
        draft = copy.deepcopy(self.draft)
        for name, value in changes.items():
            setattr(draft, name, value)
        return self.commit(draft)

    def set_verdict(self, verdict: str) -> None:
        if self._queued(self.set_verdict, verdict):
            return
        if not self._editable():
            return
        if verdict == "pass" and self._pass_blockers(self.draft):
            self._refresh()  # keep the shown verdict as it was
            self._set_status(f"Not changed: {self._pass_blockers(self.draft)}")
            return
        opens_editor = verdict == "fix" and self.draft.fixed_gold is None and self.kept_fix is None
        # The save of a verdict also looks up the next item (the session's setting): one job, one move.
        self._advance = verdict if self.session.advance_after_verdict and not opens_editor else None
        if verdict == "fix" and self.draft.fixed_gold is None and self.kept_fix is not None:
            self._edited(verdict=verdict, fixed_gold=self.kept_fix)
        else:
            self._edited(verdict=verdict)
        if opens_editor:
            self.open_fix_editor()
        else:
            self._move_on_if_stored(verdict)

    def set_check(self, check: str, value: bool | None) -> None:
        if self._queued(self.set_check, check, value):
            return
        if self._editable():
            self._edited(checks={**self.draft.checks, check: value})

    def toggle_check(self, index: int) -> None:
        """Key 1-9: an unanswered check becomes Yes; then Yes and No alternate."""
        if self._queued(self.toggle_check, index):
            return
        checks = list(self.check_rows)
        if index < len(checks) and self._editable():
            current = self.draft.checks.get(checks[index])
            self.set_check(checks[index], current is not True)

    def set_ambiguity(self, value: str) -> None:
        if self._queued(self.set_ambiguity, value):
            return
        if self._editable():
            self._edited(ambiguity=value)

    def cycle_ambiguity(self) -> None:
        if self._queued(self.cycle_ambiguity):
            return
        current = self.draft.ambiguity
        nxt = AMBIGUITY[0] if current not in AMBIGUITY else AMBIGUITY[(AMBIGUITY.index(current) + 1) % len(AMBIGUITY)]
        self.set_ambiguity(nxt)

    def set_difficulty(self, value: str) -> None:
        if self._queued(self.set_difficulty, value):
            return
        if self._editable():
            self._edited(difficulty=value)

    def toggle_difficulty(self) -> None:
        """Key D: first confirms the suggested tag (Medium when there is none), then toggles."""
        if self._queued(self.toggle_difficulty):
            return
        if self.draft.difficulty is None:
            self.set_difficulty(suggested_difficulty(self.detail.depth if self.detail else None) or "medium")
        else:
            self.set_difficulty("hard" if self.draft.difficulty == "medium" else "medium")

    def focus_tags(self) -> None:
        """Key T: the keyboard goes to the error tags, on the first tag (or the one it was on),
        scrolled into view; arrows move, Space ticks or unticks (each change is saved)."""
        if not self.tags.isEnabled():
            return
        current = self.tags.currentItem()
        if current is None or current.parent() is None:  # none yet, or a taxonomy heading
            first = next(self._tag_items(), None)
            if first is None:
                return
            self.tags.setCurrentItem(first)
        self.tags.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.tags.scrollToItem(self.tags.currentItem())
        area = self.parentWidget()
        while area is not None and not isinstance(area, QScrollArea):
            area = area.parentWidget()
        if area is not None:  # the panel in its scroller (the Review dock's Annotate tab)
            area.ensureWidgetVisible(self.tags)

    def _tag_changed(self, item: QTreeWidgetItem) -> None:
        if not self._editable():
            return
        tags = [i.data(0, Qt.ItemDataRole.UserRole) for i in self._tag_items()
                if i.checkState(0) == Qt.CheckState.Checked]
        self._edited(error_tags=tags)

    def _note_edited(self) -> None:
        self.draft.note = self.note.toPlainText()
        self._note_timer.start()

    def flush_note(self) -> None:
        """Save a note still waiting for the typing pause."""
        self._note_timer.stop()
        if self.detail is None or self.stale:
            return
        saved_note = self.saved_draft.note if self.saved_draft else ""
        if self.draft.note != saved_note:
            self.commit(copy.deepcopy(self.draft))

    def apply_fix(self, fixed_gold) -> bool:
        """Store ``fixed_gold`` as this annotator's Fix; True when it was saved or its save started."""
        if not self._editable():
            return False
        self._edited(verdict="fix", fixed_gold=copy.deepcopy(fixed_gold))
        return not self.stale and (self.saving or self.saved_draft == self.draft)

    def _editable(self) -> bool:
        return self.detail is not None and not self.stale and self._loading is None

    # -- saving -------------------------------------------------------------------------

    @property
    def has_pending_edits(self) -> bool:
        """Something typed is not stored yet: a save in flight or waiting, a note not yet
        saved, keys typed ahead, a read in flight, or a draft that differs from the stored one.
        Reading the item's review again now would drop it."""
        return (self.saving or self._note_timer.isActive() or self.typing_ahead or bool(self._typeahead)
                or (self.saved_draft or Draft()) != self.draft)

    @property
    def saving(self) -> bool:
        """A save is in flight (on the job runner) or waits for the one in flight."""
        return self._saving or self._wanted is not None

    @property
    def typing_ahead(self) -> bool:
        """Keys go to the next item: a verdict that moves on is being saved, or the next item is on its way."""
        return (self._advance is not None or self._awaiting is not None or self._deferred is not _NOTHING
                or self._loading is not None)

    def commit(self, draft: Draft, record_undo: bool = True) -> bool:
        """Show ``draft`` and save it (off the GUI thread when the panel has a job runner);
        False when it will not be saved (shown why). Saves of one panel run one at a time,
        each based on the version the previous one stored; drafts made while one is in
        flight coalesce into the next save (the newest draft wins: it holds every change)."""
        if draft.verdict != "fix" and draft.fixed_gold is not None:
            # Only a Fix stores a corrected gold; keep it locally so F brings it back.
            self.kept_fix, draft.fixed_gold = draft.fixed_gold, None
        self.draft = draft
        self._refresh()
        if self.stale:
            return False
        if not self._saving and self.saved_draft is not None and draft == self.saved_draft:
            return False
        errors = [p for p in problems(draft, self.detail.kind, self._patch_ops(draft)) if p.level == "error"]
        if errors:
            self._wanted = None
            self._set_status("Not saved yet: resolve the problem shown above.")
            return False
        self._wanted = (copy.deepcopy(draft), record_undo)
        self._pump()
        return True

    def _pump(self) -> None:
        """Start the next save when none is in flight."""
        if self._saving or self.detail is None:
            return
        if self._wanted is None or self.stale:
            self._wanted = None
            self._settle_down()
            return
        draft, record_undo = self._wanted
        self._wanted = None
        if self.saved_draft is not None and draft == self.saved_draft:
            self._settle_down()
            return
        d = self.detail
        self._saving = True
        self._set_status("Saving…")
        args = (d.id, draft, self.version, self.snapshot.item_version if self.snapshot else None,
                d.dataset_id, d.position, self._advance is not None)
        review = self.session.review
        context = (d.id, review, record_undo,
                   copy.deepcopy(self.saved_draft) if self.saved_draft is not None else Draft(), d.record_id, d.kind)
        if self.runner is None:
            try:
                result = _save(None, review, *args)
            except Exception as exc:  # noqa: BLE001 - shown like a job's failure
                self._save_failed(context, exc)
            else:
                self._save_landed(context, result)
            return
        self.runner.start(f"annotation-save-{id(self)}", _save, review, *args,
                          on_result=lambda result: self._save_landed(context, result),
                          on_error=lambda exc, _tb: self._save_failed(context, exc))

    def _save_landed(self, context, result: Saved) -> None:
        """GUI thread: a save is stored; show it, then start the next one or move on."""
        item_id, review, record_undo, before, record_id, kind = context
        self._saving = False
        view = result.view
        if record_undo and review is self.session.review:
            self.undo_history.setdefault(item_id, []).append(before)
        if self.detail is not None and self.detail.id == item_id and review is self.session.review:
            self.version = view.version
            self.saved_draft = copy.deepcopy(view.draft)
            self.snapshot = result.snapshot
            self._show_others()
            self._set_status(f"Saved version {view.version}.")
        self.saved.emit(view)
        self.landed.emit(result)
        warnings = [p.message for p in problems(view.draft, kind, len(view.patch or [])) if p.level == "warning"]
        if warnings and view.draft.verdict is not None:
            self.warned.emit(f"Saved {record_id} as {view.draft.verdict.capitalize()}: {'; '.join(warnings)}")
        if view.draft.verdict == "fix" and self._wanted is None and self.fix_dialog is not None \
                and self.fix_dialog.isVisible() and self._closing_fix:
            self._closing_fix = False
            self.fix_dialog.close()
        if self._wanted is not None:
            self._pump()
            return
        if self._advance is not None and self._deferred is not _NOTHING:
            self._advance = None  # another item was chosen meanwhile (a click in the table): it wins
        if self._advance is not None:
            wanted, self._advance = self._advance, None
            if self.saved_draft is not None and (wanted == "next" or self.saved_draft.verdict == wanted):
                if result.advanced:
                    self._go_next(result.next_item)
                else:
                    self.save_and_next()
                return
        self._settle_down()

    def _save_failed(self, context, exc: BaseException) -> None:
        self._saving = False
        self._wanted = None
        self._advance = None
        self._typeahead.clear()  # keys typed for an item we are not leaving
        if isinstance(exc, StaleWrite):
            self._show_stale(exc)
        elif isinstance(exc, (ProtocolViolation, ItemBusy)):  # the store's rules are the final word; busy: retry
            self._set_status(f"Not saved: {exc}")
        elif isinstance(exc, (ReviewerError, SQLAlchemyError)):  # e.g. the team's server is unreachable
            self._set_status(f"Not saved: the store failed: {exc}")
        else:
            self._set_status(f"Not saved: {type(exc).__name__}: {exc}")
        self._settle_down()

    def _settle_down(self) -> None:
        """Nothing is being saved: show an item that waited for the saves, then replay typed-ahead keys."""
        if self._saving:
            return
        if self._deferred is not _NOTHING:
            detail, self._deferred = self._deferred, _NOTHING
            self.show_item(detail)
            return
        self._replay()

    def _replay(self) -> None:
        while self._typeahead and not self.typing_ahead and not self._saving:
            self._typeahead.popleft()()

    def _move_on_if_stored(self, verdict: str) -> None:
        """After a verdict key: a save in flight moves on when it lands; a verdict that was
        stored already (nothing to save) moves on now; a refused one stays."""
        if self.saving or self._advance is None:
            return
        self._advance = None
        if not self.stale and self.saved_draft is not None and self.saved_draft.verdict == verdict \
                and self.draft == self.saved_draft:
            self.save_and_next()

    def _show_stale(self, exc: StaleWrite) -> None:
        self.stale = True
        self._note_timer.stop()
        self.banner.show_message(
            "Your annotation of this item was changed in another window or by someone else "
            f"(you had version {exc.expected}, the store has version {exc.actual}). "
            "Your last change was NOT saved. Reload to see the stored annotation?",
            theme.colors()["error_bg"].name())
        self._set_status("Not saved: the stored annotation changed meanwhile.")

    def undo(self) -> None:
        """Ctrl+Z: drop unsaved local edits, else restore the draft saved before the last save."""
        if self._queued(self.undo):
            return
        if self.detail is None or self.stale or self._saving:
            return
        if self.saved_draft is not None and self.draft != self.saved_draft:
            self.draft = copy.deepcopy(self.saved_draft)
            self._refresh()
            self._set_status("Unsaved change undone.")
            return
        history = self.undo_history.get(self.detail.id) or []
        if not history:
            self._set_status("Nothing to undo for this item in this session.")
            return
        previous = history.pop()
        if not self.commit(previous, record_undo=False) and not self.stale:
            history.append(previous)

    # -- the fix editor ----------------------------------------------------------------------

    def open_fix_editor(self) -> FixEditor | None:
        """Open the fix editor on my earlier fix, else the current gold."""
        if self._queued(self.open_fix_editor):
            return None
        if not self._editable():
            return None
        if self.fix_dialog is None:
            self.fix_dialog = QDialog(self)
            self.fix_dialog.setWindowTitle("Fix the gold")
            self.fix_dialog.resize(720, 640)
            self.fix_editor = FixEditor(self.fix_dialog)
            QVBoxLayout(self.fix_dialog).addWidget(self.fix_editor)
            self.fix_editor.save_requested.connect(self._fix_saved)
            self.fix_editor.cancel_requested.connect(self.fix_dialog.close)
        d = self.detail
        self.fix_editor.title.setText(f"Fix the gold of {d.record_id}")
        fixed = self.draft.fixed_gold  # None: no fix drafted yet, the editor starts from the gold
        self.fix_editor.load(d.kind, d.gold, d.schema, current=d.gold if fixed is None else fixed)
        self.fix_dialog.show()
        self.fix_dialog.raise_()
        # the keyboard goes with it (E, then type): not every window manager activates a new window
        self.fix_dialog.activateWindow()
        self.fix_editor.text.setFocus(Qt.FocusReason.OtherFocusReason)
        return self.fix_editor

    def _fix_saved(self, value) -> None:
        """The editor's Save (Ctrl+Enter): the dialog closes once the fix is stored."""
        if not self._editable():
            return
        self._advance = "fix" if self.session.advance_after_verdict else None
        if not self.apply_fix(value):
            self._advance = None
            return
        if self.saving:
            self._closing_fix = True  # closes when the fix is stored
            return
        if self.fix_dialog is not None:
            self.fix_dialog.close()  # stored already (a panel without a job runner), or unchanged
        self._move_on_if_stored("fix")

    # -- navigation --------------------------------------------------------------------------

    def save_and_next(self) -> None:
        """N: save what is pending, then ask for the next item that needs my annotation
        (looked up off the GUI thread when the panel has a job runner)."""
        if self._queued(self.save_and_next) or self.detail is None:
            return
        self.flush_note()
        if self.saving:
            self._advance = self._advance or "next"  # the pending save looks the next item up
            return
        d, review = self.detail, self.session.review
        if self.runner is None:
            self._go_next(review.next_item(d.dataset_id, d.position))
            return
        self._awaiting = _LOOKING
        self.runner.start(f"annotation-next-{id(self)}", lambda _ctx: review.next_item(d.dataset_id, d.position),
                          on_result=self._go_next,
                          on_error=lambda exc, _tb: self._next_failed(exc))

    def _go_next(self, nxt: int | None) -> None:
        self._awaiting = None
        if nxt is None:
            self._set_status("Your queue is empty: every item that needs you has your annotation.")
            self.queue_done.emit()
            self._replay()
            return
        if self.runner is not None:  # keys typed from now on belong to the item asked for
            self._awaiting = nxt
            self._awaiting_timer.start()
        self.navigate.emit(nxt)

    def _next_failed(self, exc: BaseException) -> None:
        self._awaiting = None
        self._typeahead.clear()
        self._set_status(f"Could not find the next item: {exc}")

    def _next_never_came(self) -> None:
        """The host did not show the item asked for (it failed to load): keys typed for it are dropped."""
        if self._awaiting is not None:
            self._awaiting = None
            self._typeahead.clear()
            self._set_status("The next item did not open; keys typed meanwhile were not applied.")

    def _queued(self, action, *args) -> bool:
        """Keys typed while the panel moves on to the next item apply to that item, in order (type-ahead)."""
        if not self.typing_ahead:
            return False
        self._typeahead.append(lambda: action(*args))
        return True


def _read_snapshot(_ctx, review, item_id: int) -> ReviewSnapshot:
    """Job body (worker thread, no widgets): the item's review as the panel's reviewer may see it."""
    return review.snapshot(item_id)


def _save(_ctx, review, item_id, draft, version, item_version, dataset_id, position, advance) -> Saved:
    """Job body (worker thread, no widgets): one save and what the panel shows after it."""
    return review.save(item_id, draft, version, item_version, dataset_id, position, advance)
