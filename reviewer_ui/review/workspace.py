"""The review workspace: the review panels in tabs, for the main window to host
in a dock. The host feeds it the item it shows (``show_item(ItemDetail)``) and
the dataset; it asks the host to show another item through ``navigate``.

Tabs: Annotate (annotation panel over my queues), Adjudicate, Release. Panels
that are not visible are updated when their tab is opened, so annotating never
waits on adjudication or release queries.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QScrollArea, QSplitter, QTabWidget, QWidget

from sqlalchemy.exc import SQLAlchemyError

from reviewer.errors import ReviewerError
from reviewer_ui.review.adjudication_view import AdjudicationPanel
from reviewer_ui.review.annotation_panel import AnnotationPanel
from reviewer_ui.review.identity_dialog import IdentityDialog
from reviewer_ui.review.queue_panel import QueuePanel
from reviewer_ui.review.release_panel import ReleasePanel
from reviewer_ui.review.session import ReviewSession

QUEUE_REFRESH_DELAY_MS = 400  # saves come in bursts while annotating; count once they pause
LIVE_POLL_MS = 1000  # how often others' changes are looked for (a non-blocking poll)


class ReviewWorkspace(QTabWidget):
    navigate = Signal(int)  # the host should show this item
    external_change = Signal()  # someone (maybe another person) changed the review data

    def __init__(self, store, runner=None, settings: QSettings | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = ReviewSession(store, settings, self, runner=runner)  # signs in on the runner
        self.annotation = AnnotationPanel(self.session, runner)
        self.queues = QueuePanel(self.session, runner)
        self.adjudication = AdjudicationPanel(self.session, runner)
        self.release = ReleasePanel(self.session, runner)
        self.dataset_id: int | None = None
        self.detail = None
        self._stale_tabs: set[QWidget] = set()

        annotate_tab = QSplitter(Qt.Orientation.Vertical)
        # The panel keeps its natural height and scrolls in a short dock, rather than squeezing its rows.
        scroller = QScrollArea()
        scroller.setWidgetResizable(True)
        scroller.setFrameShape(QScrollArea.Shape.NoFrame)
        scroller.setWidget(self.annotation)
        annotate_tab.addWidget(scroller)
        self.annotation_scroller = scroller
        annotate_tab.addWidget(self.queues)
        annotate_tab.setChildrenCollapsible(False)
        annotate_tab.setStretchFactor(0, 3)
        annotate_tab.setStretchFactor(1, 1)
        self.annotate_tab = annotate_tab
        self.addTab(annotate_tab, "Annotate")
        # The Adjudicate and Release pages scroll rather than widen the dock: a tab widget is as
        # wide as its widest page, and the dock is for annotating first (the adjudication view
        # floats large with its Enlarge button).
        self._pages: dict[QWidget, QScrollArea] = {}
        self.addTab(self._page(self.adjudication), "Adjudicate")
        self.addTab(self._page(self.release), "Release")
        self.currentChanged.connect(self._tab_shown)

        self._queue_timer = QTimer(self, singleShot=True, interval=QUEUE_REFRESH_DELAY_MS)
        self._queue_timer.timeout.connect(self.queues.refresh)
        self.annotation.navigate.connect(self.navigate)
        self.annotation.saved.connect(lambda _v: self._changed())
        # "You annotated N of M" is current as soon as a save lands: the save brought the count.
        self.annotation.landed.connect(lambda saved: self.queues.show_progress(saved.progress))
        self.queues.navigate.connect(self._go_annotate)
        self.queues.adjudicate_requested.connect(self._go_adjudicate)
        self.adjudication.settled.connect(lambda _v: self._changed())
        # The outcome line sits under the form: scroll to it when the decision is stored.
        self.adjudication.settled.connect(
            lambda _v: self._pages[self.adjudication].ensureWidgetVisible(self.adjudication.status))

        self.identity_action = QAction("Identity…", self)
        self.identity_action.setShortcut(QKeySequence("Ctrl+Alt+I"))
        self.identity_action.setToolTip("Who you are while reviewing, and your role")
        self.identity_action.triggered.connect(self.edit_identity)
        self.next_action = QAction("Next item I have not annotated", self)
        self.next_action.setShortcut(QKeySequence("Ctrl+Shift+N"))
        self.next_action.triggered.connect(self.queues.next_unannotated)
        self.adjudicate_action = QAction("Adjudication queue", self)
        self.adjudicate_action.setShortcut(QKeySequence("Ctrl+Shift+A"))
        self.adjudicate_action.setToolTip("The items waiting for an adjudicator (under the Annotate tab)")
        self.adjudicate_action.triggered.connect(self.show_adjudication_queue)
        self.export_action = QAction("Export Gold…", self)
        self.export_action.setShortcut(QKeySequence("Ctrl+Alt+E"))
        self.export_action.setToolTip("Export the released gold of the current dataset")
        self.export_action.triggered.connect(self._export)
        self._start_live(store)

    # -- live updates -------------------------------------------------------------------------

    def _start_live(self, store) -> None:
        """Poll for others' changes (LISTEN/NOTIFY on PostgreSQL, data_version on SQLite)."""
        from reviewer.review.live import ChangeWatcher

        try:
            self.watcher = ChangeWatcher(store)
        except Exception:  # noqa: BLE001  live updates are a convenience: without them, Refresh still works
            self.watcher = None
            return
        watcher = self.watcher
        self.destroyed.connect(lambda *_: watcher.close())
        self._live_timer = QTimer(self, interval=LIVE_POLL_MS)
        self._live_timer.timeout.connect(self.poll_changes)
        self._live_timer.start()

    def stop_live(self) -> None:
        """Stop polling (the host closes, or its database goes away)."""
        if getattr(self, "_live_timer", None) is not None:
            self._live_timer.stop()

    def poll_changes(self) -> bool:
        """Refresh what is shown when the data changed; True when it did."""
        if self.watcher is None:
            return False
        try:
            changed = self.watcher.poll()
        except Exception:  # noqa: BLE001  a dropped connection: stop polling, keep working
            self._live_timer.stop()
            return False
        if not changed:
            return False
        panel = self.annotation
        idle = panel.detail is not None and not panel.stale and not panel.has_pending_edits
        if idle:
            try:
                panel.reload()
            except (ReviewerError, SQLAlchemyError) as exc:  # shown; the next poll tries again
                panel._set_status(f"Could not refresh: {exc}")
        self._queue_timer.start()
        self._stale_tabs.add(self.release)
        if self.current_panel() is not self.adjudication:
            self._stale_tabs.add(self.adjudication)
        self.external_change.emit()
        return True

    def actions_for_menu(self) -> list[QAction]:
        """The actions a host puts in its Review menu."""
        return [self.identity_action, self.next_action, self.adjudicate_action, self.export_action]

    # -- input from the host ---------------------------------------------------------------

    def set_dataset(self, dataset_id: int | None) -> None:
        if dataset_id == self.dataset_id:
            return
        self.dataset_id = dataset_id
        self.queues.set_dataset(dataset_id)
        self._stale_tabs.add(self.release)

    def show_item(self, detail) -> None:
        """Show ``detail`` (a store ItemDetail, e.g. the item view's ``loaded`` bundle's detail)."""
        another = detail is not None and (self.detail is None or self.detail.id != detail.id)
        self.detail = detail
        if detail is not None:
            self.set_dataset(detail.dataset_id)
            self.queues.set_position(detail.position)
        self.annotation.show_item(detail)
        if another:  # a new item's form starts at its top (its stage line and verdict), not where the last was left
            self.annotation_scroller.verticalScrollBar().setValue(0)
        if self.current_panel() is self.adjudication:
            self.adjudication.show_item(detail)
        else:
            self._stale_tabs.add(self.adjudication)

    # -- internals ------------------------------------------------------------------------

    def _changed(self) -> None:
        self._queue_timer.start()
        self._stale_tabs.add(self.release)
        if self.current_panel() is not self.adjudication:
            self._stale_tabs.add(self.adjudication)

    def _page(self, panel: QWidget) -> QScrollArea:
        area = QScrollArea()
        area.setWidgetResizable(True)
        area.setFrameShape(QScrollArea.Shape.NoFrame)
        area.setWidget(panel)
        self._pages[panel] = area
        return area

    def setCurrentWidget(self, widget: QWidget) -> None:  # noqa: N802 - Qt's name
        """Show the tab of ``widget`` (a panel, or the page that holds it)."""
        super().setCurrentWidget(self._pages.get(widget, widget))

    def current_panel(self) -> QWidget:
        """The panel of the current tab (the annotate splitter, the adjudication or release panel)."""
        w = self.currentWidget()
        return w.widget() if isinstance(w, QScrollArea) and w in self._pages.values() else w

    def _tab_shown(self, _index: int) -> None:
        w = self.current_panel()
        if w not in self._stale_tabs:
            return
        self._stale_tabs.discard(w)
        if w is self.adjudication and self.detail is not None:
            self.adjudication.show_item(self.detail)
        elif w is self.release:
            self.release.set_dataset(self.dataset_id)  # counts again

    def _go_annotate(self, item_id: int) -> None:
        self.setCurrentWidget(self.annotate_tab)
        self.navigate.emit(item_id)

    def _go_adjudicate(self, item_id: int) -> None:
        self._stale_tabs.discard(self.adjudication)  # the item comes back through show_item
        self.setCurrentWidget(self.adjudication)
        self.adjudication.request_focus()
        if self.detail is not None and self.detail.id == item_id:  # already shown: no new item will come
            self.adjudication.show_item(self.detail)
            return
        self.navigate.emit(item_id)

    def show_adjudication_queue(self) -> None:
        """Review ▸ Adjudication queue: the Annotate tab with the keyboard in the queue's list
        (Enter opens the item for adjudication)."""
        self.setCurrentWidget(self.annotate_tab)
        dock = self.parent()
        while dock is not None and not hasattr(dock, "toggleViewAction"):
            dock = dock.parent()
        if dock is not None and not dock.isVisible():
            dock.show()
        if self.queues.queue_list.isVisible():
            self.queues.queue_list.setFocus()
        else:  # an annotator: the key did something, say what
            window = self.window()
            if hasattr(window, "statusBar"):
                window.statusBar().showMessage("The adjudication queue is the adjudicators': you are signed in as "
                                               f"{self.session.name or 'nobody'}, an annotator.", 8000)

    def _export(self) -> None:
        self.setCurrentWidget(self.release)
        self.release.choose_export()

    def edit_identity(self) -> bool:
        dialog = IdentityDialog(self.session, self)
        try:
            return dialog.exec() == IdentityDialog.DialogCode.Accepted
        finally:
            dialog.deleteLater()  # a sign-in still running reports to the session (and the status bar)
