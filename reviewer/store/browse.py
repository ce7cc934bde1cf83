"""Queries the item browser needs beyond ItemQuery: filter choices and review state.

Qt-free; every function takes a Store and reads through SQLAlchemy Core.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import bindparam, func, select

from reviewer.store.bulk import fetch_ids
from reviewer.store.models import Adjudication, Annotation, Item
from reviewer.store.queries import ROW_COLUMNS, ItemQuery
from reviewer.store.views import ItemRow

item_t, annotation_t, adjudication_t = Item.__table__, Annotation.__table__, Adjudication.__table__


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
            .where(item_t.c.dataset_id == dataset_id, item_t.c.gold_edited.is_(True))
        ).scalar_one()
        return Facets(
            kinds=counts(conn, item_t.c.kind),
            categories=counts(conn, item_t.c.category),
            difficulties=counts(conn, item_t.c.difficulty),
            depths=counts(conn, item_t.c.depth),
            edited=edited,
        )


@dataclass(frozen=True)
class ReviewState:
    """Where an item stands in dual annotation, as one viewer may see it.

    Blindness (reviewer.review.annotate): while an item has fewer than two finished
    annotations and is not settled, an annotator sees only their own verdict;
    ``verdicts`` then holds only the viewer's, and ``hidden`` counts the others.
    """

    annotations: int
    verdicts: tuple[str, ...]  # the visible verdicts, in annotator order
    adjudicated: str | None  # the final verdict, or None while unsettled
    hidden: int = 0  # annotations by others the viewer may not see yet

    def label(self) -> str:
        """Short text for a table cell: "adjudicated: fix", "2 annotations (disagree)"..."""
        if self.adjudicated:
            return f"adjudicated: {self.adjudicated}"
        if self.annotations == 0:
            return "not annotated"
        if self.hidden:
            mine = f"yours: {self.verdicts[0] or 'no verdict'}, " if self.verdicts else ""
            return f"{self.annotations} annotation{'s' if self.annotations > 1 else ''} ({mine}{self.hidden} hidden)"
        if self.annotations == 1:
            return f"1 annotation ({self.verdicts[0] or 'no verdict'})"
        agree = len(set(self.verdicts)) == 1
        return f"{self.annotations} annotations ({'agree' if agree else 'disagree'})"


_ANNOTATIONS = (
    select(annotation_t.c.item_id, annotation_t.c.annotator, annotation_t.c.verdict)
    .where(annotation_t.c.item_id.in_(bindparam("ids", expanding=True)))
    .order_by(annotation_t.c.item_id, annotation_t.c.annotator)
)
_ADJUDICATIONS = select(adjudication_t.c.item_id, adjudication_t.c.verdict).where(
    adjudication_t.c.item_id.in_(bindparam("ids", expanding=True))
)
_ROWS = select(*ROW_COLUMNS).where(item_t.c.id.in_(bindparam("ids", expanding=True)))


def review_states(
    store, item_ids: Sequence[int], viewer: str | None = None, sees_all: bool = False
) -> dict[int, ReviewState]:
    """The review state of each given item (items nobody annotated included).

    With ``viewer`` (an annotator, ``sees_all`` False) other annotators' verdicts
    are hidden until the item reaches adjudication, as the protocol requires;
    without a viewer, or for an adjudicator, everything is shown.
    """
    ids = list(item_ids)
    if not ids:
        return {}
    rows: dict[int, list[tuple[str, str]]] = {i: [] for i in ids}
    with store.engine.connect() as conn:
        for item_id, annotator, verdict in conn.execute(_ANNOTATIONS, {"ids": ids}):
            rows[item_id].append((annotator, verdict or ""))
        settled = dict(conn.execute(_ADJUDICATIONS, {"ids": ids}).all())
    states = {}
    for item_id, anns in rows.items():
        finished = sum(1 for _, v in anns if v)
        if viewer is not None and not sees_all and item_id not in settled and finished < 2:
            visible = tuple(v for a, v in anns if a == viewer)
            states[item_id] = ReviewState(len(anns), visible, None, len(anns) - len(visible))
        else:
            states[item_id] = ReviewState(len(anns), tuple(v for _, v in anns), settled.get(item_id))
    return states


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
