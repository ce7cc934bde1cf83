"""The single gold writer: every change of an item's gold goes through ``write_gold``.

Callers: Review.set_gold (an adjudicator edits gold directly), Review.adjudicate
(the settled gold), automatic settlement of a unanimous Fix, and Store.set_gold
(kept for the CLI and scripts; it delegates here). The write is conditional on the
item version the caller read, so a concurrent change is never overwritten silently.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Connection

from reviewer.errors import NotFound, StaleWrite
from reviewer.store import audit
from reviewer.store.item_json import ORIGINAL_GOLD
from reviewer.store.jsontext import same_value
from reviewer.store.models import Item

item_t = Item.__table__


def write_gold(conn: Connection, item_id: int, gold: Any, actor: str, expected_version: int, reason: str,
               skip_unchanged: bool = True, settles: bool = False) -> int:
    """Set the item's gold if its version is still ``expected_version``; return the new version
    (with ``skip_unchanged``, the same version when the gold is unchanged). Runs inside the
    caller's transaction. ``settles``: the write is an adjudication's (the audit entry says so,
    for Review.reviewed_gold; a free-text reason cannot)."""
    row = conn.execute(
        select(item_t.c.gold, ORIGINAL_GOLD, item_t.c.version).where(item_t.c.id == item_id)
    ).first()
    if row is None:
        raise NotFound(f"no item with id {item_id}")
    if row.version != expected_version:
        raise StaleWrite(f"item {item_id}", expected_version, row.version)
    if skip_unchanged and same_value(row.gold, gold):
        return row.version
    new_version = expected_version + 1
    updated = conn.execute(
        item_t.update()
        .where(item_t.c.id == item_id, item_t.c.version == expected_version)
        .values(gold=gold, gold_edited=not same_value(gold, row.original_gold), version=new_version)
    ).rowcount
    if updated != 1:  # moved on between our read and our write (another transaction committed)
        raise StaleWrite(f"item {item_id}", expected_version, expected_version + 1)
    audit.record(conn, actor, "item", item_id, "edit_gold", before={"gold": row.gold, "version": row.version},
                 after={"gold": gold, "version": new_version, "reason": reason, "settles": settles})
    return new_version
