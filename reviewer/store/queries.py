"""The item table's queries: filtering, sorting and paging happen in SQL.

The GUI's table model asks for ``count`` once and then pages of rows as they
scroll into view; nothing loads a whole dataset into memory.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from sqlalchemy import Join, Select, bindparam, case, func, not_, or_, select
from sqlalchemy.ext.compiler import compiles

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
    """The item's first-replication score value (or passed flag) in a run, as a correlated subquery.

    Should an output hold scores of two scorers in the mode, the first stored one counts
    (the lowest id; ``_scored_items`` picks the same one)."""
    return (
        select(column)
        .select_from(score_t.join(output_t, output_t.c.id == score_t.c.output_id))
        .where(output_t.c.item_id == item_t.c.id, output_t.c.run_id == run_id, output_t.c.replication == 0,
               score_t.c.mode == mode, _first_score())
        .limit(1)
        .scalar_subquery()
    )


def _first_score():
    """The score row is its output's first (lowest id) in its mode: an output scored by two
    scorers in one mode counts once, by the score stored first (a NOT EXISTS probe of uq_score,
    cheaper per item than sorting the output's scores by id)."""
    earlier = score_t.alias("earlier")
    return ~select(earlier.c.id).where(earlier.c.output_id == score_t.c.output_id, earlier.c.mode == score_t.c.mode,
                                       earlier.c.id < score_t.c.id).exists()

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
            # a literal, not a bound value: only then can a database use ix_item_gold_edited
            stmt = stmt.where(item_t.c.gold_edited if self.edited else not_(item_t.c.gold_edited))
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
        if self.sort == "score":  # items without a score come last either way, on both databases
            if self.descending:
                return column.desc().nulls_last(), item_t.c.position.desc()
            return column.asc().nulls_last(), item_t.c.position.asc()
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
    """Rows ``offset`` to ``offset + limit`` of the query, in its order (``ItemQuery.order_by``)."""
    if _walks_scores(query, offset, limit):
        rows = _score_page(conn, query, offset, limit)
    else:
        rows = conn.execute(query.order(query.where(select(*ROW_COLUMNS))).offset(offset).limit(limit))
    return [
        ItemRow(
            id=r.id, record_id=r.record_id, position=r.position, kind=r.kind, category=r.category,
            difficulty=r.difficulty, depth=r.depth, domain=r.domain,
            question=(r.question[:300] if r.question else r.question), version=r.version, edited=r.gold_edited,
        )
        for r in rows
    ]


# --- Sorting by score (issue 14) ------------------------------------------------------
# ``order_by`` sorts by a correlated subquery: every item's score is looked up, then all
# items sorted (100k items: ~90 ms on SQLite, ~280 ms on PostgreSQL to the first page).
# ``page_items`` reads the first pages of a score sort by walking indexes instead, for
# the top N rows (N = offset + limit), in the same order as ``order_by``:
#  1. the N-th scored item's score K: walk score.ix_score_sort (run, mode, value) in order,
#     reading output and item by primary key, until N rows of this query (no sorting);
#  2. the scored items beyond K (fewer than N): the same walk, sorted by score, position;
#  3. the items scoring exactly K, in position order, up to N: a small group is read from
#     the score index and sorted; a large one (scores are often just 0 and 1: half the
#     dataset ties) by walking the items in position order, looking up each one's score,
#     which stops after the page (sorting the group would cost as much as sorting all);
#  4. fewer than N scored items: the items without a score follow, in position order.
# The score index starts with the run (score.run_id, its output's: schema step 8), so a
# walk steps over no other run's scores, however many runs the store holds (before step 8
# it held every run's, and stores with more than twice as many scores as the dataset has
# items kept the per-item lookup). It steps over the run's other replications' scores
# (the first replication counts). It is used when the query keeps a good share of the
# dataset (column filters): a text search, an id list or a stage/guard/score filter may keep
# a handful of items, which the per-item lookup sorts faster than a walk over all the run's
# scores would find them.
WALK_ROWS = 5000  # pages beyond this (before the table has its id list) use the plain order


class _InOrder(Join):
    """An inner join that SQLite must run in the order written (its CROSS JOIN).

    With the dataset id a bound parameter, SQLite's planner prefers reading the dataset's
    items by their index and sorting them all (100 ms at 100k items, the cost the walk
    removes); written in order it walks the score index and reads the output and item by
    rowid. PostgreSQL's planner finds the walk itself: a plain JOIN there."""

    inherit_cache = True


@compiles(_InOrder, "sqlite")
def _in_order_sqlite(join, compiler, **kw) -> str:
    kw["asfrom"] = True
    return (f"{compiler.process(join.left, **kw)} CROSS JOIN "
            f"{compiler.process(join.right, **kw)} ON {compiler.process(join.onclause, **kw)}")


def _walks_scores(query: ItemQuery, offset: int, limit: int) -> bool:
    """Whether ``page_items`` reads this page by walking the score index."""
    return (query.sort == "score" and query.score_run_id is not None and offset + limit <= WALK_ROWS
            and not query.text and query.item_ids is None and query.review is None and query.guard_failed is None
            and query.runs_disagree is None and query.score_min is None and query.score_max is None)


def _scored_items(query: ItemQuery, columns) -> Select:
    """The query's items with a score (not null) in its run and mode, unordered."""
    return query.where(
        select(*columns)
        .select_from(_InOrder(_InOrder(score_t, output_t, output_t.c.id == score_t.c.output_id),
                              item_t, item_t.c.id == output_t.c.item_id))
        .where(score_t.c.run_id == query.score_run_id, score_t.c.mode == query.score_mode,
               score_t.c.value.is_not(None), output_t.c.run_id == query.score_run_id, output_t.c.replication == 0,
               _first_score())
    )


def _dataset_size(conn, query: ItemQuery) -> int | None:
    """The dataset's item count (its last position + 1, from the position index), or None
    when row-level security applies (a team's annotator): then a walk may not pay."""
    if conn.dialect.name == "postgresql" and conn.execute(
            select(func.row_security_active("score").op("OR")(func.row_security_active("item")))).scalar():
        # The walk would check the policy on the run's score of every item until it has a page
        # of this annotator's assigned items; the per-item lookup reads only those items.
        return None
    last = conn.execute(select(func.max(item_t.c.position)).where(item_t.c.dataset_id == query.dataset_id)).scalar()
    return None if last is None else last + 1


def _score_page(conn, query: ItemQuery, offset: int, limit: int) -> list:
    """``page_items`` of a score sort, by the steps above (or the plain order, see there)."""
    size = _dataset_size(conn, query)
    if size is None:
        return conn.execute(query.order(query.where(select(*ROW_COLUMNS))).offset(offset).limit(limit)).all()
    need = offset + limit
    value, desc = score_t.c.value, query.descending
    by_value = value.desc() if desc else value.asc()
    position = item_t.c.position.desc() if desc else item_t.c.position.asc()
    kth = conn.execute(_scored_items(query, (value,)).order_by(by_value).offset(need - 1).limit(1)).scalar()
    if kth is None:  # fewer than N scored items: all of them, then the unscored
        rows = conn.execute(_scored_items(query, ROW_COLUMNS).order_by(by_value, position)).all()
        unscored = query.where(select(*ROW_COLUMNS)).where(
            _score_column(query.score_run_id, query.score_mode, value).is_(None))
        rows += conn.execute(unscored.order_by(position).limit(need - len(rows))).all()
        return rows[offset:]
    beyond = value > kth if desc else value < kth
    rows = conn.execute(_scored_items(query, ROW_COLUMNS).where(beyond).order_by(by_value, position)).all()
    # Sorting the group reads each of its scores; walking the items reads about
    # (rows wanted) x (items / group size) of them: the walk pays above sqrt(wanted x items).
    # A small group is read by its outputs' ids (from the score index alone): the planners
    # then read each output and item by primary key (PostgreSQL would otherwise hash-join
    # the run's whole output table: 20 ms).
    small = math.isqrt((need - len(rows)) * size)
    group = select(score_t.c.output_id).where(score_t.c.run_id == query.score_run_id, score_t.c.mode == query.score_mode,
                                              value == kth).limit(small + 1)
    outputs = conn.execute(group).scalars().all()
    if len(outputs) <= small:
        ties = _scored_items(query, ROW_COLUMNS).where(
            value == kth, score_t.c.output_id.in_(bindparam("tie_outputs", sorted(outputs), expanding=True,
                                                            literal_execute=True)))
    else:
        ties = query.where(select(*ROW_COLUMNS)).where(
            _score_column(query.score_run_id, query.score_mode, value) == kth)
    rows += conn.execute(ties.order_by(position).limit(need - len(rows))).all()
    return rows[offset:]
