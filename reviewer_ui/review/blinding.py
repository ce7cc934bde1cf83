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
        """Whether the dataset shown is blind to this reviewer (read once per dataset and identity)."""
        ds = self.window.current_dataset()
        if ds is None:
            return False
        key = (ds.id, self.session.name)
        if key not in self._known:
            try:
                self._known[key] = self.session.review.blind_models(ds.id)
            except Exception:  # noqa: BLE001 - the database is gone: show nothing identifying
                self._known[key] = not self.session.review.sees_everything
        return self._known[key]

    def forget(self) -> None:
        """Someone changed the review data (maybe switched blindness): read the setting again
        (one small query by primary key) and reload the item when it flipped."""
        ds = self.window.current_dataset()
        before = self._known.get((ds.id, self.session.name)) if ds is not None else None
        self._known.clear()
        self.apply()
        if before is not None and self.blind() != before:
            self.window.item_view.reload()  # its outputs and scores, named or numbered anew

    def _identity_changed(self) -> None:
        self.window.item_view.review = self.session.review
        self.aliases = {}
        self.apply()
        self.window.item_view.reload()  # the outputs as the new reviewer may see them

    def _item_loaded(self, bundle) -> None:
        self.aliases = dict(bundle.aliases) if bundle.blind else {}
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
