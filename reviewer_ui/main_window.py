"""The main window: dataset and run pickers, the item browser (filters + table)
and the item view.

File menu: open a database, import a dataset or a run, export, quit (Ctrl+Q);
``store_changed()`` is the one entry point that shows what other processes
wrote (a poll of a cheap core token calls it; team mode may call it on NOTIFY).
F1 lists every shortcut; Ctrl+Shift+F toggles the focus mode (source, gold vs
output and verdict only).

Keyboard: J / Ctrl+Down next item, K / Ctrl+Up previous item, Ctrl+J / Ctrl+K
next / previous item the selected run fails (score below 1), Ctrl+F search,
F9 show/hide the browser, F10 show/hide the item header, Ctrl+Shift+T light/dark,
F8 / Shift+F8 next/previous difference (in a diff), "/" or F3 find in a text
pane (then F3 / Shift+F3).
Settings (QSettings): geometry, splitter positions, last dataset and run, theme,
saved filters.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QItemSelectionModel, QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QComboBox,
    QHeaderView,
    QLabel,
    QMainWindow,
    QProgressBar,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from reviewer.store import browse
from reviewer.store.navigation import failing_row
from reviewer.store.queries import ItemQuery
from reviewer_ui import docks, file_menu, focus_chain, shortcuts, theme
from reviewer_ui.agreement.dock import install as install_agreement
from reviewer_ui.runtime.jobs import JobRunner
from reviewer_ui.models.item_table import COL, ItemTableModel
from reviewer_ui.review.dock import install as install_review
from reviewer_ui.runs.dock import install as install_runs
from reviewer_ui.widgets.docking import scrolled
from reviewer_ui.widgets.elided_combo import ElidedComboBox
from reviewer_ui.widgets.row_table import RowTableView
from reviewer_ui.store_watch import StoreWatcher
from reviewer_ui.views.filter_bar import FilterBar
from reviewer_ui.views.item_view import PICK_AN_ITEM, ItemView
from reviewer_ui.views.narrow_list import NarrowList


def _datasets(ctx, store):
    return store.datasets()


def _dataset_state(ctx, store, dataset_id):
    """Runs and filter choices of a dataset (one job, off the GUI thread)."""
    ds = store.dataset(dataset_id)
    return store.runs(ds.id), browse.facets(store, ds.id)


def _scores(ctx, store, run_id, mode):
    return store.run_scores(run_id, mode=mode)


def _failing_row(ctx, store, query, run_id, mode, current_row, forward):
    return query, failing_row(store, query, run_id, mode, current_row, forward)


FIRST_BROWSER_WIDTH = 300  # px: the item list on a first start (filters and the ID and Review columns)


class MainWindow(QMainWindow):
    def __init__(self, store, settings: QSettings | None = None, runner: JobRunner | None = None):
        super().__init__()
        self.store = store
        self.settings = settings or QSettings("reviewer", "reviewer")
        self.runner = runner or JobRunner(parent=self)
        self.datasets = []
        self.runs = []
        self.setWindowTitle("reviewer")

        # -- toolbar: dataset and run -----------------------------------------------
        self.dataset_box = QComboBox()
        self.dataset_box.setMinimumContentsLength(24)
        self.dataset_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.run_box = ElidedComboBox()  # run names sharing a long prefix stay apart: cut in the middle
        self.run_box.setMinimumContentsLength(24)
        self.run_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.dataset_box.currentIndexChanged.connect(self._on_dataset)
        self.run_box.currentIndexChanged.connect(self._on_run)
        bar = self.toolbar = self.addToolBar("Data")
        bar.setObjectName("dataToolbar")
        bar.setMovable(False)
        bar.addWidget(QLabel(" Dataset "))
        bar.addWidget(self.dataset_box)
        bar.addWidget(QLabel("  Run "))
        bar.addWidget(self.run_box)
        spacer = QWidget()
        spacer.setSizePolicy(spacer.sizePolicy().Policy.Expanding, spacer.sizePolicy().Policy.Preferred)
        bar.addWidget(spacer)

        # -- browser ----------------------------------------------------------------
        self.filters = FilterBar(self.settings)
        self.filters.changed.connect(self.apply_filters)
        self.filters.score_mode_changed.connect(lambda _mode: self.load_scores())
        self.model = ItemTableModel(store, runner=self.runner, parent=self)
        self.model.query_changed.connect(self._on_count)
        # The model reads its rows on the job runner: what waits for them runs when they land.
        self._when_shown = None  # run once the newest query's rows are shown (select the first row, ...)
        self._reselect_id = None  # an item to select again once its row is known
        self._row_waiting = -1  # the current row, whose item id is still being read
        self._shown_query = None  # the query the table shows (a new one starts at the top)
        self.model.query_changed.connect(self._query_shown)
        self.model.dataChanged.connect(self._rows_arrived)
        self.model.ids_loaded.connect(self._rows_arrived)
        self.model.load_failed.connect(lambda msg: self.statusBar().showMessage(f"database error: {msg}", 8000))
        self.table = RowTableView()  # Home/End: the first/last item
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        # Ids share long prefixes ("SECFilingsTask_0412"): elide in the middle so the
        # distinguishing end stays readable; the whole text is in each cell's tooltip.
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        vh = self.table.verticalHeader()
        vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # no per-row size queries on 100k rows
        vh.setDefaultSectionSize(self.fontMetrics().height() + 8)
        vh.setVisible(False)
        hh = self.table.horizontalHeader()
        hh.setStretchLastSection(True)
        # Column widths (_fit_columns) are measured on the rows in view only: Qt's default
        # reads 1000 rows, five page queries on a large dataset for every refit.
        hh.setResizeContentsPrecision(0)
        for name, width in (("ID", 110), ("Kind", 90), ("Category", 100), ("Difficulty", 70), ("Depth", 54),
                            ("Score", 50), ("Review", 120), ("Gold", 50), ("Domain", 110)):
            self.table.setColumnWidth(COL[name], width)
        # The browser is a narrow column: the ID, the review state and the selected run's score
        # come first, and the Review column takes the width its shown labels need ("not annotated"
        # reads whole); the ID may elide in the middle. The Score sits beside them, not after the
        # dataset's facet columns: behind Category, Difficulty and Depth (extraction) it was out of
        # view at 1366x768, behind a long tool-QA id half cut. tools/fitcheck checks all three.
        hh.moveSection(hh.visualIndex(COL["Review"]), 1)
        hh.moveSection(hh.visualIndex(COL["Score"]), 2)
        self.table.setProperty("wholeColumns", [COL["Review"], COL["Score"]])
        self.table.setProperty("elidedColumns", [COL["ID"]])
        self._fit_columns_timer = QTimer(self, singleShot=True, interval=0)
        self._fit_columns_timer.timeout.connect(self._fit_columns)
        self._review_width = 0  # the Review column only grows while one query is shown (no jumping on scroll)
        self.model.modelReset.connect(lambda: setattr(self, "_review_width", 0))
        for signal in (self.model.modelReset, self.model.dataChanged, self.model.layoutChanged):
            signal.connect(self._fit_columns_timer.start)
        self.table.verticalScrollBar().valueChanged.connect(self._fit_columns_timer.start)
        self.table.selectionModel().currentRowChanged.connect(self._on_row)
        self.count_label = QLabel("")
        self.count_label.setObjectName("muted")
        self.browser = QWidget()
        col = QVBoxLayout(self.browser)
        col.setContentsMargins(6, 4, 2, 4)
        col.addWidget(self.filters)
        col.addWidget(self.table, 1)
        col.addWidget(self.count_label)

        # -- item view --------------------------------------------------------------
        self.item_view = ItemView(store, self.runner)
        self.item_view.loaded.connect(self._on_item_loaded)
        self._restored: set[str] = set()
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("mainSplitter")
        self.splitter.addWidget(self.browser)
        self.splitter.addWidget(self.item_view)
        # A bigger window widens the item (the material and the diff), not the item list:
        # at 1920x1080 the list took 510 px, which the diff needed to stay side by side.
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.setCentralWidget(self.splitter)

        # -- status bar: running jobs ------------------------------------------------
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(180)
        self.progress.setVisible(False)
        # The percentage beside the bar, not on it: drawn over the bar's edge, half of it
        # took the fill's colour and half the groove's.
        self.progress.setTextVisible(False)
        self.progress_text = QLabel("")
        self.progress_text.setVisible(False)
        self.cancel_button = QToolButton(text="Cancel")
        self.cancel_button.setVisible(False)
        self.cancel_button.clicked.connect(self.runner.cancel_all)
        self.statusBar().addPermanentWidget(self.progress)
        self.statusBar().addPermanentWidget(self.progress_text)
        self.statusBar().addPermanentWidget(self.cancel_button)
        self._progressing: set = set()  # jobs whose progress the status bar shows
        self.runner.started.connect(self._watch_job)
        self.runner.active_changed.connect(self._on_active)

        self._build_actions()
        install_review(self)  # the review dock and menu (reviewer_ui/review)
        self.review.release.show_items.connect(self.show_only_items)  # its counts list their items
        install_runs(self)  # the runs dock and menu: scoring, reruns, comparison (reviewer_ui/runs)
        install_agreement(self)  # the agreement dock, Review ▸ Agreement… (reviewer_ui/agreement)
        # The Runs panel reloads the Score column after scoring, in faithful mode; reload
        # it again in the filter bar's mode (same job key: this newer load wins).
        self.runs_panel.scores_changed.connect(
            lambda run_ids: self.load_scores() if self.current_run_id() in run_ids else None)
        # The review dock scrolls (the adjudication view is tall) rather than growing the window.
        self.review_dock.setWidget(scrolled(self.review))
        for dock in (self.review_dock, self.runs_dock, self.agreement_dock):
            docks.keep_usable(self, dock)
        file_menu.install(self)
        self.review_dock.toggleViewAction().setShortcut(QKeySequence("Alt+1"))
        self._build_help()
        shortcuts.show_keys_in_tooltips(self)
        self.owns_store = False  # True for a store opened through File ▸ Open database (closed with the window)
        self.watcher = StoreWatcher(store, self.runner, parent=self)
        self.watcher.changed.connect(self.store_changed)
        self.narrow_list = NarrowList(self)
        self.narrow_list_action.setChecked(self.narrow_list.enabled)
        self._restore()
        self._tab_stops = -1
        self._tab_chain_timer = QTimer(self, singleShot=True, interval=0)
        self._tab_chain_timer.timeout.connect(self.order_tab_chain)
        self.order_tab_chain()
        self.refresh_datasets()
        self.watcher.start()

    def order_tab_chain(self) -> None:
        """Tab goes toolbar, filters, item table, item view, Review panel, the other docks
        (again after the item view built a layout or the review panel new buttons)."""
        widgets = focus_chain.chain(self)  # the widget tree walked once, for the count and the order
        stops = sum(1 for w in widgets if focus_chain.tab_stop(w))
        if stops != self._tab_stops:
            focus_chain.order(widgets, [self.toolbar, self.filters, self.table, self.item_view, self.review_dock,
                                        self.runs_dock, self.agreement_dock])
            self._tab_stops = stops

    @property
    def agreement(self):
        """The agreement panel, built when first asked for (reviewer_ui.agreement.dock)."""
        return self.agreement_panel()

    # -- actions ---------------------------------------------------------------------

    def _action(self, text: str, keys: list[str], slot, checkable: bool = False) -> QAction:
        action = QAction(text, self)
        action.setShortcuts([QKeySequence(k) for k in keys])
        action.setCheckable(checkable)
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        self.next_action = self._action("Next item", ["J", "Ctrl+Down"], self.next_item)
        self.prev_action = self._action("Previous item", ["K", "Ctrl+Up"], self.previous_item)
        self.search_action = self._action("Search", ["Ctrl+F"], self.focus_search)
        self.browser_action = self._action("Item browser", ["F9"], self.toggle_browser, checkable=True)
        self.browser_action.setChecked(True)
        self.header_action = self._action("Item header", ["F10"], self.toggle_header, checkable=True)
        self.header_action.setChecked(True)
        self.theme_action = self._action("Dark theme", ["Ctrl+Shift+T"], self.toggle_theme, checkable=True)
        self.theme_action.setChecked(theme.current() == "dark")
        self.clear_action = self._action("Clear filters", ["Ctrl+Shift+X"], self.filters.clear)
        self.next_failing_action = self._action("Next failing item", ["Ctrl+J"], self.next_failing)
        self.prev_failing_action = self._action("Previous failing item", ["Ctrl+K"], self.previous_failing)
        self.narrow_list_action = self._action("Narrow item list for the diff", ["Shift+F9"], self._set_narrow_list,
                                               checkable=True)
        self.narrow_list_action.setToolTip("While Gold vs output is read in a window too small for it, the "
                                           "item list keeps only its ID and Review columns (Ctrl+F brings "
                                           "the filters back)")
        self.focus_action = self._action("Focus mode", ["Ctrl+Shift+F"], self.toggle_focus, checkable=True)
        self.focus_action.setToolTip("Only the source, gold vs output and the verdict (hides the browser, "
                                     "the item header and the other docks)")
        menu = self.menuBar().addMenu("&View")
        for a in (self.browser_action, self.narrow_list_action, self.header_action, self.focus_action,
                  self.theme_action):
            menu.addAction(a)
        go = self.menuBar().addMenu("&Go")
        for a in (self.next_action, self.prev_action, self.next_failing_action, self.prev_failing_action,
                  self.search_action, self.clear_action):
            go.addAction(a)
        for a in (self.browser_action, self.theme_action):
            button = QToolButton()
            button.setDefaultAction(a)
            button.setObjectName("paneToggle")
            self.toolbar.addWidget(button)

    def _build_help(self) -> None:
        self.shortcuts_action = self._action("Keyboard shortcuts", ["F1", "?"], self.show_shortcuts)
        self.shortcuts_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.menuBar().addMenu("&Help").addAction(self.shortcuts_action)

    def show_shortcuts(self) -> None:
        # ("?" typed into a search box or an editor stays text: those widgets take printable keys first.)
        self.shortcuts_sheet = shortcuts.ShortcutsSheet(self)
        self.shortcuts_sheet.show()

    def toggle_focus(self, on: bool | None = None) -> None:
        """Focus mode: only the material, gold vs output and the verdict; again to restore."""
        on = (not getattr(self, "_focus_saved", None)) if not isinstance(on, bool) else on
        if on and not getattr(self, "_focus_saved", None):
            others = [d for d in (self.runs_dock, self.agreement_dock) if d.isVisible()]
            self._focus_saved = {"browser": self.browser.isVisible(), "header": self.item_view.facts.isVisible(),
                                 "docks": others}
            self.toggle_browser(False)
            self.toggle_header(False)
            self.item_view.scores.setVisible(False)
            for d in others:
                d.hide()
            self.review_dock.show()
            self.review_dock.raise_()
            layout = self.item_view.current_layout()
            if layout is not None and getattr(layout, "has_gold_diff", False):
                layout.tabs.setCurrentWidget(layout.diff)
        elif not on and getattr(self, "_focus_saved", None):
            saved, self._focus_saved = self._focus_saved, None
            self.toggle_browser(saved["browser"])
            self.toggle_header(saved["header"])
            self.item_view.scores.setVisible(bool(self.item_view.scores.text()))
            for d in saved["docks"]:
                d.show()
        self.focus_action.setChecked(bool(getattr(self, "_focus_saved", None)))

    # -- the store and other processes ---------------------------------------------------

    def store_changed(self, select_dataset: str | None = None, select_run: str | None = None) -> None:
        """Show what was written to the store by anyone (another process, an import):
        new datasets and runs in the pickers, new rows, review states and scores,
        without losing the current dataset, run or item. Names given are selected."""
        self._wanted = (select_dataset, select_run)
        self.runner.start("datasets", _datasets, self.store, on_result=self._merge_datasets,
                          on_error=self._job_error)

    def _merge_datasets(self, datasets) -> None:
        want_ds, want_run = getattr(self, "_wanted", (None, None))
        self._wanted = (None, None)
        current = self.current_dataset()
        if want_ds is not None:
            self.settings.setValue("dataset", want_ds)
        if want_run is not None:
            self.settings.setValue("run", want_run)
        same = current is not None and want_ds in (None, current.name) and any(
            d.id == current.id for d in datasets)
        if not same:
            self._set_datasets(datasets)  # the current one went away, or another was asked for
            return
        fresh = next(d for d in datasets if d.id == current.id)
        self.datasets = datasets
        self.dataset_box.blockSignals(True)
        self.dataset_box.clear()
        for d in datasets:
            self.dataset_box.addItem(f"{d.name}  ({d.items:,} items, {d.kind})", d.id)
        self.dataset_box.setCurrentIndex(self.dataset_box.findData(current.id))
        self.dataset_box.blockSignals(False)
        if fresh.items != current.items:  # rows added: reload them, keeping the selected item
            self._reselect_id = self.model.item_id(self.current_row()) if self.current_row() >= 0 else None
            self.model.set_query(self.model.query())
        else:
            self.model.refresh()  # review states and gold marks
        self.refresh_runs(keep_selection=want_run is None)
        self.runs_panel.reload()
        if fresh.runs != current.runs:
            self.item_view.reload()  # the shown item's outputs come from the runs

    def _reselect(self) -> None:
        """Select ``_reselect_id`` again (without reloading the item view) once the
        model knows its row; given up when the model knows every row and not it."""
        item_id = self._reselect_id
        if item_id is None or self.model.loading():
            return
        row = self.model.row_of(item_id)
        if row is None and not self.model.ids_known():
            return  # the id list is on its way (ids_loaded calls again)
        self._reselect_id = None
        if row is not None:
            self.table.selectionModel().blockSignals(True)
            self.select_row(row)
            self.table.selectionModel().blockSignals(False)

    def _query_shown(self, _count: int) -> None:
        # A model reset keeps the scroll position: a sort or a filter shown at row 50,000 of
        # the old order would show the middle of the new one (and read that deep page first).
        # The same query read again (another process wrote) keeps its place.
        query = self.model.query()
        if query != self._shown_query:
            self.table.scrollToTop()
        self._shown_query = query
        then, self._when_shown = self._when_shown, None
        if then is not None:
            then()
        self._reselect()

    def _rows_arrived(self, *_args) -> None:
        """Rows came in: the item of a current row that waited for its page, an item to reselect."""
        if self._reselect_id is not None:
            self._reselect()
        row = self._row_waiting
        if row >= 0 and row == self.current_row():
            item_id = self.model.item_id(row)
            if item_id is not None:
                self._row_waiting = -1
                self.item_view.show_item(item_id)

    def _select_first(self) -> None:
        """After a new dataset or new filters are shown: their first row, if none is current."""
        if not self.model.rowCount():
            self.item_view.show_item(None)
        elif not self.table.currentIndex().isValid():
            self.select_row(0)

    def refresh_runs(self, keep_selection: bool = True) -> None:
        """Reload the current dataset's runs into the run picker (after a rerun or an import)."""
        ds = self.current_dataset()
        if ds is None:
            return
        if keep_selection and self.current_run_id() is not None:
            self.settings.setValue("run", self.run_box.currentText().split("  (")[0])
        self.runner.start("dataset", _dataset_state, self.store, ds.id, on_result=self._set_dataset_state,
                          on_error=self._job_error)

    def switch_store(self, store, url: str):
        """Open ``store`` in a new window that replaces this one; returns the new window."""
        self.save_settings()
        self.settings.setValue("database", url)
        window = MainWindow(store, self.settings)
        window.owns_store = True
        window.setGeometry(self.geometry())
        window.show()
        self.replaced_by = window
        self.close()
        return window

    # -- datasets and runs -------------------------------------------------------------

    def refresh_datasets(self) -> None:
        self.runner.start("datasets", _datasets, self.store, on_result=self._set_datasets,
                          on_error=self._job_error)

    def _set_datasets(self, datasets) -> None:
        self.datasets = datasets
        wanted = self.settings.value("dataset", "")
        self.dataset_box.blockSignals(True)
        self.dataset_box.clear()
        for d in datasets:
            self.dataset_box.addItem(f"{d.name}  ({d.items:,} items, {d.kind})", d.id)
        names = [d.name for d in datasets]
        index = names.index(wanted) if wanted in names else (0 if datasets else -1)
        self.dataset_box.setCurrentIndex(index)
        self.dataset_box.blockSignals(False)
        if not datasets:
            self.count_label.setText("No datasets yet: File ▸ Import dataset… (Ctrl+I).")
            self.item_view.placeholder.setText(
                "No datasets yet. Import one with File ▸ Import dataset… (Ctrl+I), or open another "
                "database with File ▸ Open database… (Ctrl+O).")
        else:  # the first dataset arrived (a first start's samples): the empty-store hint is wrong now
            self.item_view.placeholder.setText(PICK_AN_ITEM)
        self._on_dataset(index)

    def current_dataset(self):
        i = self.dataset_box.currentIndex()
        return self.datasets[i] if 0 <= i < len(self.datasets) else None

    def select_dataset(self, name: str) -> None:
        for i, d in enumerate(self.datasets):
            if d.name == name:
                self.dataset_box.setCurrentIndex(i)

    def _on_dataset(self, index: int) -> None:
        ds = self.current_dataset()
        self.item_view.show_item(None)
        if ds is None:
            self.model.set_query(None)
            return
        self.settings.setValue("dataset", ds.name)
        self.filters.clear_only(emit=False)  # item ids of another dataset
        self._when_shown = self._select_first
        self._set_query(self.filters.apply(ItemQuery(dataset_id=ds.id)))
        self.runner.start("dataset", _dataset_state, self.store, ds.id, on_result=self._set_dataset_state,
                          on_error=self._job_error)

    def _set_dataset_state(self, result) -> None:
        runs, facets = result
        self.runs = runs
        before = self.filters.state()
        self.filters.set_facets(facets)
        if self.filters.state() != before:  # a choice this dataset lacks fell back to "Any"
            self._when_shown = self._select_first
            self.model.set_query(self.filters.apply(ItemQuery(dataset_id=self.current_dataset().id)))
        # Columns this dataset leaves empty only take room.
        for column, values in (("Kind", facets.kinds[1:]), ("Category", facets.categories),
                               ("Difficulty", facets.difficulties), ("Depth", facets.depths)):
            self.table.setColumnHidden(COL[column], not values)
        self.table.setColumnHidden(COL["Score"], not runs)
        self.filters.set_runs(runs)
        wanted = self.settings.value("run", "")
        self.run_box.blockSignals(True)
        self.run_box.clear()
        self.run_box.addItem("(no run)", None)
        for r in runs:
            errors = f", {r.errors} failed" if r.errors else ""
            self.run_box.addItem(f"{r.name}  ({r.outputs} outputs{errors})", r.id)
        names = [r.name for r in runs]
        self.run_box.setCurrentIndex(names.index(wanted) + 1 if wanted in names else (1 if runs else 0))
        self.run_box.blockSignals(False)
        self._on_run(self.run_box.currentIndex())
        if not self.model.loading() and self.model.rowCount() and not self.table.currentIndex().isValid():
            self.select_row(0)

    def current_run_id(self) -> int | None:
        return self.run_box.currentData()

    def _on_run(self, index: int) -> None:
        run_id = self.run_box.currentData()
        if run_id is not None:
            self.settings.setValue("run", self.run_box.currentText().split("  (")[0])
        self.item_view.set_run(run_id)
        self.load_scores()
        query = self.model.query()
        if self.filters.set_run(run_id) or (query is not None and query.sort == "score"):
            self.apply_filters()  # the score filters or the Score sort use the run

    def load_scores(self) -> None:
        """Fill the Score column with the selected run's scores in the filter bar's mode."""
        run_id, mode = self.current_run_id(), self.filters.mode()
        self.model.set_score_run(run_id, mode)
        if run_id is None:
            self.runner.cancel("scores")
            self.model.set_scores(None)
        else:
            self.runner.start("scores", _scores, self.store, run_id, mode,
                              on_result=lambda scores: self.model.set_scores(scores, mode), on_error=self._job_error)

    # -- browsing ----------------------------------------------------------------------

    def apply_filters(self) -> None:
        ds = self.current_dataset()
        if ds is None:
            return
        self._when_shown = self._select_first  # the filtered rows start at their first
        self._set_query(self.filters.apply(self.model.query() or ItemQuery(dataset_id=ds.id)))

    def show_only_items(self, label: str, item_ids: list[int]) -> None:
        """Narrow the item table to exactly ``item_ids`` (e.g. the release panel's
        "Withheld" count); the filter bar says so and offers "Show all"."""
        if not self.browser.isVisible():
            self.toggle_browser(True)
        self.filters.show_only(label, item_ids)

    def _set_query(self, query: ItemQuery) -> None:
        self.model.set_query(query)
        if query.sort == "position":  # a new dataset, or the Score sort dropped for want of a run
            self.table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)

    def review_column(self) -> int:
        return COL["Review"]

    def _fit_columns(self) -> None:
        """Review column: as wide as its labels in the shown rows need; Score: its values (at
        least its 50 px); ID: its text, at most a third of the table (elided in the middle beyond
        that) and never pushing the Score out of view."""
        viewport = self.table.viewport().width()
        # Narrowed for the diff, the list keeps ID and Review only (reviewer_ui/views/narrow_list):
        # the Score then need not be in view.
        narrowed = getattr(self, "narrow_list", None) is not None and self.narrow_list.narrowed
        self.table.setProperty("wholeColumns", [COL["Review"]] + ([] if narrowed else [COL["Score"]]))
        review = self._review_width = max(self._review_width, self.table.sizeHintForColumn(COL["Review"]),
                                          self.table.horizontalHeader().sectionSizeHint(COL["Review"]))
        self.table.setColumnWidth(COL["Review"], review)
        score = 0
        if not self.table.isColumnHidden(COL["Score"]):
            score = max(50, self.table.sizeHintForColumn(COL["Score"]))
            self.table.setColumnWidth(COL["Score"], score)
        ident = self.table.sizeHintForColumn(COL["ID"])
        if ident > 0:
            self.table.setColumnWidth(COL["ID"], max(60, min(ident, viewport // 3, viewport - review - score)))

    def _on_count(self, n: int) -> None:
        ds = self.current_dataset()
        if ds is None:
            return  # the empty state's message stays
        total = ds.items
        unit = "item" if total == 1 else "items"
        self.count_label.setText(f"{n:,} of {total:,} {unit}" if n != total else f"{n:,} {unit}")

    def select_row(self, row: int) -> None:
        if 0 <= row < self.model.rowCount():
            index = self.model.index(row, 0)
            self.table.selectionModel().setCurrentIndex(
                index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
            )
            self.table.scrollTo(index)

    def current_row(self) -> int:
        index = self.table.currentIndex()
        return index.row() if index.isValid() else -1

    def next_item(self) -> None:
        self.select_row(min(self.model.rowCount() - 1, self.current_row() + 1))

    def previous_item(self) -> None:
        self.select_row(max(0, self.current_row() - 1))

    def next_failing(self) -> None:
        self._jump_to_failing(True)

    def previous_failing(self) -> None:
        self._jump_to_failing(False)

    def _jump_to_failing(self, forward: bool) -> None:
        """Select the next / previous row (in the table's filter and order) whose item
        scores below 1 in the selected run; found by one query on a worker."""
        query, run_id = self.model.query(), self.current_run_id()
        if query is None or run_id is None:
            self.statusBar().showMessage("Pick a run first: a failing item scores below 1 in the selected run.", 6000)
            return
        if not self.model.has_scores():
            self.statusBar().showMessage(
                f"The selected run has no {self.filters.mode()} scores yet: score it first "
                "(Runs ▸ Score selected runs), then Ctrl+J finds its failing items.", 8000)
            return
        self.runner.start("failing", _failing_row, self.store, query, run_id, self.filters.mode(), self.current_row(),
                          forward, on_result=lambda result: self._show_failing(result, forward),
                          on_error=self._job_error)

    def _show_failing(self, result, forward: bool) -> None:
        query, row = result
        if query is not self.model.query():  # the filters changed meanwhile
            return
        if row is None:
            where = "after" if forward else "before"
            self.statusBar().showMessage(f"No failing item {where} this one in the selected run "
                                         f"({self.filters.mode()} scoring).", 6000)
        else:
            self.select_row(row)

    def _on_row(self, current, _previous) -> None:
        if not current.isValid():
            self._row_waiting = -1
            self.item_view.show_item(None)
            return
        item_id = self.model.item_id(current.row())  # never a read here: None while its page is read
        if item_id is None:
            self._row_waiting = current.row()  # shown when the page lands (_rows_arrived)
            self.item_view.state.setText("loading…")
            return
        self._row_waiting = -1
        self.item_view.show_item(item_id)

    def _set_narrow_list(self, on: bool) -> None:
        self.narrow_list.set_enabled(on)

    def focus_search(self) -> None:
        self.narrow_list.hold_wide()  # the filters are wanted
        if not self.browser.isVisible():
            self.toggle_browser(True)
        self.filters.search.setFocus()
        self.filters.search.selectAll()

    # -- panes and theme -----------------------------------------------------------------

    def toggle_browser(self, visible: bool | None = None) -> None:
        visible = (not self.browser.isVisible()) if visible is None or not isinstance(visible, bool) else visible
        self.browser.setVisible(visible)
        self.browser_action.setChecked(visible)
        self.narrow_list.schedule()

    def toggle_header(self, visible: bool | None = None) -> None:
        visible = (not self.item_view.facts.isVisible()) if not isinstance(visible, bool) else visible
        self.item_view.facts.setVisible(visible)
        self.header_action.setChecked(visible)

    def toggle_theme(self, dark: bool | None = None) -> None:
        dark = (theme.current() != "dark") if not isinstance(dark, bool) else dark
        app = QApplication.instance()
        theme.apply(app, "dark" if dark else "light")
        self.theme_action.setChecked(dark)
        self.settings.setValue("theme", theme.current())
        self.item_view.refresh()  # layouts colour some things when filled

    # -- jobs ---------------------------------------------------------------------------

    def _watch_job(self, job) -> None:
        job.progressed.connect(lambda p, job=job: self._on_progress(p, job))
        job.done.connect(lambda job=job: self._progress_over(job))

    def _on_progress(self, p, job=None) -> None:
        if job is not None:
            self._progressing.add(job)
        self.progress.setVisible(True)
        # QProgressBar.setValue repaints at once (QWidget.repaint) whenever the bar moves
        # a chunk, and a synchronous repaint paints the whole window's pending damage with
        # it: during a first start each landed sample painted every pane from inside this
        # slot. With updates off the value is only stored; turning them on again asks for
        # an ordinary update, painted by the event loop with everything else.
        self.progress.setUpdatesEnabled(False)
        if p.total:
            self.progress.setRange(0, p.total)
            self.progress.setValue(p.done)
            self.progress_text.setText(f"{min(p.done, p.total) * 100 // p.total}%")
        else:
            self.progress.setRange(0, 0)
            self.progress_text.setText("")
        self.progress.setUpdatesEnabled(True)
        self.progress_text.setVisible(bool(self.progress_text.text()))
        if p.message:
            self._progress_message = p.message
            self.statusBar().showMessage(p.message, 2000)

    def _progress_over(self, job) -> None:
        """The bar, its percentage, Cancel and the step's message belong to the jobs that report
        progress: they go when the last of those ends, even while quick jobs (a save, an item's
        review state) keep the runner busy."""
        self._progressing.discard(job)
        if not self._progressing:
            self._hide_progress()

    def _hide_progress(self) -> None:
        self.progress.setVisible(False)
        self.progress_text.setVisible(False)
        self.cancel_button.setVisible(False)
        # A job's step ("reading stored scores") is over: don't leave it shown.
        if self.statusBar().currentMessage() == getattr(self, "_progress_message", None):
            self.statusBar().clearMessage()

    def _on_active(self, n: int) -> None:
        if n == 0:
            self._progressing.clear()
            self._hide_progress()
        self.cancel_button.setVisible(n > 0 and self.progress.isVisible())

    def _job_error(self, exc: BaseException, trace: str) -> None:
        self.statusBar().showMessage(f"error: {exc}", 10000)

    # -- settings ------------------------------------------------------------------------

    def _splitters(self) -> list[QSplitter]:
        return [s for s in self.findChildren(QSplitter) if s.objectName()]

    def _restore(self) -> None:
        geometry = self.settings.value("geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        else:
            self.resize(self._first_size())
        state = self.settings.value("splitters/mainSplitter")
        if isinstance(state, QByteArray):
            self.splitter.restoreState(state)
        else:  # the item under review gets the room; the browser a column (set once it is laid out:
            # before, Qt shares the first width out in proportion and the list took 354 px at 1366)
            self.splitter.setSizes([300, 700])
            self._first_browser_width = FIRST_BROWSER_WIDTH
        width = self.settings.value("browserWidth")
        if width is not None and str(width).isdigit():
            self.splitter.setSizes([int(width), max(1, sum(self.splitter.sizes()) - int(width))])
        if not isinstance(self.settings.value("windowState"), QByteArray) or not self.restoreState(
                self.settings.value("windowState")):
            docks.fit_docked(self, self.review_dock)
        if self.settings.value("browserVisible", "true") in ("false", False):
            self.toggle_browser(False)

    def _first_size(self):
        """1400x860, or what the screen has room for."""
        from PySide6.QtCore import QSize

        screen = self.screen()
        avail = screen.availableGeometry().size() if screen is not None else QSize(1400, 860)
        return QSize(min(1400, avail.width()), min(860, avail.height()))

    def save_settings(self) -> None:
        self.settings.setValue("geometry", self.saveGeometry())
        self.settings.setValue("windowState", self.saveState())
        loans = {layout.splitter: layout.user_state() for layout in self.item_view.layouts.values()}
        for s in self._splitters():
            # (a layout's splitter: the sizes the user chose, not the room lent to the diff)
            self.settings.setValue(f"splitters/{s.objectName()}", loans.get(s) or s.saveState())
        self.settings.setValue("browserVisible", self.browser.isVisible())
        # The list's own width, not the narrow one it has while the diff is read (restored over the state).
        if self.narrow_list.narrowed:
            self.settings.setValue("browserWidth", self.narrow_list.full_width())
        else:
            self.settings.remove("browserWidth")
        self.settings.setValue("theme", theme.current())
        self.settings.sync()

    def _set_diff_arrangement(self, text: str) -> None:
        self.settings.setValue("diffArrangement", text)
        for layout in self.item_view.layouts.values():
            box = layout.diff.arrangement
            if box.currentText() != text:
                box.setCurrentText(text)

    def _on_item_loaded(self, _bundle) -> None:
        layout = self.item_view.current_layout()
        if layout is not None and not layout.property("narrowListHooked"):
            layout.setProperty("narrowListHooked", True)
            layout.diff_reading_changed.connect(self.narrow_list.changed)
            # The diff's arrangement (Auto / Side by side / Stacked) is one choice for every kind, kept.
            box = layout.diff.arrangement
            chosen = box.findText(str(self.settings.value("diffArrangement", "Auto")))
            box.setCurrentIndex(max(0, chosen))
            box.textActivated.connect(self._set_diff_arrangement)
        self.narrow_list.changed()
        self._tab_chain_timer.start()  # the new layout's and review panel's widgets
        # The review panel follows the item (more checks, other tags): its dock follows its width.
        # With self as the timer's context: a window closed before it fires (a test's, a quick quit) is not touched.
        QTimer.singleShot(0, self, lambda: docks.fit_docked(self, self.review_dock))
        # Layouts are built on first use: restore their splitters once they exist.
        for s in self._splitters():
            name = s.objectName()
            if name not in self._restored:
                self._restored.add(name)
                state = self.settings.value(f"splitters/{name}")
                if isinstance(state, QByteArray):
                    s.restoreState(state)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        first = getattr(self, "_first_browser_width", None)
        total = sum(self.splitter.sizes())
        if first and total > 2 * first:
            self._first_browser_width = None
            self.splitter.setSizes([max(first, self.browser.minimumSizeHint().width()),
                                    total - max(first, self.browser.minimumSizeHint().width())])
        if hasattr(self, "narrow_list"):
            self.narrow_list.schedule()

    def closeEvent(self, event) -> None:
        self.watcher.stop()
        self.save_settings()
        self.runner.shutdown(3000)
        super().closeEvent(event)
        if self.owns_store:
            self.store.close()
