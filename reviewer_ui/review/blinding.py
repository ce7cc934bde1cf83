"""Blind to model identity in the main window (paper 001, Appendix D).

When the dataset shown asks for it (``blind_models``) and the person reviewing is an
annotator, no run or model name reaches the screen: the item view loads its outputs and
scores through ``Review.outputs`` ("Output 1, 2, 3" in the item's shuffled order, see
reviewer_ui.itemprep.load_item), the run picker and the filter bar's "disagrees with" list
say "Output N" (the shown item's number for that run), and the Runs dock, whose tables are
about named runs, is closed for the time being. Adjudicators and researchers see names.

The rule itself is the core's (``Review.blind_models``); this module only applies it to the
window's widgets. In a team database the database enforces it too (reviewer.team.masking).
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer

HIDDEN = "Output (hidden run)"


class WindowBlinding(QObject):
    """Keeps ``window``'s run names hidden while ``session``'s reviewer is blind to them."""

    def __init__(self, window, session, parent: QObject | None = None):
        super().__init__(parent or window)
        self.window, self.session = window, session
        self._known: dict[tuple[int, str], bool] = {}  # (dataset id, viewer) -> blind
        self.aliases: dict[int, str] = {}  # run id -> "Output N" for the item shown
        self._runs_dock_was_visible: bool | None = None
        window.item_view.review = session.review
        session.changed.connect(self._identity_changed)
        window.item_view.loaded.connect(self._item_loaded)
        window.run_box.model().rowsInserted.connect(lambda *_: QTimer.singleShot(0, self.apply))
        window.filters.disagree.model().rowsInserted.connect(lambda *_: QTimer.singleShot(0, self.apply))
        window.dataset_box.currentIndexChanged.connect(lambda *_: QTimer.singleShot(0, self.apply))

    def blind(self) -> bool:
        """Whether the dataset shown is blind to this reviewer. Never reads the database here (on
        the GUI thread): the setting comes with each loaded item (``ItemBundle.blind``, read by the
        item's job) or from a small job this starts; until it is known, an annotator is treated as
        blind (names stay hidden rather than flash up)."""
        ds = self.window.current_dataset()
        if ds is None:
            return False
        key = (ds.id, self.session.name)
        if key not in self._known:
            self._read(ds.id)
            return not self.session.review.sees_everything
        return self._known[key]

    def _read(self, dataset_id: int, then=None) -> None:
        """Read the dataset's setting for this reviewer in a job; ``then(blind)`` once it landed."""
        review, name = self.session.review, self.session.name

        def landed(blind: bool) -> None:
            if review is not self.session.review:
                return  # another identity meanwhile: its own read follows
            self._known[(dataset_id, name)] = blind
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
        before = self._known.get((ds.id, self.session.name))
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
            self._known[(bundle.detail.dataset_id, self.session.name)] = bundle.blind
        self.apply()

    def apply(self) -> None:
        """Relabel the run picker and the filter bar's run list, and close or reopen the Runs dock."""
        blind = self.blind()
        box = self.window.run_box
        for i in range(box.count()):
            run_id = box.itemData(i)
            if run_id is None:
                continue
            if blind:
                box.setItemText(i, self.aliases.get(run_id, HIDDEN))
                box.setItemData(i, "", 3)  # Qt.ToolTipRole: no name in a tooltip either
        disagree = self.window.filters.disagree
        for i in range(disagree.count()):
            if blind and disagree.itemData(i) is not None:
                disagree.setItemText(i, "another output")
        dock = getattr(self.window, "runs_dock", None)
        if dock is not None:
            toggle = dock.toggleViewAction()
            if blind:
                if self._runs_dock_was_visible is None:
                    self._runs_dock_was_visible = dock.isVisible()
                dock.hide()
                toggle.setEnabled(False)
                toggle.setToolTip("Closed while you review blind to model identity")
            elif self._runs_dock_was_visible is not None:
                toggle.setEnabled(True)
                toggle.setToolTip("")
                if self._runs_dock_was_visible:
                    dock.show()
                self._runs_dock_was_visible = None
