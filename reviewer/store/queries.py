"""The item table's queries: filtering, sorting and paging happen in SQL.

The GUI's table model asks for ``count`` once and then pages of rows as they
scroll into view; nothing loads a whole dataset into memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import Select, bindparam, case, func, or_, select

from reviewer.review.protocol import STAGE_ALIASES, STORED_STAGES, Stage
from reviewer.store.models import Item, ItemReview, Output, Score
from reviewer.store.views import ItemRow

item_t, rev_t, output_t, score_t = Item.__table__, ItemReview.__table__, Output.__table__, Score.__table__

# The review stages an ItemQuery filters on (reviewer.review.protocol.Stage, stored in item_review);
# the older names "unannotated", "in_review", "disagreement", "settled" are still accepted.
REVIEW_STATES = tuple(s.value for s in STORED_STAGES)


def _stage():
    """The item's stored review stage (the review core writes it; nothing here re-derives it)."""
    return func.coalesce(
        select(rev_t.c.stage).where(rev_t.c.item_id == item_t.c.id).scalar_subquery(), Stage.NOT_ANNOTATED.value)


def _review_rank():
    """The review stage as a sortable number, in the state machine's order."""
    stage = _stage()
    return case(*((stage == s.value, i) for i, s in enumerate(STORED_STAGES)), else_=0)


def _score_column(run_id: int, mode: str, column):
    """The item's first-replication score value (or passed flag) in a run, as a correlated subquery."""
    return (
        select(column)
        .select_from(score_t.join(output_t, output_t.c.id == score_t.c.output_id))
        .where(output_t.c.item_id == item_t.c.id, output_t.c.run_id == run_id, output_t.c.replication == 0,
               score_t.c.mode == mode)
        .limit(1)
        .scalar_subquery()
    )

SORTABLE = {
    "position": item_t.c.position,
    "record_id": item_t.c.record_id,
    "kind": item_t.c.kind,
    "category": item_t.c.category,
    "difficulty": item_t.c.difficulty,
    "depth": item_t.c.depth,
    "domain": item_t.c.domain,
}


# Sort keys that need no tie-breaker: record_id is unique in a dataset (uq_item_record)
# and position is the tie-breaker itself. Ordering by them alone lets the database
# read their (dataset_id, key) index in order, either way.
_UNIQUE_IN_DATASET = frozenset({"position", "record_id"})


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
    # Review stage (see REVIEW_STATES, or an old alias: "settled" = unanimous or adjudicated).
    review: str | None = None
    # Scores of one run (first replication) in one mode: a range filter and the "score" sort.
    score_run_id: int | None = None
    score_mode: str = "faithful"
    score_min: float | None = None
    score_max: float | None = None
    # Two runs whose verdicts (passed) differ on the item, both scored in ``score_mode``.
    runs_disagree: tuple[int, int] | None = None
    # Items whose stored result of this guard failed without an override ("any": of any guard);
    # see reviewer.guards.filters.
    guard_failed: str | None = None
    # Only these items (a set someone picked elsewhere, e.g. the release panel's "withheld" count);
    # None: no such restriction. The ids are rendered into the SQL (no bound-parameter limit).
    item_ids: tuple[int, ...] | None = None
    sort: str = "position"  # a SORTABLE key, "review" (REVIEW_STATES order) or "score" (with score_run_id)
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
        if self.review is not None:
            stmt = stmt.where(self._review_clause())
        if self.score_run_id is not None and (self.score_min is not None or self.score_max is not None):
            value = _score_column(self.score_run_id, self.score_mode, score_t.c.value)
            if self.score_min is not None:
                stmt = stmt.where(value >= self.score_min)
            if self.score_max is not None:
                stmt = stmt.where(value <= self.score_max)
        if self.runs_disagree is not None:
            a, b = (_score_column(run, self.score_mode, score_t.c.passed) for run in self.runs_disagree)
            stmt = stmt.where(a.is_not(None), b.is_not(None), a != b)
        if self.guard_failed is not None:
            from reviewer.guards.filters import failed_clause  # the guards own their tables

            stmt = stmt.where(failed_clause(item_t.c.id, self.guard_failed))
        if self.item_ids is not None:
            ids = sorted({int(i) for i in self.item_ids})
            stmt = stmt.where(item_t.c.id.in_(bindparam("only_item_ids", ids, expanding=True, literal_execute=True)))
        return stmt

    def _review_clause(self):
        stages = STAGE_ALIASES.get(self.review) or ((Stage(self.review),) if self.review in REVIEW_STATES else None)
        if stages is None:
            raise ValueError(f"unknown review state {self.review!r}; one of {', '.join(REVIEW_STATES)}")
        return _stage().in_([s.value for s in stages])

    def order(self, stmt: Select) -> Select:
        return stmt.order_by(*self.order_by())

    def order_by(self) -> tuple:
        """The ORDER BY clauses of this query (also usable in a window function's OVER)."""
        if self.sort == "score" and self.score_run_id is not None:
            column = _score_column(self.score_run_id, self.score_mode, score_t.c.value)
        elif self.sort == "review":
            column = _review_rank()
        else:
            column = SORTABLE.get(self.sort)
        if column is None:
            raise ValueError(
                f"cannot sort by {self.sort!r}; sortable: {', '.join(SORTABLE)}, review, score (with a run)")
        # The position breaks ties so that pages never overlap or skip rows. Descending
        # is the ascending order reversed, ties included: one direction for both keys
        # lets the database walk a (dataset, column, position) sort index backwards
        # instead of sorting every item (issue 14: 149 ms -> an index scan on PostgreSQL).
        if self.sort in _UNIQUE_IN_DATASET:  # no ties: the unique index alone gives the order
            return (column.desc() if self.descending else column.asc(),)
        if self.descending:
            return column.desc(), item_t.c.position.desc()
        return column.asc(), item_t.c.position.asc()


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
