"""The quality guards of the item on show (reviewer.guards), where the annotator decides.

One line per guard (✓ pass, ✗ failed, ! could not run, – does not apply, ↻ stale),
and under a failed guard what it found: each gold value's supporting span in the
source (or "no evidence"), the violated rules with their paths and values, the
similar documents, and for gold drift both values with "Take program's answer",
which writes the program's answer as the gold in one action (core:
``reviewer.guards.fix_from_program``). Loading and the fix run on the job runner
(keys ``guards`` and ``guards-fix``); widgets never touch the database.

Also here: ``GuardFilter``, the "Guard" choice of the item table's filter bar
(``ItemQuery.guard_failed``).
"""

from __future__ import annotations

import html
from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox, QDialog, QDialogButtonBox, QFrame, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QScrollArea,
    QSizePolicy, QSpinBox, QVBoxLayout, QWidget,
)

from reviewer.guards.names import GUARD_NAMES, LABELS

MARKS = {"pass": "✓", "fail": "✗", "error": "!", "skip": "–"}
CONTEXT = 40  # characters shown either side of a span found


def load_guards(ctx, store, dataset_id: int, item_id: int):
    """Job body: (ItemGuards or None, the item's source text)."""
    from reviewer.guards import item_guards
    from reviewer.guards.storage import load_items

    views = item_guards(store, dataset_id, [item_id])
    with store.engine.connect() as conn:
        items = load_items(conn, dataset_id, [item_id])
    return views.get(item_id), (items[0].source if items else "")


def take_program_answer(ctx, store, item_id: int, actor: str) -> int:
    from reviewer.guards import fix_from_program

    return fix_from_program(store, item_id, actor)


def check_dataset(ctx, store, dataset_id: int):
    """Job body: every guard over the dataset (progress and cancel through ``ctx``)."""
    from reviewer.guards import run_checks

    return run_checks(store, dataset_id, ctx)


def recheck_item(ctx, store, dataset_id: int, item_id: int, names: list[str]):
    """Job body: re-run ``names`` on one item whose gold or source changed (a gold program
    runs in the sandbox, so this is not done on the GUI thread)."""
    from reviewer.guards import run_checks

    return run_checks(store, dataset_id, ctx, guards=names, item_ids=[item_id])


def load_settings(ctx, store, dataset_id: int):
    from reviewer.guards import settings

    with store.engine.connect() as conn:
        return settings.load(conn, dataset_id)


def save_settings(ctx, store, dataset_id: int, actor: str, rules: list[str], min_words: int | None):
    from reviewer.guards import settings

    return settings.update(store, dataset_id, actor=actor, rules=rules, min_words=min_words)


class RulesDialog(QDialog):
    """The dataset's constraint rules (one per line) and the length threshold. Rules are
    checked as they are typed; OK stays disabled while one does not parse."""

    def __init__(self, current, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Guard rules of this dataset")
        self.rules = QPlainTextEdit("\n".join(current.rules))
        self.rules.setPlaceholderText("$.start_date <= $.end_date\n$..price >= 0\n$..age between 0 and 130\n"
                                      '$..height unit in ["cm", "m"]\n$..order.customer_id in $..customers[*].id')
        self.min_words = QSpinBox()
        self.min_words.setRange(-1, 1_000_000)
        self.min_words.setSpecialValueText("the kind's default (1,500 for text-to-JSON)")
        self.min_words.setValue(-1 if current.min_words is None else current.min_words)
        self.problem = QLabel("")
        self.problem.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.rules.textChanged.connect(self._validate)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Constraint rules, one per line (JSON paths into the gold):"))
        layout.addWidget(self.rules, 1)
        row = QHBoxLayout()
        row.addWidget(QLabel("Minimum words in the source (0: off):"))
        row.addWidget(self.min_words, 1)
        layout.addLayout(row)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self._validate()

    def values(self) -> tuple[list[str], int | None]:
        rules = [line.strip() for line in self.rules.toPlainText().splitlines() if line.strip()]
        return rules, (None if self.min_words.value() < 0 else self.min_words.value())

    def _validate(self) -> None:
        from reviewer.errors import ReviewerError
        from reviewer.guards.settings import Settings

        rules, _ = self.values()
        try:
            Settings(rules=rules).validate()
            self.problem.setText("")
            ok = True
        except ReviewerError as exc:
            self.problem.setText(str(exc))
            ok = False
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok)


def span_excerpt(source: str, start: int, end: int) -> str:
    """HTML: the span in bold with a little context either side."""
    left = source[max(0, start - CONTEXT):start]
    right = source[end:end + CONTEXT]
    return (("…" if start > CONTEXT else "") + html.escape(left) + "<b>" + html.escape(source[start:end]) + "</b>"
            + html.escape(right) + ("…" if end + CONTEXT < len(source) else "")).replace("\n", " ")


def describe_result(name: str, result, source: str) -> list[str]:
    """HTML lines under a guard: what it found (evidence, violations, matches, drift)."""
    d = result.details or {}
    lines = []
    if name == "grounding":
        for v in d.get("values", []):
            path, value = html.escape(v["path"]), html.escape(str(v["value"])[:80])
            if v.get("spans"):
                s, e = v["spans"][0]
                how = "" if v.get("how") == "text" else f" <i>({html.escape(v.get('how') or '')})</i>"
                lines.append(f"{path} = {value}: {span_excerpt(source, s, e)}{how}")
            else:
                lines.append(f"{path} = {value}: <b style='color:#c0392b'>no evidence</b>")
    elif name == "constraints":
        from reviewer.guards.constraints import describe

        lines += [html.escape(describe(v)) for v in d.get("violations", [])]
        lines += [html.escape(e) for e in d.get("errors", [])]
    elif name == "schema":
        lines += [f"{html.escape(e['path'])}: {html.escape(e['message'])}" for e in d.get("errors", [])]
    elif name == "leakage":
        labels = {"near_duplicate": "near-duplicate of item", "prompt": "similar to", "corpus": "similar to corpus"}
        for key, label in labels.items():
            if key in d:
                lines.append(f"{label} <b>{html.escape(str(d[key]['document']))}</b> "
                             f"(similarity {d[key]['similarity']:.2f})")
    elif name == "gold_program" and "program_answer" in d:
        lines.append(f"program's answer: <b>{html.escape(str(d['program_answer']))}</b> · "
                     f"stored gold: <b>{html.escape(str(d['gold']))}</b>")
    elif name == "length" and "words" in d:
        lines.append(f"{d['words']:,} words; the dataset asks for at least {d['min_words']:,}")
    return lines


MAX_BODY_HEIGHT = 170  # px, about 9 lines: more results scroll


class GuardsPane(QWidget):
    gold_changed = Signal(int)  # item id, after "Take program's answer"
    shown = Signal()  # results on show
    checked = Signal(object)  # CheckSummary, after "Check dataset"
    settings_saved = Signal()

    def __init__(self, store, runner, actor: str = "reviewer", parent=None):
        super().__init__(parent)
        self.store, self.runner, self.actor = store, runner, actor
        self.item_id: int | None = None
        self.dataset_id: int | None = None
        self.guards = None
        self._rechecked: int | None = None  # the item whose stale results were re-run (once per showing)
        self.title = QLabel("Guards")
        self.title.setObjectName("sectionTitle")
        self.body = QLabel("")
        self.body.setWordWrap(True)
        self.body.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.body.setTextFormat(self.body.textFormat().RichText)
        self.take_answer = QPushButton("Take program's answer")
        self.take_answer.setToolTip("Gold drift: replace the stored gold with what the gold program returns")
        self.take_answer.clicked.connect(self._take_answer)
        self.take_answer.setVisible(False)
        self.check_button = QPushButton("Check dataset")
        self.check_button.setToolTip("Run every guard over this dataset (only results whose inputs changed are "
                                     "recomputed; the leakage audit is one pass over all sources)")
        self.check_button.clicked.connect(self.check)
        self.rules_button = QPushButton("Rules…")
        self.rules_button.setToolTip("The dataset's constraint rules and length threshold")
        self.rules_button.clicked.connect(self.edit_rules)
        self.progress = QLabel("")
        self.progress.setObjectName("muted")
        self.dialog: RulesDialog | None = None
        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(self.title)
        head.addWidget(self.progress)
        head.addStretch(1)
        head.addWidget(self.take_answer)
        head.addWidget(self.rules_button)
        head.addWidget(self.check_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        # Many flagged values must not push the item's own layout off screen: scroll past ~9 lines.
        self.scroll = QScrollArea()
        self.scroll.setWidget(self.body)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setMaximumHeight(MAX_BODY_HEIGHT)
        # As tall as its text, not as a scroll area's default: "Not checked yet" left 60 px blank
        # above the item's panes at 1366x768 (``_fit_height``).
        self.scroll.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.body.installEventFilter(self)
        layout.addLayout(head)
        layout.addWidget(self.scroll)
        self.setVisible(False)

    def _fit_height(self) -> None:
        width = self.scroll.viewport().width()
        if width <= 0:
            return
        need = self.body.heightForWidth(width) if self.body.text() else 0
        height = min(MAX_BODY_HEIGHT, max(0, need) + 2)
        if self.scroll.maximumHeight() != height:
            self.scroll.setMaximumHeight(height)

    def eventFilter(self, obj, event) -> bool:
        if obj is self.body and event.type() == QEvent.Type.Resize:
            self._fit_height()
        return super().eventFilter(obj, event)

    def show_item(self, dataset_id: int | None, item_id: int | None) -> None:
        self.dataset_id, self.item_id = dataset_id, item_id
        if item_id is None:
            self.runner.cancel("guards")
            self.setVisible(False)
            return
        self.runner.start("guards", load_guards, self.store, dataset_id, item_id,
                          on_result=self._show, on_error=self._failed)

    def _failed(self, exc: BaseException, _trace: str) -> None:
        self.body.setText(f"could not load the guard results: {html.escape(str(exc))}")
        self._fit_height()
        self.setVisible(True)
        self.shown.emit()

    def _show(self, loaded) -> None:
        view, source = loaded
        self.guards = view
        if view is not None and view.stale and self._rechecked != view.item_id:
            # The gold or the response changed since a slow guard ran: run it again now.
            self._rechecked = view.item_id
            self.runner.start("guards-recheck", recheck_item, self.store, self.dataset_id, view.item_id,
                              sorted(view.stale), on_result=lambda _s, i=view.item_id: self._reshow(i))
        elif view is not None and not view.stale:
            self._rechecked = None
        if view is None or not view.results:
            self.body.setText("<span style='color:gray'>Not checked yet (run <tt>reviewer check</tt> "
                              "or Check on the dataset).</span>")
            self._fit_height()
            self.take_answer.setVisible(False)
            self.setVisible(True)
            self.shown.emit()
            return
        rows, not_applicable = [], []
        for name in GUARD_NAMES:
            r = view.results.get(name)
            if r is None:
                continue
            if r.status == "skip" and name not in view.stale:
                not_applicable.append(LABELS[name])
                continue
            mark = "↻" if name in view.stale else MARKS.get(r.status, "?")
            color = {"fail": "#c0392b", "error": "#b9770e"}.get(r.status, "inherit")
            line = (f"<span style='color:{color}'><b>{mark} {html.escape(LABELS[name])}</b></span> "
                    f"{html.escape(r.summary[:200])}")
            if name in view.stale:
                line += " <i>(inputs changed since; check again)</i>"
            if name in view.overrides:
                o = view.overrides[name]
                line += (f"<br>&nbsp;&nbsp;overridden by {html.escape(o.adjudicator)}: "
                         f"<i>{html.escape(o.reason)}</i>")
            if r.status in ("fail", "error") or (name == "grounding" and r.status == "pass"):
                details = describe_result(name, r, source)
                shown = details if r.status != "pass" else []
                line += "".join(f"<br>&nbsp;&nbsp;{d}" for d in shown[:12])
                if len(shown) > 12:
                    line += f"<br>&nbsp;&nbsp;… {len(shown) - 12} more"
            rows.append(line)
        if not_applicable:
            rows.append(f"<span style='color:gray'>– not applicable: {html.escape(', '.join(not_applicable))}</span>")
        self.body.setText("<br>".join(rows))
        self._fit_height()
        drift = view.results.get("gold_program")
        self.take_answer.setVisible(bool(drift and drift.status == "fail" and "gold_program" not in view.stale))
        self.setVisible(True)
        self.shown.emit()

    def _reshow(self, item_id: int) -> None:
        if self.item_id == item_id:
            self.show_item(self.dataset_id, item_id)

    def check(self) -> None:
        if self.dataset_id is None:
            return
        self.check_button.setEnabled(False)
        self.progress.setText("checking…")

        def progressed(p):
            self.progress.setText(f"checking… {p.done:,} of {p.total:,}" if p.total else "checking…")

        def done(summary):
            self.check_button.setEnabled(True)
            fails = sum(c.get("fail", 0) for c in summary.counts.values())
            self.progress.setText(f"checked {summary.items} items: {fails} flag(s)")
            self.checked.emit(summary)
            self.show_item(self.dataset_id, self.item_id)

        def failed(exc, _trace):
            self.check_button.setEnabled(True)
            self.progress.setText(f"check failed: {exc}")

        self.runner.start("guards-check", check_dataset, self.store, self.dataset_id,
                          on_result=done, on_error=failed, on_progress=progressed)

    def edit_rules(self) -> None:
        if self.dataset_id is None:
            return
        dataset_id = self.dataset_id

        def opened(current):
            self.dialog = RulesDialog(current, self)
            self.dialog.accepted.connect(lambda: self._save_rules(dataset_id))
            self.dialog.open()

        self.runner.start("guards-settings", load_settings, self.store, dataset_id, on_result=opened,
                          on_error=lambda exc, _t: self.progress.setText(f"could not read the rules: {exc}"))

    def _save_rules(self, dataset_id: int) -> None:
        rules, min_words = self.dialog.values()

        def saved(_settings):
            self.progress.setText("rules saved; Check dataset to apply them")
            self.settings_saved.emit()

        self.runner.start("guards-settings", save_settings, self.store, dataset_id, self.actor, rules, min_words,
                          on_result=saved,
                          on_error=lambda exc, _t: self.progress.setText(f"could not save the rules: {exc}"))

    def _take_answer(self) -> None:
        if self.item_id is None:
            return
        item_id = self.item_id
        self.take_answer.setEnabled(False)

        def done(_version):
            self.take_answer.setEnabled(True)
            self.gold_changed.emit(item_id)
            self.show_item(self.dataset_id, item_id)

        def failed(exc, _trace):
            self.take_answer.setEnabled(True)
            self.body.setText(self.body.text() + f"<br><b>could not take the answer:</b> {html.escape(str(exc))}")

        self.runner.start("guards-fix", take_program_answer, self.store, item_id, self.actor,
                          on_result=done, on_error=failed)


class GuardFilter(QComboBox):
    """'Guard failed': Any (no filter), any guard, or one guard."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.addItem("Any", None)
        self.addItem("Any guard failed", "any")
        for name in GUARD_NAMES:
            self.addItem(f"{LABELS[name]} failed", name)
        self.setToolTip("Only items whose stored guard result failed (overridden failures excluded)")

