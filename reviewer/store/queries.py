"""The item table's queries: filtering, sorting and paging happen in SQL.

The GUI's table model asks for ``count`` once and then pages of rows as they
scroll into view; nothing loads a whole dataset into memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import Select, func, or_, select

from reviewer.store.models import Item
from reviewer.store.views import ItemRow

item_t = Item.__table__

SORTABLE = {
    "position": item_t.c.position,
    "record_id": item_t.c.record_id,
    "kind": item_t.c.kind,
    "category": item_t.c.category,
    "difficulty": item_t.c.difficulty,
    "depth": item_t.c.depth,
    "domain": item_t.c.domain,
}


@dataclass
class ItemQuery:
    """Which items of a dataset, in which order. Empty filters match everything."""

    dataset_id: int
    kinds: list[str] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    difficulties: list[str] = field(default_factory=list)
    depths: list[int] = field(default_factory=list)
    text: str = ""  # substring of the record id or the question, case-insensitive
    edited: bool | None = None  # only items whose gold was (not) edited
    sort: str = "position"
    descending: bool = False

    def where(self, stmt: Select) -> Select:
        stmt = stmt.where(item_t.c.dataset_id == self.dataset_id)
        if self.kinds:
            stmt = stmt.where(item_t.c.kind.in_(self.kinds))
        if self.categories:
            stmt = stmt.where(item_t.c.category.in_(self.categories))
        if self.difficulties:
            stmt = stmt.where(item_t.c.difficulty.in_(self.difficulties))
        if self.depths:
            stmt = stmt.where(item_t.c.depth.in_(self.depths))
        if self.text:
            pattern = f"%{self.text.lower()}%"
            stmt = stmt.where(
                or_(func.lower(item_t.c.record_id).like(pattern), func.lower(item_t.c.question).like(pattern))
            )
        if self.edited is not None:
            stmt = stmt.where(item_t.c.gold_edited == self.edited)
        return stmt

    def order(self, stmt: Select) -> Select:
        column = SORTABLE.get(self.sort)
        if column is None:
            raise ValueError(f"cannot sort by {self.sort!r}; sortable: {', '.join(SORTABLE)}")
        primary = column.desc() if self.descending else column.asc()
        # The position breaks ties so that pages never overlap or skip rows.
        return stmt.order_by(primary, item_t.c.position)


ROW_COLUMNS = (
    item_t.c.id, item_t.c.record_id, item_t.c.position, item_t.c.kind, item_t.c.category,
    item_t.c.difficulty, item_t.c.depth, item_t.c.domain, item_t.c.question, item_t.c.version, item_t.c.gold_edited,
)


def count_items(conn, query: ItemQuery) -> int:
    return conn.execute(query.where(select(func.count()).select_from(item_t))).scalar_one()


def page_items(conn, query: ItemQuery, offset: int, limit: int) -> list[ItemRow]:
    stmt = query.order(query.where(select(*ROW_COLUMNS))).offset(offset).limit(limit)
    return [
        ItemRow(
            id=r.id, record_id=r.record_id, position=r.position, kind=r.kind, category=r.category,
            difficulty=r.difficulty, depth=r.depth, domain=r.domain,
            question=(r.question[:300] if r.question else r.question), version=r.version, edited=r.gold_edited,
        )
        for r in conn.execute(stmt)
    ]
