"""Jumping through the item table to the items a run fails, in the table's own order.

One SQL statement per jump: the query's rows are numbered with a window function
in the query's ORDER BY, and the first numbered row past the current one whose
item is failing is returned, so a 100,000-item table is never paged through.
"""

from __future__ import annotations

import math

from sqlalchemy import func, select

from reviewer.store.models import Item
from reviewer.store.queries import ItemQuery

item_t = Item.__table__

# "Failing" = a first-replication score below 1 (a perfect score is 1 in every scorer).
FAIL_BELOW = 1.0


def failing_query(dataset_id: int, run_id: int, mode: str = "faithful") -> ItemQuery:
    """The dataset's items whose score in ``run_id`` (``mode``) is below FAIL_BELOW.
    Items the run has no score for are not failing (nothing says they fail)."""
    return ItemQuery(dataset_id=dataset_id, score_run_id=run_id, score_mode=mode,
                     score_max=math.nextafter(FAIL_BELOW, -math.inf))


def failing_row(store, query: ItemQuery, run_id: int, mode: str, current_row: int, forward: bool = True) -> int | None:
    """The row (0-based, in ``query``'s filter and order, as the item table shows it) of
    the next (``forward``) or previous failing item strictly after / before ``current_row``;
    None when there is none. ``current_row`` -1 searches from the top."""
    rn = func.row_number().over(order_by=query.order_by()).label("rn")
    ordered = query.where(select(item_t.c.id, rn)).subquery()
    failing_ids = failing_query(query.dataset_id, run_id, mode).where(select(item_t.c.id))
    row = (ordered.c.rn - 1).label("row")
    stmt = select(row).where(ordered.c.id.in_(failing_ids))
    if forward:
        stmt = stmt.where(ordered.c.rn - 1 > current_row).order_by(ordered.c.rn)
    else:
        stmt = stmt.where(ordered.c.rn - 1 < current_row).order_by(ordered.c.rn.desc())
    with store.engine.connect() as conn:
        return conn.execute(stmt.limit(1)).scalar()
