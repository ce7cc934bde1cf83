"""SQL clauses the item table's query uses to filter by guard results.

``failed_clause("grounding")`` matches items whose stored grounding result failed
and is not overridden; ``"any"`` matches a failure of any guard. Stored results are
what the table filters on (recompute with ``reviewer check`` after edits).
"""

from __future__ import annotations

from sqlalchemy import and_, exists

from reviewer.guards.registry import GUARD_NAMES
from reviewer.guards.tables import CheckResult, GuardOverride

ANY = "any"
FILTER_CHOICES = (ANY, *GUARD_NAMES)
result_t, override_t = CheckResult.__table__, GuardOverride.__table__


def failed_clause(item_id_column, guard: str):
    """A WHERE clause: the item (``item_id_column``) failed ``guard`` (or any guard) without an override."""
    if guard not in FILTER_CHOICES:
        raise ValueError(f"unknown guard {guard!r}; one of {', '.join(FILTER_CHOICES)}")
    not_overridden = ~exists().where(and_(override_t.c.item_id == result_t.c.item_id,
                                          override_t.c.guard == result_t.c.guard))
    conditions = [result_t.c.item_id == item_id_column, result_t.c.status == "fail", not_overridden]
    if guard != ANY:
        conditions.append(result_t.c.guard == guard)
    return exists().where(and_(*conditions))
