"""Blind to model identity in the main window (paper 001, Appendix D).

When the dataset shown asks for it (``blind_models``) and the person reviewing is an
annotator, no run or model name reaches the screen: the item view loads its outputs and
scores through ``Review.outputs`` ("Output 1, 2, 3" in the item's shuffled order, see
reviewer_ui.itemprep.load_item), the run picker and the filter bar's "disagrees with" list
say "Output N" (the shown item's number for that run), each item opens on its own "Output 1"
(the picker's choice never follows a run across items), the table's Score column (one run's
score on every item) is hidden, the run's score filters and next/previous failing item are
off, and the Runs dock, whose tables are about named runs, is
closed for the time being. Adjudicators and researchers see names.

The rule itself is the core's (``Review.blind_models``); this module only applies it to the
window's widgets. In a team database the database enforces it too (reviewer.team.masking).
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer

from reviewer_ui import shortcuts

HIDDEN = "Output (hidden run)"
OFF_WHILE_BLIND = "Off while you review blind to model identity: it would follow one model across items"


class WindowBlinding(QObject):
    """Keeps ``window``'s run names hidden while ``session``'s reviewer is blind to them."""

    def __init__(self, window, session, parent: QObject | None = None):
        super().__init__(parent or window)
        self.window, self.session = window, session
        # (dataset id, viewer, sees everything) -> blind: a role that lands after signing in
        # (an assumed annotator confirmed as an adjudicator) is a new key, not the assumed answer
        self._known: dict[tuple[int, str, bool], bool] = {}
        self.aliases: dict[int, str] = {}  # run id -> "Output N" for the item shown
        self._runs_dock_was_visible: bool | None = None
        self._score_hidden = False  # this hid the Score column
        self._filters_off = False  # this turned the run's filters off
        window.item_view.review = session.review
        session.changed.connect(self._identity_changed)
        window.item_view.loaded.connect(self._item_loaded)
        window.run_box.model().rowsInserted.connect(lambda *_: QTimer.singleShot(0, self, self.apply))
        window.filters.disagree.model().rowsInserted.connect(lambda *_: QTimer.singleShot(0, self, self.apply))
        window.dataset_box.currentIndexChanged.connect(lambda *_: QTimer.singleShot(0, self, self.apply))
        # a run picked by hand re-enables the filter bar's run filters: turned off again after it
        window.run_box.currentIndexChanged.connect(lambda *_: QTimer.singleShot(0, self, self.apply))

    def blind(self) -> bool:
        """Whether the dataset shown is blind to this reviewer. Never reads the database here (on
        the GUI thread): the setting comes with each loaded item (``ItemBundle.blind``, read by the
        item's job) or from a small job this starts; until it is known, an annotator is treated as
        blind (names stay hidden rather than flash up)."""
        ds = self.window.current_dataset()
        if ds is None:
            return False
        key = self._key(ds.id)
        if key not in self._known:
            self._read(ds.id)
            return not self.session.review.sees_everything
        return self._known[key]

    def _key(self, dataset_id: int) -> tuple[int, str, bool]:
        return dataset_id, self.session.name, self.session.review.sees_everything

    def _read(self, dataset_id: int, then=None) -> None:
        """Read the dataset's setting for this reviewer in a job; ``then(blind)`` once it landed."""
        review, key = self.session.review, self._key(dataset_id)

        def landed(blind: bool) -> None:
            if review is not self.session.review:
                return  # another identity meanwhile: its own read follows
            self._known[key] = blind
            self.apply()
            if then is not None:
                then(blind)

        def failed(_exc, _tb) -> None:  # the database is gone: show nothing identifying
            landed(not review.sees_everything)

        self.window.runner.start(f"review-blinding-{id(self)}", lambda _ctx: review.blind_models(dataset_id),
                                 on_result=landed, on_error=failed)

    def forget(self) -> None:
        """Someone changed the review data (maybe switched blindness): read the setting again
        (a job) and reload the item when it flipped."""
        ds = self.window.current_dataset()
        if ds is None:
            self._known.clear()
            return
        before = self._known.get(self._key(ds.id))
        self._known.clear()
        self._read(ds.id, then=lambda blind: self._flipped(before, blind))

    def _flipped(self, before: bool | None, blind: bool) -> None:
        shown = self.window.item_view.bundle
        if (before is not None and blind != before) or (shown is not None and shown.blind != blind):
            self.window.item_view.reload()  # its outputs and scores, named or numbered anew

    def _identity_changed(self) -> None:
        self.window.item_view.review = self.session.review
        self.aliases = {}
        self.apply()
        self.window.item_view.reload()  # the outputs as the new reviewer may see them

    def _item_loaded(self, bundle) -> None:
        self.aliases = dict(bundle.aliases) if bundle.blind else {}
        if self.window.item_view.review is self.session.review:  # read by the item's job for this reviewer
            self._known[self._key(bundle.detail.dataset_id)] = bundle.blind
        if bundle.blind:
            self._pick_first_output()
        self.apply()

    def _pick_first_output(self) -> None:
        """Each item opens on its "Output 1": the picker's choice does not follow a run from
        item to item. (Were it kept, the run chosen on one item would show as "Output 3" on the
        next and "Output 1" on a third: following the picker's choice would trace one model
        across items, and the numbers are shuffled per item precisely to prevent that.)
        The window's own reaction to a picked run (the Score column, the score filters) is not
        triggered: those follow one run over every item, which is why they are off while blind."""
        first = next((run_id for run_id, label in self.aliases.items() if label == "Output 1"), None)
        box = self.window.run_box
        index = box.findData(first) if first is not None else -1
        if index < 0:
            return
        if box.currentIndex() != index:
            box.blockSignals(True)
            box.setCurrentIndex(index)
            box.blockSignals(False)
        if self.window.item_view.run_id != first:
            self.window.item_view.set_run(first)

    def _score_column(self, blind: bool) -> None:
        """The table's Score column shows one run's score on every item: hidden while blind
        (it would let an annotator follow that run across items)."""
        from reviewer_ui.models.item_table import COL

        table = getattr(self.window, "table", None)
        if table is None:
            return
        column = COL["Score"]
        if blind:
            self._score_hidden = True
            table.setColumnHidden(column, True)
        elif self._score_hidden:
            self._score_hidden = False
            table.setColumnHidden(column, not getattr(self.window, "runs", None))  # as the window shows it

    def _run_filters(self, blind: bool) -> None:
        """The score filters, "disagrees with" and next/previous failing item follow one run over
        every item: off while blind (a filter already on is dropped), back when not."""
        f = self.window.filters
        widgets = [w for w in (getattr(f, n, None) for n in ("score_range", "score_min", "score_max", "disagree"))
                   if w is not None]
        actions = [a for a in (getattr(self.window, n, None) for n in ("next_failing_action", "prev_failing_action"))
                   if a is not None]
        if blind:
            if getattr(f, "score_range", None) is not None and f.score_range.isChecked():
                f.score_range.setChecked(False)
            if f.disagree.currentIndex() > 0:
                f.disagree.setCurrentIndex(0)
            for w in widgets:
                w.setEnabled(False)
                w.setToolTip(OFF_WHILE_BLIND)
            for a in actions:
                a.setEnabled(False)
            self._filters_off = True
        elif self._filters_off:
            self._filters_off = False
            for w in widgets:
                w.setToolTip("")
            for a in actions:
                a.setEnabled(True)
            if hasattr(f, "_enable_run_filters"):
                f._enable_run_filters()  # as the filter bar enables them for the picked run

    def apply(self) -> None:
        """Relabel the run picker and the filter bar's run list, and close or reopen the Runs dock."""
        blind = self.blind()
        box = self.window.run_box
        for i in range(box.count()):
            if box.itemData(i) is not None:
                _relabel(box, i, self.aliases.get(box.itemData(i), HIDDEN) if blind else None)
        disagree = self.window.filters.disagree
        for i in range(disagree.count()):
            if disagree.itemData(i) is not None:
                _relabel(disagree, i, "another output" if blind else None)
        self._score_column(blind)
        self._run_filters(blind)
        dock = getattr(self.window, "runs_dock", None)
        if dock is not None:
            toggle = dock.toggleViewAction()
            if blind:
                if self._runs_dock_was_visible is None:
                    self._runs_dock_was_visible = dock.isVisible()
                    self._runs_toggle_tip = toggle.toolTip()  # names its keys (shortcuts.show_keys_in_tooltips)
                dock.hide()
                toggle.setEnabled(False)
                # still names its keys, as every entry's tooltip does (shortcuts.show_keys_in_tooltips)
                keys = shortcuts.keys_text(toggle)
                toggle.setToolTip("Closed while you review blind to model identity" + (f" ({keys})" if keys else ""))
            elif self._runs_dock_was_visible is not None:
                toggle.setEnabled(True)
                toggle.setToolTip(getattr(self, "_runs_toggle_tip", ""))
                if self._runs_dock_was_visible:
                    dock.show()
                self._runs_dock_was_visible = None


_NAME_ROLE = 0x0100 + 77  # Qt.UserRole + 77: an entry's own text and tooltip while it is relabelled


def _relabel(box, index: int, label: str | None) -> None:
    """Show ``label`` instead of entry ``index``'s own text (and no tooltip); ``None`` puts the
    entry's own text back. (Until the setting is read, an annotator's entries are hidden: a
    dataset that turns out not to be blind gets its names back here.)"""
    own = box.itemData(index, _NAME_ROLE)
    if label is not None:
        if own is None:
            box.setItemData(index, (box.itemText(index), box.itemData(index, 3) or ""), _NAME_ROLE)
        box.setItemText(index, label)
        box.setItemData(index, "", 3)  # Qt.ToolTipRole: no name in a tooltip either
    elif own is not None:
        box.setItemText(index, own[0])
        box.setItemData(index, own[1], 3)
        box.setItemData(index, None, _NAME_ROLE)
