"""Queries the item browser needs beyond ItemQuery: filter choices and review state.

Qt-free; every function takes a Store and reads through SQLAlchemy Core.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import bindparam, func, select

from reviewer.store.bulk import fetch_ids
from reviewer.store.models import Item
from reviewer.store.queries import ROW_COLUMNS, ItemQuery
from reviewer.store.views import ItemRow

item_t = Item.__table__


@dataclass(frozen=True)
class Facets:
    """The distinct values a dataset's items take, with item counts, for filter pickers.

    Each list is ``[(value, count), ...]`` sorted by value; None values are left out.
    """

    kinds: list[tuple[str, int]] = field(default_factory=list)
    categories: list[tuple[str, int]] = field(default_factory=list)
    difficulties: list[tuple[str, int]] = field(default_factory=list)
    depths: list[tuple[int, int]] = field(default_factory=list)
    edited: int = 0  # items whose gold differs from the imported gold


def facets(store, dataset_id: int) -> Facets:
    """Distinct kinds, categories, difficulties and depths of one dataset's items."""

    def counts(conn, column):
        stmt = (
            select(column, func.count())
            .where(item_t.c.dataset_id == dataset_id, column.is_not(None))
            .group_by(column)
            .order_by(column)
        )
        return [(value, n) for value, n in conn.execute(stmt)]

    with store.engine.connect() as conn:
        edited = conn.execute(
            select(func.count()).select_from(item_t)
            .where(item_t.c.dataset_id == dataset_id, item_t.c.gold_edited)  # as ix_item_gold_edited reads
        ).scalar_one()
        return Facets(
            kinds=counts(conn, item_t.c.kind),
            categories=counts(conn, item_t.c.category),
            difficulties=counts(conn, item_t.c.difficulty),
            depths=counts(conn, item_t.c.depth),
            edited=edited,
        )


_ROWS = select(*ROW_COLUMNS).where(item_t.c.id.in_(bindparam("ids", expanding=True)))


def review_states(store, item_ids: Sequence[int], viewer: str | None = None, sees_all: bool = False) -> dict:
    """The Review column for these items, as ``viewer`` may see it (reviewer.review.Review.states).

    The review object decides what the viewer sees (an annotator: their own verdict and a
    status phrase); ``sees_all`` is ignored (kept for callers): the role decides, not the caller.
    Without a viewer: as reports see it.
    """
    from reviewer.review import Review

    review = Review(store, viewer) if viewer else Review.for_reports(store)
    return review.states(list(item_ids))


def ordered_ids(store, query: ItemQuery) -> array:
    """The ids of every item a query matches, in its order.

    The item table loads this once per query (on a worker) and then fetches
    any page by id, which costs the same at row 90,000 as at row 0; paging
    with OFFSET makes the database walk every row before the page.
    """
    stmt = query.order(query.where(select(item_t.c.id)))
    with store.engine.connect() as conn:
        return fetch_ids(conn, stmt)


def row_view(r) -> ItemRow:
    """An ItemRow from a row of ``queries.ROW_COLUMNS`` (the question cut as the table shows it)."""
    question = r.question[:300] if r.question else r.question
    return ItemRow(id=r.id, record_id=r.record_id, position=r.position, kind=r.kind, category=r.category,
                   difficulty=r.difficulty, depth=r.depth, domain=r.domain, question=question,
                   version=r.version, edited=r.gold_edited)


def rows_by_ids(store, ids: Sequence[int]) -> list[ItemRow]:
    """Item table rows for the given ids, in the order given (unknown ids are left out)."""
    ids = list(ids)
    if not ids:
        return []
    with store.engine.connect() as conn:
        found = {r.id: r for r in conn.execute(_ROWS, {"ids": ids})}
    return [row_view(found[i]) for i in ids if i in found]
