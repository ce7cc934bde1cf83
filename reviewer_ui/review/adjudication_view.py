"""The adjudication view: settle an item the two annotators disagree on.

Shows both annotations side by side (differing rows highlighted), a three-way
view of the gold (original | fix A | fix B) with the merge of the two fixes
(``patch.merge``) and its conflicts, and a decision form: the final gold
(picked from A, B, the merge or the original, or edited), the final verdict,
ambiguity and difficulty, and a required rationale. Settle calls
``resolution.adjudicate`` with the adjudication version this view read, so a
decision made meanwhile elsewhere raises StaleWrite, shown with a Reload.

Only adjudicators (the session's ``Review.may_adjudicate``; in team mode the
database's roles) see and use it. Settling states every version the view read:
the adjudication's, the item's and each annotation's.
"""

from __future__ import annotations

import difflib
import html
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from shiboken6 import isValid
from PySide6.QtGui import QBrush, QTextCursor, QTextFormat
from PySide6.QtWidgets import (
    QGridLayout, QHBoxLayout, QHeaderView, QLabel, QPlainTextEdit, QPushButton, QScrollArea, QSplitter, QStyle, QTableWidget,
    QTableWidgetItem, QTextEdit, QVBoxLayout, QWidget,
)

from sqlalchemy.exc import SQLAlchemyError

from reviewer.errors import ReviewerError, StaleWrite
from reviewer.review import Draft, differences, problems
from reviewer.review.patch import Merge, apply_patch, merge, touched_paths
from reviewer.review.rubric import AMBIGUITY, CHECK_LABELS, VERDICTS, checks_for
from reviewer.review.views import AnnotationView, ReviewedGold, ReviewSnapshot
from reviewer_ui import theme
from reviewer_ui.review.fix_editor import FixEditor, describe_changes, to_text
from reviewer_ui.review.widgets import VERDICT_KEYS, Banner, ChoiceRow, rich_label
from reviewer_ui.widgets.wrap_grid import WrapGrid

# Below this width the four gold panes stack (original, A, B, merge, one under the other):
# side by side in the ~400 px Review dock each was ~90 px, its title squeezed to three lines.
STACK_PANES_BELOW = 720
PANE_LINES = 4  # a pane's text shows at least this many lines
from reviewer_ui.shortcuts import panel_key


def gold_after(original: Any, ann: AnnotationView) -> Any:
    """The gold an annotation asks for: its fix, or the original when it is not a Fix."""
    if ann.draft.verdict == "fix" and ann.patch is not None:
        return apply_patch(original, ann.patch)
    return original


def merge_of(original: Any, a: AnnotationView, b: AnnotationView) -> Merge:
    """Both fixes applied to the original; a non-Fix annotation contributes no edits."""
    ops = [ann.patch or [] if ann.draft.verdict == "fix" else [] for ann in (a, b)]
    return merge(original, ops[0], ops[1])


def comparison_rows(a: AnnotationView, b: AnnotationView, kind: str) -> list[tuple[str, str, str]]:
    """(field, A's value, B's value) for the side-by-side table."""
    da, db = a.draft, b.draft

    def yn(v):
        return {True: "yes", False: "no"}.get(v, "—")

    rows = [("Verdict", da.verdict or "—", db.verdict or "—")]
    for check in checks_for(kind):
        label = CHECK_LABELS.get(check, check).split(":")[0]
        rows.append((label, yn(da.checks.get(check)), yn(db.checks.get(check))))
    rows += [
        ("Ambiguity", da.ambiguity or "—", db.ambiguity or "—"),
        ("Difficulty", da.difficulty or "—", db.difficulty or "—"),
        ("Error tags", ", ".join(sorted(da.error_tags)) or "—", ", ".join(sorted(db.error_tags)) or "—"),
        ("Note", da.note or "—", db.note or "—"),
        ("Fix", _fix_summary(a), _fix_summary(b)),
    ]
    return rows


def changed_lines(before: str, after: str) -> list[int]:
    """0-based numbers of the lines of ``after`` that are new or changed against ``before``."""
    matcher = difflib.SequenceMatcher(None, before.splitlines(), after.splitlines(), autojunk=False)
    return [j for tag, _i1, _i2, j1, j2 in matcher.get_opcodes() if tag in ("replace", "insert")
            for j in range(j1, j2)]


def _fix_summary(ann: AnnotationView) -> str:
    if ann.draft.verdict != "fix":
        return "—"
    paths = sorted(touched_paths(ann.patch)) or ["(none)"]
    return f"{len(ann.patch or [])} edit(s): " + ", ".join(p or "(whole value)" for p in paths)


def cap_splitter(splitter) -> None:
    """A splitter of capped panes is no taller than they are: its own splitter otherwise gives it
    height that none of its panes may take (an empty band under the gold panes)."""
    if not isinstance(splitter, QSplitter):
        return
    heights = [splitter.widget(i).maximumHeight() for i in range(splitter.count())]
    if splitter.orientation() == Qt.Orientation.Vertical:
        need = sum(heights) + splitter.handleWidth() * (len(heights) - 1)
    else:
        need = max(heights, default=16777215)
    splitter.setMaximumHeight(min(need, 16777215))


class ComparisonTable(QTableWidget):
    """The side-by-side table: A's and B's values in two columns that share the width, each row
    named in the vertical header. Some kinds' check names are long ("Query mentions every
    non-nested parameter and fits the chain"): as one line the header took the whole table in
    the ~400 px Review dock (432 px of labels, a 0 px wide viewport, the values off screen). The
    labels wrap within at most LABEL_SHARE of the width, each row as tall as its wrapped label
    and its values, and the table as tall as its rows (every row visible without scrolling)."""

    LABEL_SHARE = 0.4
    MAX_HEIGHT = 420

    def __init__(self, parent: QWidget | None = None):
        super().__init__(0, 2, parent)
        self.verticalHeader().setDefaultAlignment(
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextWordWrap)
        self._fitting = False

    def _label_margin(self) -> int:
        return self.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, self.verticalHeader())

    def fit_rows(self) -> None:
        """Cap the label column, then size every row to its wrapped label and cells."""
        if self._fitting:
            return
        self._fitting = True
        try:
            header = self.verticalHeader()
            metrics = header.fontMetrics()
            margin = self._label_margin()
            labels = [self.verticalHeaderItem(r).text() if self.verticalHeaderItem(r) else ""
                      for r in range(self.rowCount())]
            natural = max((metrics.horizontalAdvance(t) for t in labels), default=0) + 2 * margin + 2
            # The header's own measure also counts the style sheet's section padding (light.qss):
            # without it "Cross-field consistency" wrapped inside a row one line tall, cut in half.
            natural = max(natural, header.sizeHint().width())
            room = max(self.width() - 2 * self.frameWidth(), 0)
            cap = max(int(room * self.LABEL_SHARE), metrics.horizontalAdvance("Difficulty") + 2 * margin + 2)
            header.setFixedWidth(min(natural, cap))
            self.updateGeometries()  # the value columns take the width the labels left
            self.resizeRowsToContents()
            text_width = max(header.width() - 2 * margin, 1)
            for r, label in enumerate(labels):
                wrapped = metrics.boundingRect(0, 0, text_width, 100000, int(Qt.TextFlag.TextWordWrap), label)
                need = wrapped.height() + 2 * margin
                if self.rowHeight(r) < need:
                    self.setRowHeight(r, need)
            height = self.horizontalHeader().sizeHint().height() + 2 * self.frameWidth() + sum(
                self.rowHeight(r) for r in range(self.rowCount())) + 2
            self.setMinimumHeight(min(height, self.MAX_HEIGHT))
        finally:
            self._fitting = False

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.fit_rows()  # narrower: the labels and values wrap to more lines


class GoldPane(QWidget):
    """A titled, read-only JSON text with the list of its changes under it."""

    def __init__(self, title: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.title = QLabel(title)
        self.title.setObjectName("sectionTitle")
        self.title.setWordWrap(True)  # "A (a long login): pass, no fix" must not widen the window
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setFont(theme.monospace_font())
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.notes = rich_label("muted")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.text.setMinimumHeight(self.text.fontMetrics().lineSpacing() * PANE_LINES
                                   + 2 * self.text.frameWidth() + 8)
        layout.addWidget(self.title)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.notes)
        layout.addStretch(0)  # with the text hidden, the notes stay under the title (no gap between)

    def _cap_height(self) -> None:
        """The pane is as tall as its title, its text's lines (at least PANE_LINES) and its notes,
        no taller: a splitter otherwise shares out its height evenly, and an empty pane stood
        ~150 px tall, the one-line original gold 175 px while the final gold's editor showed one
        line. The height a pane does not need goes to the panes beside it and to the decision."""
        layout = self.layout()
        if self.text.isHidden():
            need = layout.heightForWidth(self.width()) if layout.hasHeightForWidth() else -1
            self.setMaximumHeight(max(need, layout.minimumSize().height(), layout.sizeHint().height()))
            cap_splitter(self.parentWidget())
            return
        text = self.text
        lines = max(PANE_LINES, text.blockCount())
        text.setMaximumHeight(lines * text.fontMetrics().lineSpacing() + 2 * text.frameWidth() + 8
                              + text.horizontalScrollBar().sizeHint().height())  # NoWrap: a long line scrolls
        width = self.width()
        parts = [text.maximumHeight()] + [
            label.heightForWidth(width) if label.heightForWidth(width) > 0 else label.sizeHint().height()
            for label in (self.title, self.notes) if label.text()]
        margins = layout.contentsMargins()
        self.setMaximumHeight(sum(parts) + layout.spacing() * (len(parts) - 1) + margins.top() + margins.bottom())
        cap_splitter(self.parentWidget())

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._cap_height()  # the notes wrap to more lines when narrower

    def show_value(self, title: str, value: Any, notes: list[str], against: Any = None) -> None:
        """Show ``value``; with ``against`` (the original), lines that differ from it are highlighted."""
        self.title.setText(title)
        text = to_text(value) if value is not None else ""
        self.text.setPlainText(text)
        # Nothing to show (no fix, or a merge in conflict): the title and notes say so, no empty box.
        self.text.setVisible(value is not None)
        self.changed_lines = changed_lines(to_text(against), text) if against is not None and text else []
        selections = []
        for line in self.changed_lines:
            sel = QTextEdit.ExtraSelection()
            sel.format.setBackground(theme.colors()["changed"])
            sel.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            sel.cursor = QTextCursor(self.text.document().findBlockByNumber(line))
            selections.append(sel)
        self.text.setExtraSelections(selections)
        if self.changed_lines:  # bring the first change into view
            self.text.setTextCursor(QTextCursor(self.text.document().findBlockByNumber(self.changed_lines[0])))
            QTimer.singleShot(0, self.text, self.text.centerCursor)  # once the pane has its size
        self.notes.setText("<br>".join(html.escape(n) for n in notes[:8])
                           + (f"<br>… {len(notes) - 8} more" if len(notes) > 8 else ""))
        self._cap_height()  # with the notes in


class AdjudicationPanel(QWidget):
    settled = Signal(object)  # the core's AdjudicationView after a successful settle
    enlarge_requested = Signal()  # the host may give the view more room (its button is hidden until shown)

    def __init__(self, session, runner=None, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.store = session.store
        self.runner = runner  # settles run on it, off the GUI thread (synchronously without one)
        self.settling = False
        self.detail = None
        self.snapshot: ReviewSnapshot | None = None
        self.a: AnnotationView | None = None
        self.b: AnnotationView | None = None
        self.merged: Merge | None = None
        self.reviewed: ReviewedGold | None = None
        self.expected_version: int | None = None
        self._loading: int | None = None  # the item being read (off the GUI thread)
        self._build()
        session.changed.connect(self.reload)
        self._set_access()

    # -- layout -----------------------------------------------------------------------

    focus_on_show = False  # put the keyboard in the panel once the next item's read lands (request_focus)

    def request_focus(self) -> None:
        """Take the keyboard as soon as the item being read is shown (opened from the queue)."""
        if self._loading is None and self.body.isVisible():
            self.table.setFocus(Qt.FocusReason.OtherFocusReason)
        else:
            self.focus_on_show = True

    def _build(self) -> None:
        self.title = QLabel("Adjudication")
        self.title.setObjectName("heading")
        self.enlarge_button = QPushButton("Larger window")
        self.enlarge_button.setToolTip("The four gold panes need room: open this view in a window of its own")
        self.enlarge_button.clicked.connect(self.enlarge_requested)
        self.enlarge_button.hide()
        self.access = rich_label()
        self.banner = Banner("Reload")
        self.banner.action.clicked.connect(self.reload)

        self.table = ComparisonTable()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)  # A and B share the width: both in view
        header.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # "A (v2; first: reject)"; the whole line: tooltip
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setProperty("elidedColumns", [0, 1])  # tools/fitcheck: both columns in view, readable
        self.reasons = rich_label()

        self.panes = {k: GoldPane(t) for k, t in
                      (("original", "Original gold"), ("a", "Fix A"), ("b", "Fix B"), ("merge", "Merge of A and B"))}
        # Side by side when the view is wide (floated large), stacked in the dock (resizeEvent).
        self.three_way = three_way = QSplitter(Qt.Orientation.Vertical)
        three_way.setChildrenCollapsible(False)
        for pane in self.panes.values():
            three_way.addWidget(pane)

        self.pick_a = QPushButton("Take A")
        self.pick_b = QPushButton("Take B")
        self.pick_merge = QPushButton("Take the merge")
        self.pick_original = QPushButton("Keep the original")
        for button, which in ((self.pick_a, "a"), (self.pick_b, "b"), (self.pick_merge, "merge"),
                              (self.pick_original, "original")):
            button.clicked.connect(lambda _c=False, w=which: self.pick(w))
        # One row when there is room, else two (2x2): the dock never scrolls sideways to "Keep the original".
        self.picks = WrapGrid([self.pick_a, self.pick_b, self.pick_merge, self.pick_original])
        picks = QHBoxLayout()
        final_label = QLabel("Final gold:")
        picks.addWidget(final_label, 0, Qt.AlignmentFlag.AlignTop)
        picks.addWidget(self.picks, 1)

        self.editor = FixEditor(show_buttons=False)
        self.editor.title.setText("Final gold (edit freely)")
        self.editor.reset_button.hide()
        # Here the unchanged gold is a decision too (Pass or Reject keep it), not only a Fix not yet made.
        self.editor.no_change_text = ("The gold the annotators reviewed, unchanged: Pass or Reject keep it; "
                                      "a Fix must change it.")
        self.editor.validated.connect(self._update_problems)
        # Tab moves on to the verdict, the rationale and Settle (Enter still indents): in the
        # editor's own window Tab may indent, here it trapped the keyboard above the decision
        self.editor.text.setTabChangesFocus(True)

        self.verdict = ChoiceRow([(v, f"{v.capitalize()}  ({VERDICT_KEYS[v]})") for v in VERDICTS])
        self.verdict.chosen.connect(self._chose_verdict)
        self.ambiguity = ChoiceRow([(a, a.capitalize()) for a in AMBIGUITY])
        self.ambiguity.chosen.connect(self._chose_ambiguity)
        self.difficulty = ChoiceRow([("medium", "Medium"), ("hard", "Hard")])
        self.difficulty.chosen.connect(lambda v: self.difficulty.set_value(v))
        self.rationale = QPlainTextEdit()
        self.rationale.setPlaceholderText("Rationale (required): why this decision")
        self.rationale.setMaximumHeight(60)
        self.rationale.textChanged.connect(self._update_problems)
        self.problems = rich_label()
        self.problems.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse
                                              | Qt.TextInteractionFlag.LinksAccessibleByKeyboard)
        self.problems.linkActivated.connect(self.go_to)
        self.settle_button = QPushButton("Settle")
        self.settle_button.clicked.connect(self.settle)
        self.settle_button.setToolTip("Settle (Ctrl+Enter)")
        panel_key(self, "Ctrl+Return", self.settle, "Adjudication", "Settle")
        for which, key, button in (("a", "Alt+A", self.pick_a), ("b", "Alt+B", self.pick_b),
                                   ("merge", "Alt+M", self.pick_merge), ("original", "Alt+O", self.pick_original)):
            panel_key(self, key, lambda w=which: self.pick(w), "Adjudication", f"Final gold: {button.text()}")
            button.setToolTip(f"{button.text()} ({key})")
        for verdict, key in VERDICT_KEYS.items():  # as in the annotation panel (typing in a text box types)
            panel_key(self, key, lambda v=verdict: self.choose_verdict(v), "Adjudication",
                      f"Verdict: {verdict.capitalize()}")
        self.status = QLabel("")
        self.status.setObjectName("muted")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)

        form = QGridLayout()
        form.addWidget(QLabel("Verdict"), 0, 0)
        form.addWidget(self.verdict, 0, 1)
        form.addWidget(QLabel("Ambiguity"), 1, 0)
        form.addWidget(self.ambiguity, 1, 1)
        form.addWidget(QLabel("Difficulty"), 2, 0)
        form.addWidget(self.difficulty, 2, 1)
        form.addWidget(self.rationale, 3, 0, 1, 2)
        # What blocks Settle and Settle itself stay below what scrolls: in the dock at 1366x768 the
        # decision sits under the four gold panes and the final gold's editor, and the adjudicator
        # should not have to scroll down to learn whether (and why not) the item can be settled.
        self.settle_bar = QWidget()
        settle_row = QHBoxLayout(self.settle_bar)
        settle_row.setContentsMargins(0, 4, 0, 0)
        settle_row.addWidget(self.problems, 1)
        settle_row.addWidget(self.settle_button, 0, Qt.AlignmentFlag.AlignTop)

        self.body = QWidget()
        body = QVBoxLayout(self.body)
        body.setContentsMargins(0, 0, 0, 0)
        top = QSplitter(Qt.Orientation.Vertical)
        compare = QWidget()
        cl = QVBoxLayout(compare)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.addWidget(self.table, 1)
        top.addWidget(compare)
        top.addWidget(three_way)
        decide = QWidget()
        dl = QVBoxLayout(decide)
        dl.setContentsMargins(0, 0, 0, 0)
        dl.addLayout(picks)
        dl.addWidget(self.editor, 1)
        dl.addLayout(form)
        top.addWidget(decide)
        top.setStretchFactor(0, 0)
        top.setStretchFactor(1, 3)
        top.setStretchFactor(2, 4)
        # The reasons wrap to as many lines as the width needs: above the splitter, whose panes
        # keep the heights they were first given (inside it, the lines hid the table's last row).
        body.addWidget(self.reasons)
        body.addWidget(top, 1)

        # The body scrolls under the heading, not with it: scrolled down to the decision in the
        # dock, "Larger window" (which the short dock is what needs) scrolled out of reach.
        self.body_area = QScrollArea()
        self.body_area.setWidgetResizable(True)
        self.body_area.setFrameShape(QScrollArea.Shape.NoFrame)
        self.body_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # WrapGrid wraps
        self.body_area.setWidget(self.body)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.enlarge_button)
        layout.addLayout(head)
        layout.addWidget(self.access)
        layout.addWidget(self.banner)
        layout.addWidget(self.body_area, 1)
        layout.addWidget(self.settle_bar)
        layout.addWidget(self.status)

    def _show_body(self, on: bool) -> None:
        """The comparison and decision, with the area that scrolls them and the Settle bar (hidden
        together, so the access message is not followed by an empty scroll area's room)."""
        self.body_area.setVisible(on)
        self.body.setVisible(on)
        self.settle_bar.setVisible(on)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        wide = event.size().width() >= STACK_PANES_BELOW
        orientation = Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical
        if self.three_way.orientation() != orientation:
            self.three_way.setOrientation(orientation)
            cap_splitter(self.three_way)  # stacked, the panes' heights add up; side by side, the tallest

    def _set_access(self) -> bool:
        allowed = self.session.is_adjudicator
        self._show_body(allowed and self.detail is not None)
        if not self.session.signed_in:  # the role is not known (yet): nothing adjudicator-only shows
            self.access.setText(html.escape(self.session.waiting_text()))
        elif not allowed:
            self.access.setText(
                f"Only adjudicators settle items. You are {html.escape(self.session.name)} "
                f"({html.escape(self.session.role)}): switch identity in Review ▸ Identity… to adjudicate.")
        elif self.detail is None:
            self.access.setText("Pick an item from the adjudication queue.")
        else:
            self.access.setText("")
        self.access.setVisible(bool(self.access.text()))
        return allowed

    # -- showing an item ------------------------------------------------------------------

    def show_item(self, detail) -> None:
        self.detail = detail
        self.reload()

    def reload(self) -> None:
        """Read the item (its gold may have changed since it was shown) and its review again;
        on the job runner when the view has one (the view says "loading" until both land, and
        a newer item supersedes an older read)."""
        self.banner.hide()
        self.status.setText("")
        if not self._set_access() or self.detail is None:
            self._loading = None  # a read for the previous identity is not shown
            return
        item_id, review = self.detail.id, self.session.review
        if self.runner is None:
            self._show_read(*_read_item(None, self.store, review, item_id))
            return
        self._loading = item_id
        self.a = self.b = None
        self.snapshot = None
        self._show_body(False)
        self.title.setText(f"Adjudication · {self.detail.record_id}")
        self.access.setText("Loading the item's annotations…")
        self.access.show()
        self.runner.start(f"adjudication-load-{id(self)}", _read_item, self.store, review, item_id,
                          on_result=lambda read: self._read_landed(item_id, review, read),
                          on_error=lambda exc, _tb: self._read_failed(item_id, exc))

    def _read_landed(self, item_id: int, review, read) -> None:
        if not isValid(self):
            return  # the view was closed while the read ran
        if self._loading != item_id or self.detail is None or self.detail.id != item_id \
                or review is not self.session.review:
            return  # superseded by another item or identity
        self._loading = None
        self.access.setText("")
        self.access.hide()
        self._show_read(*read)
        if self.focus_on_show and self.body.isVisible():
            # opened from the queue with Enter: the keyboard continues here (P/F/R, Ctrl+Enter work
            # inside the panel), not on the scroll area around it
            self.focus_on_show = False
            self.table.setFocus(Qt.FocusReason.OtherFocusReason)

    def _read_failed(self, item_id: int, exc: BaseException) -> None:
        if not isValid(self) or self._loading != item_id:
            return
        self._loading = None
        self.access.setText(f"Could not read the item: {html.escape(str(exc))}")
        self.access.show()

    def _show_read(self, detail, snapshot: ReviewSnapshot, reviewed: ReviewedGold) -> None:
        self.detail = d = detail
        self.title.setText(f"Adjudication · {d.record_id}")
        self.snapshot = snapshot
        anns = sorted([x for x in [self.snapshot.mine, *self.snapshot.others] if x is not None and x.draft.verdict],
                      key=lambda x: x.annotator)
        adj = self.snapshot.adjudication
        self.expected_version = adj.version if adj else None
        if len(anns) < 2:
            self.a = self.b = None
            self._show_body(False)
            self.access.setText(f"{html.escape(d.record_id)} has {len(anns)} annotation(s) with a verdict; "
                                "adjudication needs two.")
            self.access.show()
            return
        self._show_body(True)
        self.a, self.b = anns[0], anns[1]
        self._show_comparison(d.kind)
        self.reviewed = reviewed
        self._show_three_way(reviewed)
        # The final gold is edited as a fix of the gold the annotators reviewed, as their fixes were:
        # the item's gold now may be an earlier settlement's fix, which settling again as Fix keeps.
        self.editor.load(d.kind, reviewed.gold, d.schema, current=d.gold)
        self._prefill(adj)
        if adj is not None:
            who = "automatically" if adj.resolution == "auto" else f"by {adj.adjudicator}"
            self.status.setText(f"Settled {who} as {adj.verdict} (version {adj.version}); "
                                "settling again replaces that decision.")

    def _show_comparison(self, kind: str) -> None:
        rows = comparison_rows(self.a, self.b, kind)
        self.table.setRowCount(len(rows))
        firsts = self.snapshot.first_submissions if self.snapshot is not None else {}

        def header(key: str, ann) -> str:
            first = firsts.get(ann.annotator)
            revised = f"; first submitted: {first.verdict}" if first and first.verdict != ann.draft.verdict else ""
            return f"{key}: {ann.annotator} (latest, v{ann.version}{revised})"

        # Short headers (the panes below name A and B); the whole line is the tooltip.
        def short(key: str, ann) -> str:
            first = firsts.get(ann.annotator)
            revised = f"; first: {first.verdict}" if first and first.verdict != ann.draft.verdict else ""
            return f"{key} (v{ann.version}{revised})"

        self.table.setHorizontalHeaderLabels([short("A", self.a), short("B", self.b)])
        for col, (key, ann) in enumerate((("A", self.a), ("B", self.b))):
            self.table.horizontalHeaderItem(col).setToolTip(header(key, ann))
        self.table.setVerticalHeaderLabels([r[0] for r in rows])
        full = {label.split(":")[0]: label for label in CHECK_LABELS.values()}
        for r, (field, _va, _vb) in enumerate(rows):  # a check's whole rubric line on hover
            self.table.verticalHeaderItem(r).setToolTip(full.get(field, field))
        changed = QBrush(theme.colors()["changed"])
        self.differing_rows = []
        for i, (_field, va, vb) in enumerate(rows):
            for col, value in enumerate((va, vb)):
                cell = QTableWidgetItem(value)
                if va != vb:
                    cell.setBackground(changed)
                self.table.setItem(i, col, cell)
            if va != vb:
                self.differing_rows.append(i)
        # Every row visible without scrolling: the comparison is what the adjudicator reads first.
        self.table.fit_rows()
        firsts = self.snapshot.first_submissions
        fa, fb = firsts.get(self.a.annotator), firsts.get(self.b.annotator)
        reasons = differences(fa, fb) if fa and fb else differences(self.a.draft, self.b.draft)
        self.reasons.setText("First submissions differ: " + html.escape("; ".join(reasons)) if reasons
                             else "The two first submissions agree (automatic settlement is off for this dataset).")

    def _show_three_way(self, reviewed: ReviewedGold) -> None:
        """The gold the annotators reviewed, each one's fix of the gold they saw, and the merge."""
        original = reviewed.gold
        notes = []
        if reviewed.differs:
            notes = [f"{ann.annotator} saw an earlier gold (edited since)" for ann in (self.a, self.b)
                     if reviewed.of(ann.annotator) != original]
        if original != self.detail.gold:
            notes.append("The current gold differs (settled or edited since the annotators saved)")
        self.panes["original"].show_value("Original gold", original, notes)
        for key, ann in (("a", self.a), ("b", self.b)):
            if ann.draft.verdict == "fix":
                base = reviewed.of(ann.annotator)
                value = gold_after(base, ann)
                notes = describe_changes(base, value, ann.patch)
                self.panes[key].show_value(f"Fix {key.upper()} ({ann.annotator})", value, notes, base)
            else:
                self.panes[key].show_value(f"{key.upper()} ({ann.annotator}): {ann.draft.verdict}, no fix", None,
                                           [f"{ann.annotator} did not change the gold"])
        self.merged = merge_of(original, self.a, self.b)
        if self.merged.conflicts:
            self.panes["merge"].show_value("Merge: conflicts", None,
                                           ["Both fixes change these paths differently:", *self.merged.conflicts])
            self.panes["merge"].notes.setStyleSheet(f"color: {theme.colors()['bad'].name()}")
        else:
            self.panes["merge"].notes.setStyleSheet("")
            self.panes["merge"].show_value("Merge of A and B", self.merged.merged,
                                           describe_changes(original, self.merged.merged), original)
        self.pick_merge.setEnabled(not self.merged.conflicts)
        # Short labels (a login can be long and would widen the whole window); the name is in the tooltip.
        self.pick_a.setText("Take A")
        self.pick_b.setText("Take B")
        self.pick_a.setToolTip(f"Take {self.a.annotator}'s gold")
        self.pick_b.setToolTip(f"Take {self.b.annotator}'s gold")

    def _prefill(self, adj) -> None:
        da, db = self.a.draft, self.b.draft
        if adj is not None and adj.resolution == "manual":
            self.verdict.set_value(adj.verdict)
            self.ambiguity.set_value((adj.rubric or {}).get("ambiguity"))
            self.difficulty.set_value((adj.rubric or {}).get("difficulty"))
            self.rationale.setPlainText(adj.rationale or "")
            # A settled Fix is already in the editor: the item's current gold (load), which is the
            # settled fix unless the gold was edited since; that edit must show, not be replaced unseen.
        else:
            self.verdict.set_value(da.verdict if da.verdict == db.verdict else None)
            worse = [x for x in (da.ambiguity, db.ambiguity) if x in AMBIGUITY]
            self.ambiguity.set_value(max(worse, key=AMBIGUITY.index) if worse else None)
            self.difficulty.set_value(da.difficulty if da.difficulty == db.difficulty else None)
            self.rationale.setPlainText("")
        self._update_problems()

    # -- deciding ------------------------------------------------------------------------

    def pick(self, which: str) -> None:
        """Take A's or B's decision, the merge of both fixes, or the gold the annotators reviewed."""
        original = self.reviewed.gold
        if which in ("a", "b"):
            ann = self.a if which == "a" else self.b
            # A Fix: that annotator's fix of the gold they saw. A Pass or Reject: the reviewed gold,
            # which is what settling as Pass or Reject keeps (the gold they saw may be an older one).
            self.editor.set_value(gold_after(self.reviewed.of(ann.annotator), ann) if ann.draft.verdict == "fix"
                                  else original)
            self.verdict.set_value(ann.draft.verdict)
            self.ambiguity.set_value(ann.draft.ambiguity)
            self.difficulty.set_value(ann.draft.difficulty)
        elif which == "merge":
            if self.merged is None or self.merged.conflicts:
                return
            self.editor.set_value(self.merged.merged)
            self.verdict.set_value("fix")
        else:
            self.editor.set_value(original)
            if self.verdict.value == "fix":
                self.verdict.set_value(None)  # the gold unchanged is no Fix: Pass or Reject
        self._update_problems()

    def choose_verdict(self, verdict: str) -> None:
        """The verdict key: choose it (unless the protocol rules it out) and bring the form into view."""
        if self.body.isVisible() and self.verdict.buttons[verdict].isEnabled():
            self._chose_verdict(verdict)
            self.body_area.ensureWidgetVisible(self.verdict)

    def _chose_verdict(self, verdict: str) -> None:
        self.verdict.set_value(verdict)
        self._update_problems()

    def _chose_ambiguity(self, value: str) -> None:
        self.ambiguity.set_value(value)
        self._update_problems()

    def blockers(self) -> list[str]:
        """Why Settle cannot run now (empty: it can)."""
        return [message for message, _where in self._blockers()]

    def _blockers(self) -> list[tuple[str, str]]:
        """(why Settle cannot run, the part of the form to change: "verdict", "gold" or "rationale")."""
        out = []
        if self.a is None:
            return [("two annotations are needed", "")]
        verdict = self.verdict.value
        if verdict is None:
            out.append(("choose the final verdict", "verdict"))
        if verdict is not None:  # the protocol's verdict rules (rubric.problems), e.g. High ambiguity vs Pass
            decision = Draft(verdict=verdict, ambiguity=self.ambiguity.value)
            out += [(p.message, "verdict") for p in problems(decision, "")
                    if p.level == "error" and p.field == "verdict"]
        if verdict == "fix":
            if self.editor.syntax_error:
                out.append(("the final gold is not valid JSON", "gold"))
            elif self.editor.op_count == 0:
                out.append(("a Fix must change the gold", "gold"))
        if verdict in ("pass", "reject") and self.editor.value is not None and self.editor.op_count:
            out.append((f"the final gold was edited but the verdict is {verdict}: choose Fix or keep the original",
                        "verdict"))
        if not self.rationale.toPlainText().strip():
            out.append(("write a rationale", "rationale"))
        return out

    def go_to(self, where: str) -> None:
        """Scroll the part of the form a blocker names into view and put the keyboard there."""
        widget = {"verdict": self.verdict, "gold": self.editor, "rationale": self.rationale}.get(where)
        if widget is None or not widget.isVisible():
            return
        self.body_area.ensureWidgetVisible(widget)
        if widget is self.verdict:
            chosen = self.verdict.buttons.get(self.verdict.value or "")
            target = chosen or next((b for b in self.verdict.buttons.values() if b.isEnabled()), None)
            if target is not None:
                target.setFocus()
        elif widget is self.editor:
            self.editor.text.setFocus()
        else:
            widget.setFocus()

    def gold_note(self) -> str:
        """What settling does to a gold that is not the one the annotators reviewed (empty: nothing
        to say). Pass and Reject write the reviewed gold back (Review.adjudicate)."""
        verdict = self.verdict.value
        if verdict not in ("pass", "reject") or self.reviewed is None or self.detail is None:
            return ""
        if self.detail.gold == self.reviewed.gold:
            return ""
        return (f"Settling as {verdict.capitalize()} writes back the original gold the annotators reviewed, "
                "replacing the item's current gold (settled or edited since).")

    def _update_problems(self) -> None:
        found = self._blockers()
        # Pass allowed or not by the protocol's own rule (rubric.problems), not a copy of it.
        as_pass = Draft(verdict="pass", ambiguity=self.ambiguity.value)
        self.verdict.buttons["pass"].setEnabled(not [p for p in problems(as_pass, "") if p.field == "verdict"])
        color = theme.colors()["bad"].name()
        # each blocker links to what it is about (the form may be scrolled out of view)
        lines = [f"<div style='color:{color}'>✗ " + (f"<a href='{where}' style='color:{color}'>{html.escape(p)}</a>"
                                                     if where else html.escape(p)) + "</div>"
                 for p, where in found]
        note = self.gold_note()
        if note:
            lines.append(f"<div style='color:{theme.colors()['unk'].name()}'>⚠ {html.escape(note)}</div>")
        self.problems.setText("".join(lines))
        self.settle_button.setEnabled(not found and not self.settling)

    def settle(self):
        """Settle the item with the decision in the form; the stored decision, or None."""
        if self._loading is not None or self.snapshot is None or self.a is None:
            return None  # the item is still being read: there is no decision to store yet
        self.editor.validate_now()
        if self.blockers():
            self._update_problems()
            return None
        verdict = self.verdict.value
        rubric = {"ambiguity": self.ambiguity.value, "difficulty": self.difficulty.value}
        final = self.editor.value if verdict == "fix" else None
        snap = self.snapshot
        seen = {x.annotator: x.version for x in [snap.mine, *snap.others] if x is not None}
        args = (self.detail.id, verdict, final, self.rationale.toPlainText().strip(), rubric, self.expected_version,
                snap.item_version, seen)
        review = self.session.review
        if self.runner is None:
            try:
                view = _adjudicate(None, review, *args)
            except (ReviewerError, SQLAlchemyError) as exc:
                self._settle_failed(exc)
                return None
            self._settle_landed(view)
            return view
        if self.settling:
            return None  # one decision at a time: the button is disabled until it lands
        self.settling = True
        self.settle_button.setEnabled(False)
        self.status.setText("Settling…")
        self.runner.start(f"adjudication-save-{id(self)}", _adjudicate, review, *args,
                          on_result=self._settle_landed, on_error=lambda exc, _tb: self._settle_failed(exc))
        return None

    def _settle_landed(self, view) -> None:
        self.expected_version = view.version
        self.status.setText(f"Settled as {view.verdict} by {view.adjudicator} (version {view.version}).")
        # The settlement moved the item's and the review's versions on: read them again, quietly (the
        # form stays as it is), before the next Settle, which would otherwise be refused as stale and
        # blamed on "someone else". Settle stays off until they are in.
        item_id, review = self.detail.id, self.session.review
        if self.runner is None:
            self._versions_landed(item_id, review, _read_item(None, self.store, review, item_id))
        else:
            self.runner.start(f"adjudication-versions-{id(self)}", _read_item, self.store, review, item_id,
                              on_result=lambda read: self._versions_landed(item_id, review, read),
                              on_error=lambda exc, _tb: self._versions_landed(item_id, review, None))
        self.settled.emit(view)

    def _versions_landed(self, item_id: int, review, read) -> None:
        """After a settlement: the item, review and adjudication versions as stored now."""
        if not isValid(self):
            return
        self.settling = False
        if read is not None and self._loading is None and self.detail is not None and self.detail.id == item_id \
                and review is self.session.review:
            self.detail, self.snapshot, self.reviewed = read
            adj = self.snapshot.adjudication
            self.expected_version = adj.version if adj else None
        self._update_problems()

    def _settle_failed(self, exc: BaseException) -> None:
        self.settling = False
        self._update_problems()
        if isinstance(exc, StaleWrite):
            self.banner.show_message(
                "This item was settled meanwhile in another window or by someone else "
                f"(you saw version {exc.expected}, the store has {exc.actual}); your decision was NOT saved. "
                "Reload to see it?", theme.colors()["error_bg"].name())
            self.status.setText("")
        else:
            self.status.setText(f"Not settled: {exc}")


def _read_item(_ctx, store, review, item_id: int):
    """Job body (worker thread, no widgets): the item as stored now, its review as ``review`` sees it
    and the gold its annotators reviewed (the base of the three-way view, not the current gold)."""
    return store.item(item_id), review.snapshot(item_id), review.reviewed_gold(item_id)


def _adjudicate(_ctx, review, item_id, verdict, final, rationale, rubric, expected_version, item_version, seen):
    """Job body (worker thread, no widgets): settle one item."""
    return review.adjudicate(item_id, verdict, final, rationale, rubric, expected_version,
                             item_version=item_version, annotation_versions=seen)
