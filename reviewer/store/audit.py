"""The audit log: one row per change, written in the same transaction as the change."""

from __future__ import annotations

from typing import Any

from sqlalchemy.engine import Connection

from reviewer.store.models import AuditEntry, utcnow

audit_table = AuditEntry.__table__


def record(
    conn: Connection,
    actor: str,
    entity: str,
    entity_id: int | None,
    action: str,
    before: Any = None,
    after: Any = None,
) -> None:
    conn.execute(
        audit_table.insert().values(
            at=utcnow(), actor=actor, entity=entity, entity_id=entity_id,
            action=action, before=before, after=after,
        )
    )
