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


# -- ids that outlive their rows ------------------------------------------------------------------
# SQLite gives a new row the largest id plus one, so once the newest dataset is deleted its item
# and annotation ids are given again to the next import's rows, while the audit log keeps the old
# rows' entries under the same ids. A dataset's deletion therefore records the ids it removed
# (as runs), and whoever reads an entity's history reads it from after the last deletion of that id.

def id_runs(ids: list[int]) -> list[list[int]]:
    """Sorted ``ids`` as ``[first, last]`` runs of consecutive ids (a dataset's are a few runs)."""
    runs: list[list[int]] = []
    for i in sorted(ids):
        if runs and i == runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return runs


def _in_runs(runs: Any, value: int) -> bool:
    return isinstance(runs, list) and any(
        isinstance(r, list) and len(r) == 2 and r[0] <= value <= r[1] for r in runs)


def history_starts(conn: Connection, ids: dict[str, list[int]]) -> dict[str, dict[int, int]]:
    """For each id of each entity in ``ids`` ("item" or "annotation" -> ids), the audit id after
    which entries under that id are about the row that holds it now: the last dataset deletion
    that removed a row with the same id (0 when none did). One read of the deletions serves every
    entity asked for. Deletions recorded before the ids were kept cannot be told."""
    from sqlalchemy import select

    keys = {"item": "item_ids", "annotation": "annotation_ids"}
    starts = {entity: dict.fromkeys(entity_ids, 0) for entity, entity_ids in ids.items()}
    wanted = {entity: set(entity_ids) for entity, entity_ids in ids.items() if entity_ids}
    if not wanted:
        return starts
    deletions = conn.execute(
        select(audit_table.c.id, audit_table.c.before)
        .where(audit_table.c.entity == "dataset", audit_table.c.action == "delete")
        .order_by(audit_table.c.id.desc())).all()
    for deletion_id, before in deletions:
        if not isinstance(before, dict):
            continue
        for entity, left in list(wanted.items()):
            runs = before.get(keys[entity])
            for value in [v for v in left if _in_runs(runs, v)]:
                starts[entity][value] = deletion_id
                left.discard(value)
            if not left:
                del wanted[entity]
        if not wanted:
            break
    return starts
