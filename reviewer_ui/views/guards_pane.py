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
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QFrame, QHBoxLayout, QLabel, QPushButton, QScrollArea, QVBoxLayout, QWidget

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


class GuardsPane(QWidget):
    gold_changed = Signal(int)  # item id, after "Take program's answer"
    shown = Signal()  # results on show

    def __init__(self, store, runner, actor: str = "reviewer", parent=None):
        super().__init__(parent)
        self.store, self.runner, self.actor = store, runner, actor
        self.item_id: int | None = None
        self.dataset_id: int | None = None
        self.guards = None
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
        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(self.title)
        head.addStretch(1)
        head.addWidget(self.take_answer)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        # Many flagged values must not push the item's own layout off screen: scroll past ~9 lines.
        self.scroll = QScrollArea()
        self.scroll.setWidget(self.body)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setMaximumHeight(170)
        layout.addLayout(head)
        layout.addWidget(self.scroll)
        self.setVisible(False)

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
        self.setVisible(True)
        self.shown.emit()

    def _show(self, loaded) -> None:
        view, source = loaded
        self.guards = view
        if view is None or not view.results:
            self.body.setText("<span style='color:gray'>Not checked yet (run <tt>reviewer check</tt> "
                              "or Check on the dataset).</span>")
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
        drift = view.results.get("gold_program")
        self.take_answer.setVisible(bool(drift and drift.status == "fail" and "gold_program" not in view.stale))
        self.setVisible(True)
        self.shown.emit()

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

