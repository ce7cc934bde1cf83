"""A cheap token that changes whenever another process writes the store.

``change_token(store)`` reads the highest id of the tables that grow with
every write (each write also appends to the audit log in its transaction) and
their row counts where rows are deleted or replaced; each is an index lookup,
so polling it every few seconds costs well under a millisecond on SQLite and
PostgreSQL alike. Equal tokens: nothing anyone committed since. (Team mode
adds LISTEN/NOTIFY on PostgreSQL; this poll works on both backends.)
"""

from __future__ import annotations

from sqlalchemy import func, select

from reviewer.store.models import Adjudication, Annotation, AuditEntry, Dataset, Output, Run, Score

_GROWING = [t.__table__ for t in (AuditEntry, Dataset, Run, Output, Score, Annotation, Adjudication)]


def change_token(store) -> tuple:
    """A tuple that differs after any committed write (see the module docstring)."""
    parts = [select(func.max(t.c.id)).scalar_subquery() for t in _GROWING]
    # Deletions (a dataset, a re-imported run's outputs) lower counts without new ids.
    parts += [select(func.count()).select_from(t).scalar_subquery() for t in (Dataset.__table__, Run.__table__)]
    with store.engine.connect() as conn:
        return tuple(conn.execute(select(*parts)).one())
