"""The item table's reads, as plain job functions for the job runner (Qt-free).

The item table (reviewer_ui.models.item_table) never reads the database on
the GUI thread: a new query's row count and first page come from
``first_page``, later pages from ``pages``, both on a worker; the results
carry the query they belong to, so the model drops answers to a query it no
longer shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from reviewer.store import browse
from reviewer.store.queries import ItemQuery
from reviewer.store.views import ItemRow


@dataclass
class Pages:
    """Rows of some pages of one query, with their rows' review states.

    ``count`` is the query's row count when it was read with the pages (``first_page``),
    else None.
    """

    query: ItemQuery
    rows: dict[int, list[ItemRow]]  # first row of a page -> its rows
    states: dict = field(default_factory=dict)  # item id -> reviewer.review ItemState
    count: int | None = None


def first_page(ctx, store, query: ItemQuery, size: int, viewer: tuple[str | None, bool]) -> Pages:
    """The row count and the first ``size`` rows of ``query`` (a screen and more).

    COUNT plus an OFFSET 0 page both follow the sort indexes, so this is the cheapest
    way to the first screen; the id list (``browse.ordered_ids``) comes after it.
    """
    count = store.count_items(query)
    ctx.check_cancelled()
    page = store.item_page(query, 0, size) if count else []
    return Pages(query, {0: page}, _states(store, page, viewer), count)


def pages(ctx, store, query: ItemQuery, starts: Sequence[int], size: int, ids: Sequence[int] | None,
          viewer: tuple[str | None, bool]) -> Pages:
    """The pages of ``query`` beginning at each row of ``starts``.

    With the query's id list (``ids``, browse.ordered_ids) a page is read by id, which
    costs the same deep in the table as at its top; without it by OFFSET. A cancelled
    job stops between pages.
    """
    found: dict[int, list[ItemRow]] = {}
    states: dict = {}
    for start in starts:
        ctx.check_cancelled()
        if ids is not None:
            page = browse.rows_by_ids(store, ids[start : start + size])
        else:
            page = store.item_page(query, start, size)
        found[start] = page
        states.update(_states(store, page, viewer))
    return Pages(query, found, states)


def ordered_ids(ctx, store, query: ItemQuery):
    """The query with its ordered id list (browse.ordered_ids)."""
    return query, browse.ordered_ids(store, query)


def _states(store, page: list[ItemRow], viewer: tuple[str | None, bool]) -> dict:
    return browse.review_states(store, [r.id for r in page], *viewer) if page else {}
