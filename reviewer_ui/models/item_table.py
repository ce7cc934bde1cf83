"""The item table: a QAbstractTableModel over the store's paged item queries.

Filtering and sorting happen in SQL (ItemQuery); the model asks for the row
count once per query and fetches pages of ``page_size`` rows when ``data()``
first needs a row of them, keeping the most recent ``max_pages`` pages. So
100,000 items cost one COUNT and the pages actually scrolled past.

Deep pages: OFFSET paging makes the database walk every row before the page
(0.1-0.3 s at row 90,000 here). So the model also loads the query's ordered
id list (browse.ordered_ids) — on the job runner when it has one — and once
it is there fetches every page by id. The review state of a page's rows is
fetched with the page.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import replace

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QBrush

from reviewer.store import browse
from reviewer.store.queries import SORTABLE, ItemQuery

# Sort keys beyond the plain columns (reviewer.store.queries.ItemQuery.order_by).
RUN_SORT, REVIEW_SORT = "score", "review"
from reviewer.store.views import ItemRow
from reviewer_ui import theme

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


def _ordered_ids(ctx, store, query):
    return query, browse.ordered_ids(store, query)


class ItemTableModel(QAbstractTableModel):
    """Rows of one ItemQuery. ``ItemIdRole`` gives a row's item id."""

    ItemIdRole = Qt.ItemDataRole.UserRole + 1  # listed in _ROLES
    query_changed = Signal(int)  # the new row count
    load_failed = Signal(str)

    def __init__(self, store, page_size: int = 200, max_pages: int = 40, runner=None, parent=None):
        super().__init__(parent)
        self.store = store
        self.runner = runner  # None: the id list is loaded synchronously
        self._ids = None  # the query's ordered item ids, once loaded
        self.page_size = page_size
        self.max_pages = max_pages
        self._query: ItemQuery | None = None
        self._count = 0
        self._pages: OrderedDict[int, list[ItemRow]] = OrderedDict()
        self._states: dict[int, browse.ReviewState] = {}
        self._viewer: tuple[str | None, bool] = (None, False)
        self._scores: dict[int, float | None] | None = None
        self._score_mode = "faithful"  # the scoring mode of ``_scores`` (cell tool tips say it)
        self._score_run: int | None = None  # the run the Score column shows (and sorts by)
        self.pages_fetched = 0  # how many page queries ran (the tests read it)
        self._last: tuple[int, list[ItemRow]] | None = None  # the page of the previous lookup

    # -- query ------------------------------------------------------------------

    def query(self) -> ItemQuery | None:
        return self._query

    def set_query(self, query: ItemQuery | None) -> None:
        self.beginResetModel()
        self._query = query
        self._ids = None
        self._last = None
        self._pages.clear()
        self._states.clear()
        try:
            self._count = self.store.count_items(query) if query is not None else 0
            if query is not None and self.runner is None:
                self._ids = browse.ordered_ids(self.store, query)
        except Exception as exc:  # a broken connection must not kill the GUI
            log.exception("counting items failed")
            self._count = 0
            self.load_failed.emit(str(exc))
        self.endResetModel()
        if query is not None and self.runner is not None and self._count > self.page_size:
            self.runner.start("item-ids", _ordered_ids, self.store, query, on_result=self._set_ids)
        self.query_changed.emit(self._count)

    def _set_ids(self, result) -> None:
        query, ids = result
        if query is self._query:  # pages already shown stay: they are in the same order
            self._ids = ids

    def refresh(self) -> None:
        """Forget cached pages (after an edit) and repaint."""
        self._last = None
        self._pages.clear()
        self._states.clear()
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
        """The ItemRow shown at ``row``, fetching its page when needed."""
        if self._query is None or not 0 <= row < self._count:
            return None
        start = row - row % self.page_size
        last = self._last
        if last is not None and last[0] == start:  # a repaint asks for the same page thousands of times
            page = last[1]
        else:
            page = self._pages.get(start)
            if page is None:
                page = self._fetch(start)
            else:
                self._pages.move_to_end(start)
            self._last = (start, page)
        offset = row - start
        return page[offset] if offset < len(page) else None

    def item_id(self, row: int) -> int | None:
        r = self.row_at(row)
        return r.id if r else None

    def _fetch(self, start: int) -> list[ItemRow]:
        try:
            if self._ids is not None:
                page = browse.rows_by_ids(self.store, self._ids[start : start + self.page_size])
            else:
                page = self.store.item_page(self._query, start, self.page_size)
            self._states.update(browse.review_states(self.store, [r.id for r in page], *self._viewer))
        except Exception as exc:
            log.exception("fetching items failed")
            self.load_failed.emit(str(exc))
            return []
        self.pages_fetched += 1
        self._pages[start] = page
        while len(self._pages) > self.max_pages:
            _, dropped = self._pages.popitem(last=False)
            for r in dropped:
                self._states.pop(r.id, None)
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
        if r is None:
            return None
        col = index.column()
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
