"""The item table: a QAbstractTableModel over the store's paged item queries.

Filtering and sorting happen in SQL (ItemQuery); the model keeps the most recent
``max_pages`` pages of ``page_size`` rows. So 100,000 items cost one COUNT and
the pages actually scrolled past.

With a job runner (the app) the model never reads the database on the GUI
thread (the project's rule: widgets never touch the database):

- ``set_query`` starts one job for the new query's row count and first page
  (item_pages.first_page); the rows of the previous query stay on screen until
  it lands, then the model resets to it at once, so sorting or filtering never
  flashes an empty table. A newer query supersedes an older one in flight, and
  cancels the page reads of the old one.
- ``data()`` for a row whose page is not in shows a light placeholder ("…")
  and asks for the page; the pages asked for during one repaint are read by one
  job after it (the most recent few: fast scrolling skips the pages flown past),
  then their neighbours are prefetched, so Down / PageDown / J rarely meet a
  placeholder. One page read is in flight at a time: a read that lands starts the
  next with what is wanted by then; a read that does not bring what the screen now
  wants (a prefetch, pages scrolled past) is cancelled and stops after its page.
- ``refresh`` (after an edit) keeps the rows shown and reads their pages again
  in the background; they change in place when the read lands (dataChanged).

Deep pages: OFFSET paging makes the database walk every row before the page
(0.1-0.3 s at row 90,000 here). So once the first page is in the model also
loads the query's ordered id list (browse.ordered_ids) on the runner, and from
then on reads every page by id and knows every row's item id (``item_id``)
without a read. The review state of a page's rows is read with the page.

Without a runner (tests of the paging itself, scripts) the same model reads
synchronously, as before.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import replace

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QBrush

from reviewer.store import browse
from reviewer.store.queries import SORTABLE, ItemQuery

# Sort keys beyond the plain columns (reviewer.store.queries.ItemQuery.order_by).
RUN_SORT, REVIEW_SORT = "score", "review"
from reviewer.store.views import ItemRow
from reviewer_ui import theme
from reviewer_ui.models import item_pages

log = logging.getLogger(__name__)

# (header, ItemQuery sort key or None when the column cannot be sorted in SQL)
COLUMNS = (
    ("ID", "record_id"),
    ("Kind", "kind"),
    ("Category", "category"),
    ("Difficulty", "difficulty"),
    ("Depth", "depth"),
    ("Score", "score"),  # the selected run's score (ItemQuery.score_run_id), in SQL
    ("Review", "review"),  # review progress: not annotated < in review < disagreement < settled
    ("Gold", None),
    ("Domain", "domain"),
    ("Question", None),
)
COL = {name: i for i, (name, _) in enumerate(COLUMNS)}
_ROOT = QModelIndex()
# The Review column is narrow (the browser is a column beside the item): the review core's
# phrases in short, so the state reads whole; the cell's tooltip has the full sentence.
_SHORT_REVIEW = (("yours: ", "you: "), ("not reviewed by you yet", "not reviewed"),
                 ("waiting for a second review", "awaiting 2nd review"))


def short_review_label(text: str) -> str:
    for long, short in _SHORT_REVIEW:
        text = text.replace(long, short)
    return text
_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable


_ROLES = frozenset({
    Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.ForegroundRole,
    Qt.ItemDataRole.TextAlignmentRole, Qt.ItemDataRole.UserRole + 1,
})


PLACEHOLDER = "…"  # a row whose page is still being read
# The job runner keys of the model's reads (one live job per key: a newer one supersedes).
FIRST_KEY, PAGES_KEY, IDS_KEY = "item-first", "item-pages", "item-ids"
VISIBLE_PAGES = 3  # the most recently asked-for pages a read takes (a screen spans at most two)


class ItemTableModel(QAbstractTableModel):
    """Rows of one ItemQuery. ``ItemIdRole`` gives a row's item id."""

    ItemIdRole = Qt.ItemDataRole.UserRole + 1  # listed in _ROLES
    query_changed = Signal(int)  # a new query is shown: its row count (with a runner: once its first page is in)
    ids_loaded = Signal()  # the shown query's id list is in: ``item_id`` knows every row
    load_failed = Signal(str)

    def __init__(self, store, page_size: int = 200, max_pages: int = 40, runner=None, parent=None):
        super().__init__(parent)
        self.store = store
        self.runner = runner  # None: every read is synchronous
        self._ids = None  # the shown query's ordered item ids, once loaded
        self.page_size = page_size
        self.max_pages = max_pages
        self._query: ItemQuery | None = None  # the newest query asked for
        self._shown: ItemQuery | None = None  # the query whose rows are shown (lags _query until it lands)
        self._count = 0
        self._pages: OrderedDict[int, list[ItemRow]] = OrderedDict()
        self._stale: set[int] = set()  # pages shown but read before the last refresh()
        self._wanted: OrderedDict[int, None] = OrderedDict()  # pages data() asked for, newest last
        self._around: list[int] = []  # pages the last read brought for the screen: prefetch their neighbours
        self._reading: set[int] = set()  # the pages the read in flight brings
        self._states: dict[int, browse.ReviewState] = {}
        self._viewer: tuple[str | None, bool] = (None, False)
        self._scores: dict[int, float | None] | None = None
        self._score_mode = "faithful"  # the scoring mode of ``_scores`` (cell tool tips say it)
        self._score_run: int | None = None  # the run the Score column shows (and sorts by)
        self.pages_fetched = 0  # how many pages were read (the tests read it)
        self._last: tuple[int, list[ItemRow]] | None = None  # the page of the previous lookup
        # The pages wanted during one repaint are read together, after it.
        self._read_timer = QTimer(self, singleShot=True, interval=0)
        self._read_timer.timeout.connect(self._read_pages)

    # -- query ------------------------------------------------------------------

    def query(self) -> ItemQuery | None:
        """The newest query asked for (its rows may still be on their way: ``loading``)."""
        return self._query

    def loading(self) -> bool:
        """Whether the newest query's first page is still being read (the previous rows are shown)."""
        return self._query is not self._shown

    def set_query(self, query: ItemQuery | None) -> None:
        self._query = query
        if self.runner is None:
            self._set_query_now(query)
            return
        for key in (FIRST_KEY, PAGES_KEY, IDS_KEY):  # reads of the old query are of no use now
            self.runner.cancel(key)
        self._wanted.clear()
        self._around = []
        if query is None:
            self._show(None, 0)
            return
        self.runner.start(FIRST_KEY, item_pages.first_page, self.store, query, self.page_size, self._viewer,
                          on_result=self._first_landed, on_error=self._first_failed)

    def _set_query_now(self, query: ItemQuery | None) -> None:
        try:
            count = self.store.count_items(query) if query is not None else 0
            ids = browse.ordered_ids(self.store, query) if query is not None else None
        except Exception as exc:  # a broken connection must not kill the GUI
            log.exception("counting items failed")
            self._show(query, 0)
            self.load_failed.emit(str(exc))
            return
        self._show(query, count, ids=ids)

    def _show(self, query, count: int, first: item_pages.Pages | None = None, ids=None) -> None:
        """Reset the model to ``query``'s rows (``first``: its first page, already read)."""
        self.beginResetModel()
        self._shown = query
        self._count = count
        self._ids = ids
        self._last = None
        self._pages.clear()
        self._stale.clear()
        self._states.clear()
        if first is not None:
            self._pages.update(first.rows)
            self._states.update(first.states)
            self.pages_fetched += len(first.rows)
        self.endResetModel()
        self.query_changed.emit(count)

    def _first_landed(self, result: item_pages.Pages) -> None:
        if result.query is not self._query:  # superseded by a newer query meanwhile
            return
        self._show(result.query, result.count, first=result)
        if result.count > self.page_size:
            self.runner.start(IDS_KEY, item_pages.ordered_ids, self.store, result.query, on_result=self._set_ids)

    def _first_failed(self, exc, trace: str = "") -> None:
        """The new query could not be read: show it empty (not the old rows under the new
        filters) and say why (the window's status bar)."""
        self._show(self._query, 0)
        self._failed(exc, trace)

    def _failed(self, exc, _trace: str = "") -> None:
        log.error("reading items failed: %s", exc)
        self.load_failed.emit(str(exc))

    def _set_ids(self, result) -> None:
        query, ids = result
        if query is self._shown:  # pages already shown stay: they are in the same order
            self._ids = ids
            self.ids_loaded.emit()

    def refresh(self) -> None:
        """Read the shown rows again (after an edit) and repaint them.

        With a runner the rows shown stay until their new reads land (no flicker);
        without one the cached pages are dropped and read again on demand."""
        self._last = None
        if self.runner is None:
            self._pages.clear()
            self._states.clear()
        else:
            self._stale = set(self._pages)
        if self._count:
            self.dataChanged.emit(self.index(0, 0), self.index(self._count - 1, len(COLUMNS) - 1))

    def set_viewer(self, name: str | None, sees_all: bool = False) -> None:
        """Whose eyes the Review column uses: an annotator sees only their own verdicts
        until an item reaches adjudication (blind review); an adjudicator sees all."""
        self._viewer = (name, sees_all)
        self.refresh()

    def set_score_run(self, run_id: int | None, mode: str) -> None:
        """The run (and scoring mode) the Score column shows and its header sorts by;
        the scores themselves arrive later through ``set_scores``."""
        self._score_run = run_id
        self._score_mode = mode

    def has_scores(self) -> bool:
        """Whether the selected run has any stored score (in the shown mode)."""
        return bool(self._scores) and any(v is not None for v in self._scores.values())

    def set_scores(self, scores: dict[int, float | None] | None, mode: str | None = None) -> None:
        """Scores of the selected run by item id (None: no run selected), given in
        ``mode`` ("faithful"/"fixed"; None: the mode of the previous scores)."""
        self._scores = scores
        if mode is not None:
            self._score_mode = mode
        if self._count:
            col = COL["Score"]
            self.dataChanged.emit(self.index(0, col), self.index(self._count - 1, col))

    # -- rows -------------------------------------------------------------------

    def row_at(self, row: int) -> ItemRow | None:
        """The ItemRow shown at ``row``; None while its page is being read (with a
        runner the read is started here and lands through dataChanged)."""
        if self._shown is None or not 0 <= row < self._count:
            return None
        start = row - row % self.page_size
        last = self._last
        if last is not None and last[0] == start:  # a repaint asks for the same page thousands of times
            page = last[1]
        else:
            page = self._pages.get(start)
            if page is None:
                if self.runner is not None:
                    self._want(start)
                    return None
                page = self._fetch(start)
            else:
                self._pages.move_to_end(start)
                if start in self._stale:
                    self._want(start)  # shown as it is until the new read lands
            self._last = (start, page)
        offset = row - start
        return page[offset] if offset < len(page) else None

    def item_id(self, row: int) -> int | None:
        """The item id at ``row``: from the id list once it is in, else from the row's
        page; None while that page is being read (its read is started)."""
        ids = self._ids
        if ids is not None and 0 <= row < self._count:
            return ids[row]
        r = self.row_at(row)
        return r.id if r else None

    def row_of(self, item_id: int) -> int | None:
        """The row showing ``item_id``, from what is in (the id list, else the loaded
        pages); None when it is not known without a read."""
        ids = self._ids
        if ids is not None:
            try:
                return ids.index(item_id)
            except ValueError:
                return None
        for start, page in self._pages.items():
            for offset, r in enumerate(page):
                if r.id == item_id:
                    return start + offset
        return None

    def ids_known(self) -> bool:
        """Whether ``row_of`` knows every row without a read (the id list, or one page holds them all)."""
        return self._ids is not None or (self._count <= self.page_size and not self.loading())

    def is_loaded(self, row: int) -> bool:
        """Whether ``row``'s cells can be shown now (its page is in)."""
        return (row - row % self.page_size) in self._pages

    def _want(self, start: int) -> None:
        self._wanted[start] = None
        self._wanted.move_to_end(start)
        if not self._read_timer.isActive():
            self._read_timer.start()

    def _read_pages(self) -> None:
        """Start one job reading the pages wanted since the last read (else the
        neighbours of the last ones read). A read in flight that brings every wanted
        page is waited for (its end calls this again); one that does not (a prefetch,
        or pages scrolled past) is cancelled: it stops after its current page."""
        if self.runner is None or self._shown is None or self.loading():
            return
        job = self.runner.job(PAGES_KEY)
        busy = job is not None and job.running and not job.ctx.cancelled
        wanted = [s for s in reversed(self._wanted) if s not in self._pages or s in self._stale][:VISIBLE_PAGES]
        self._wanted.clear()
        if busy and all(s in self._reading for s in wanted):
            return
        if wanted:
            self._around = wanted
        else:  # the screen is in: the pages before and after it, for the next keys
            step = self.page_size
            wanted = [s for a in self._around for s in (a + step, a - step)
                      if 0 <= s < self._count and s not in self._pages]
            wanted = list(dict.fromkeys(wanted))
            self._around = []
            if not wanted:
                return
        self._reading = set(wanted)
        job = self.runner.start(PAGES_KEY, item_pages.pages, self.store, self._shown, wanted, self.page_size,
                                self._ids, self._viewer, on_result=self._pages_landed, on_error=self._failed)
        job.done.connect(self._read_timer.start)

    def _pages_landed(self, result: item_pages.Pages) -> None:
        if result.query is not self._shown:
            return
        for start, page in result.rows.items():
            self._pages[start] = page
            self._pages.move_to_end(start)
            self._stale.discard(start)
        self._states.update(result.states)
        self.pages_fetched += len(result.rows)
        self._evict()
        self._last = None
        last_col = len(COLUMNS) - 1
        for start in result.rows:
            end = min(start + self.page_size, self._count) - 1
            if end >= start:
                self.dataChanged.emit(self.index(start, 0), self.index(end, last_col))

    def _evict(self) -> None:
        while len(self._pages) > self.max_pages:
            start, dropped = self._pages.popitem(last=False)
            self._stale.discard(start)
            for r in dropped:
                self._states.pop(r.id, None)

    def _fetch(self, start: int) -> list[ItemRow]:
        """A synchronous page read (no runner)."""
        try:
            if self._ids is not None:
                page = browse.rows_by_ids(self.store, self._ids[start : start + self.page_size])
            else:
                page = self.store.item_page(self._shown, start, self.page_size)
            self._states.update(browse.review_states(self.store, [r.id for r in page], *self._viewer))
        except Exception as exc:
            log.exception("fetching items failed")
            self.load_failed.emit(str(exc))
            return []
        self.pages_fetched += 1
        self._pages[start] = page
        self._evict()
        return page

    # -- model ------------------------------------------------------------------

    def rowCount(self, parent=_ROOT) -> int:
        return 0 if parent.isValid() else self._count

    def columnCount(self, parent=_ROOT) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if role not in _ROLES or not index.isValid():  # Qt asks for ~10 roles per cell per repaint
            return None
        r = self.row_at(index.row())
        col = index.column()
        if r is None:  # its page is being read: a light mark where the id goes
            if col == COL["ID"] and self._shown is not None and 0 <= index.row() < self._count:
                if role == Qt.ItemDataRole.DisplayRole:
                    return PLACEHOLDER
                if role == Qt.ItemDataRole.ForegroundRole:
                    return QBrush(theme.colors()["muted"])
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(r, col)
        if role == self.ItemIdRole:
            return r.id
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == COL["Question"]:
                return r.question
            if col == COL["Review"]:
                state = self._states.get(r.id)
                return state.label() if state else None  # the full sentence
            if col in (COL["ID"], COL["Category"], COL["Domain"]):
                return self._display(r, col) or None  # the whole text: the column may elide it
            if col == COL["Gold"] and r.edited:
                return "The gold was edited in reviewer (differs from the imported gold)"
            if col == COL["Score"] and self._scores is not None:
                v = self._scores.get(r.id)
                return f"{'not scored' if v is None else v} ({self._score_mode} scoring)"
        if role == Qt.ItemDataRole.ForegroundRole:
            c = theme.colors()
            if col == COL["Gold"] and r.edited:
                return QBrush(c["number"])
            if col == COL["Score"] and self._scores is not None:
                v = self._scores.get(r.id)
                if v is not None:
                    return QBrush(c["ok"] if v >= 1 else c["bad"] if v <= 0 else c["unk"])
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (COL["Depth"], COL["Score"]):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _display(self, r: ItemRow, col: int):
        if col == COL["ID"]:
            return r.record_id
        if col == COL["Kind"]:
            return r.kind
        if col == COL["Category"]:
            return r.category or ""
        if col == COL["Difficulty"]:
            return r.difficulty or ""
        if col == COL["Depth"]:
            return "" if r.depth is None else str(r.depth)
        if col == COL["Domain"]:
            return r.domain or ""
        if col == COL["Gold"]:
            return "edited" if r.edited else ""
        if col == COL["Review"]:
            state = self._states.get(r.id)
            return short_review_label(state.label()) if state else ""
        if col == COL["Score"]:
            if self._scores is None:
                return ""
            v = self._scores.get(r.id)
            return "—" if v is None else f"{v:.3g}"
        if col == COL["Question"]:
            q = r.question or ""
            return q.replace("\n", " ")[:200]
        return None

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role != Qt.ItemDataRole.DisplayRole:
            if role == Qt.ItemDataRole.ToolTipRole and orientation == Qt.Orientation.Horizontal:
                key = COLUMNS[section][1]
                if key == RUN_SORT:
                    return "sorted by the selected run's score in the filter bar's score mode (pick a run first)"
                return None if key else "not sortable (sorting happens in the database)"
            return None
        if orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section][0]
        return str(section + 1)

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        key = COLUMNS[column][1] if 0 <= column < len(COLUMNS) else None
        if self._query is None or not self.can_sort(key):
            return
        descending = order == Qt.SortOrder.DescendingOrder
        if self._query.sort == key and self._query.descending == descending:
            return
        query = replace(self._query, sort=key, descending=descending)
        if key == RUN_SORT:
            query = replace(query, score_run_id=self._score_run, score_mode=self._score_mode)
        self.set_query(query)

    def can_sort(self, key: str | None) -> bool:
        """Whether the current query can be sorted by ``key`` (the score needs a run)."""
        if key == RUN_SORT:
            return self._score_run is not None
        return key in SORTABLE or key == REVIEW_SORT

    def flags(self, index):
        return _FLAGS if index.isValid() else Qt.ItemFlag.NoItemFlags
