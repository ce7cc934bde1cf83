"""The item view: a header naming the item, then the layout of its kind.

Loading runs on the job runner (key ``item``): selecting another item while one
loads cancels the first, so fast keyboard navigation never queues work.
Layouts are created once per kind and kept (switching kinds is instant).
"""

from __future__ import annotations

import html

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QStackedWidget, QVBoxLayout, QWidget

from reviewer_ui.itemprep import ItemBundle, load_item
from reviewer_ui.views.guards_pane import GuardsPane
from reviewer_ui.views.kinds import KindLayout, layout_class

PICK_AN_ITEM = "Pick a dataset, then an item in the table (J/K move through the items)."


class ItemView(QWidget):
    loaded = Signal(object)  # ItemBundle, once shown
    load_failed = Signal(str)

    def __init__(self, store, runner, parent=None):
        super().__init__(parent)
        self.store = store
        self.runner = runner
        self.run_id: int | None = None
        self.review = None  # reviewer.review.Review of the person looking (blind annotators see "Output N")
        self.bundle: ItemBundle | None = None
        self.loading_id: int | None = None  # the item being loaded (None: none)
        self.layouts: dict[str, KindLayout] = {}

        self.title = QLabel("No item selected")
        self.title.setObjectName("heading")
        self.facts = QLabel("")
        self.facts.setObjectName("muted")
        self.facts.setWordWrap(True)
        self.facts.setTextFormat(self.facts.textFormat().RichText)
        self.state = QLabel("")
        self.state.setObjectName("muted")
        # Each run's score of this item; the tooltip carries the scorer's notes (what a
        # generated program returned, which quirk applied, which node failed the schema).
        self.scores = QLabel("")
        self.scores.setWordWrap(True)
        self.scores.setTextFormat(self.scores.textFormat().RichText)
        self.guards = GuardsPane(store, runner)  # the quality guards' results (reviewer.guards)
        self.guards.gold_changed.connect(self.show_item)
        head = QHBoxLayout()
        head.addWidget(self.title)
        head.addStretch(1)
        head.addWidget(self.state)
        self.stack = QStackedWidget()
        self.placeholder = QLabel(PICK_AN_ITEM)
        self.placeholder.setObjectName("muted")
        self.placeholder.setWordWrap(True)
        self.stack.addWidget(self.placeholder)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addLayout(head)
        layout.addWidget(self.facts)
        layout.addWidget(self.scores)
        layout.addWidget(self.guards)
        layout.addWidget(self.stack, 1)

    def show_item(self, item_id: int | None) -> None:
        if item_id is None:
            self.runner.cancel("item")
            self.loading_id = None
            self.bundle = None
            self.title.setText("No item selected")
            self.facts.setText("")
            self._show_scores([])
            self.guards.show_item(None, None)
            self.state.setText("")
            self.stack.setCurrentWidget(self.placeholder)
            return
        self.state.setText("loading…")
        self.loading_id = item_id
        self.runner.start("item", load_item, self.store, item_id, self.review, on_result=self._show,
                          on_error=self._failed)

    def set_run(self, run_id: int | None) -> None:
        self.run_id = run_id
        layout = self.current_layout()
        if layout is not None:
            layout.select_run(run_id)

    def reload(self) -> None:
        """Load the shown item again from the store (its outputs or gold changed)."""
        if self.bundle is not None:
            self.show_item(self.bundle.detail.id)

    def reload_if_shown(self, item_ids) -> None:
        """Load the shown item again when it is one of ``item_ids`` (its gold was settled or
        fixed, its outputs re-scored), unless another item is on its way (that one wins)."""
        if self.bundle is None or self.bundle.detail.id not in item_ids:
            return
        if self.loading_id is not None and self.loading_id != self.bundle.detail.id:
            return
        self.reload()

    def refresh(self) -> None:
        """Show the current item again (after a theme change)."""
        if self.bundle is not None:
            self._show(self.bundle)

    def current_layout(self) -> KindLayout | None:
        w = self.stack.currentWidget()
        return w if isinstance(w, KindLayout) else None

    def _show_scores(self, scores) -> None:
        """One entry per run and mode: ✓/✗ and the headline value; notes in the tooltip."""
        if not scores:
            self.scores.setText("")
            self.scores.setToolTip("")
            self.scores.setVisible(False)
            return
        parts, tips = [], []
        for s in scores:
            if s.replication:
                continue
            mark = "–" if s.skipped or s.passed is None else ("✓" if s.passed else "✗")
            value = "" if s.value is None else f" {s.value:.2f}"
            parts.append(f"{html.escape(s.run)} <b>{mark}</b>{value} <span style='color:gray'>{s.mode}</span>")
            tips.append(f"<b>{html.escape(s.run)} ({s.mode}, {html.escape(s.scorer)})</b><br>"
                        + "<br>".join(html.escape(n) for n in s.notes[:6]))
        self.scores.setText("Scores: " + " · ".join(parts))
        self.scores.setToolTip("<br><br>".join(tips))
        self.scores.setVisible(True)

    def _failed(self, exc: BaseException, _trace: str) -> None:
        self.loading_id = None
        self.state.setText(f"could not load the item: {exc}")
        self.load_failed.emit(str(exc))

    def _show(self, bundle: ItemBundle) -> None:
        # The previous bundle is freed here, on the GUI thread: a big response's parsed value and
        # a big diff's layout live in the helper process, so what is freed here is small
        # (bench/viewer_bench.py item_switch_after_tree_max_stall, measured with and without
        # handing it to a job that took it apart: no difference at load 0-6).
        self.bundle = bundle
        self.loading_id = None
        d = bundle.detail
        self.title.setText(f"{d.record_id}")
        facts = [f"<b>{html.escape(d.kind)}</b>"]
        for label, value in (("category", d.category), ("difficulty", d.difficulty), ("depth", d.depth),
                             ("domain", d.domain)):
            if value not in (None, ""):
                facts.append(f"{label}: {html.escape(str(value))}")
        if d.gold_edited:
            facts.append("<b>gold edited</b>")
        where = d.source_file + (f":{d.source_line}" if d.source_line else "") if d.source_file else None
        facts.append(f"dataset {html.escape(d.dataset)}" + (f" · {html.escape(where)}" if where else ""))
        facts.append(f"{len(bundle.outputs)} output(s)")
        self.facts.setText(" · ".join(facts))
        self._show_scores(bundle.scores)
        self.guards.show_item(d.dataset_id, d.id)
        self.state.setText("")
        layout = self.layouts.get(d.kind)
        if layout is None:
            layout = layout_class(d.kind)(self.runner)
            self.layouts[d.kind] = layout
            self.stack.addWidget(layout)
        layout.show_item(bundle, self.run_id)
        self.stack.setCurrentWidget(layout)
        self.loaded.emit(bundle)
