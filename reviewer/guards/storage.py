"""Reading items for the guards and writing their results and overrides.

Results are upserted per (item, guard) in one transaction per batch, so a
cancelled check leaves complete results for the items it finished and the old
results for the rest. Overrides are written with an audit entry.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, delete, select, tuple_

from reviewer.errors import NotFound, ReviewerError
from reviewer.guards.base import GuardItem, GuardResult, source_text
from reviewer.guards.tables import CheckResult, GuardOverride
from reviewer.store import audit
from reviewer.store.item_json import JSON_COLUMNS, stored_payload
from reviewer.store.models import Blob, Item, Person, utcnow

result_t, override_t = CheckResult.__table__, GuardOverride.__table__
item_t, blob_t, person_t = Item.__table__, Blob.__table__, Person.__table__


def load_items(conn, dataset_id: int, item_ids: Iterable[int] | None = None) -> list[GuardItem]:
    """The dataset's items as the guards see them, in position order."""
    stmt = (select(item_t.c.id, item_t.c.record_id, item_t.c.kind, item_t.c.gold, *JSON_COLUMNS,
                   item_t.c.context_hash, item_t.c.schema_hash, item_t.c.category)
            .where(item_t.c.dataset_id == dataset_id).order_by(item_t.c.position))
    if item_ids is not None:
        stmt = stmt.where(item_t.c.id.in_(list(item_ids)))
    rows = conn.execute(stmt).all()
    hashes = {h for r in rows for h in (r.context_hash, r.schema_hash) if h}
    texts: dict[str, str] = {}
    hash_list = list(hashes)
    for i in range(0, len(hash_list), 500):
        texts.update(conn.execute(select(blob_t.c.hash, blob_t.c.text)
                                  .where(blob_t.c.hash.in_(hash_list[i:i + 500]))).all())
    payloads = [stored_payload(r) for r in rows]
    return [
        GuardItem(id=r.id, record_id=r.record_id, kind=r.kind, gold=r.gold,
                  source=source_text(r.kind, payload, texts.get(r.context_hash), r.question),
                  schema=texts.get(r.schema_hash), category=r.category, payload=payload, question=r.question)
        for r, payload in zip(rows, payloads)
    ]


def stored_hashes(conn, item_ids: list[int], guards: list[str]) -> dict[tuple[int, str], str]:
    out: dict[tuple[int, str], str] = {}
    for i in range(0, len(item_ids), 500):
        chunk = item_ids[i:i + 500]
        out.update({(r.item_id, r.guard): r.input_hash for r in conn.execute(
            select(result_t.c.item_id, result_t.c.guard, result_t.c.input_hash)
            .where(result_t.c.item_id.in_(chunk), result_t.c.guard.in_(guards)))})
    return out


def save_results(conn, rows: list[tuple[int, GuardResult, str]]) -> None:
    """Replace the stored results of these (item, guard) pairs."""
    if not rows:
        return
    keys = [(item_id, r.guard) for item_id, r, _ in rows]
    for i in range(0, len(keys), 400):
        conn.execute(delete(result_t).where(tuple_(result_t.c.item_id, result_t.c.guard).in_(keys[i:i + 400])))
    now = utcnow()
    conn.execute(result_t.insert(), [
        {"item_id": item_id, "guard": r.guard, "status": r.status, "summary": r.summary[:2000],
         "details": r.details, "input_hash": h, "computed_at": now}
        for item_id, r, h in rows
    ])


@dataclass(frozen=True)
class StoredResult:
    item_id: int
    guard: str
    status: str
    summary: str
    details: Any
    input_hash: str
    computed_at: datetime


def results(conn, item_ids: Iterable[int]) -> dict[int, dict[str, StoredResult]]:
    ids = list(item_ids)
    out: dict[int, dict[str, StoredResult]] = {}
    for i in range(0, len(ids), 500):
        for r in conn.execute(select(result_t).where(result_t.c.item_id.in_(ids[i:i + 500]))):
            out.setdefault(r.item_id, {})[r.guard] = StoredResult(
                r.item_id, r.guard, r.status, r.summary or "", r.details, r.input_hash, r.computed_at)
    return out


def dataset_results(conn, dataset_id: int) -> list[tuple[int, str, str]]:
    """(item id, guard, status) of every stored result of the dataset."""
    return conn.execute(
        select(result_t.c.item_id, result_t.c.guard, result_t.c.status)
        .join(item_t, item_t.c.id == result_t.c.item_id).where(item_t.c.dataset_id == dataset_id)
    ).all()


# -- overrides ---------------------------------------------------------------


@dataclass(frozen=True)
class Override:
    item_id: int
    guard: str
    adjudicator: str
    reason: str
    created_at: datetime

    def to_dict(self) -> dict:
        return {"guard": self.guard, "adjudicator": self.adjudicator, "reason": self.reason,
                "at": self.created_at.isoformat()}


def overrides(conn, dataset_id: int | None = None, item_ids: Iterable[int] | None = None) -> dict[int, dict[str, Override]]:
    stmt = select(override_t)
    if dataset_id is not None:
        stmt = stmt.join(item_t, item_t.c.id == override_t.c.item_id).where(item_t.c.dataset_id == dataset_id)
    if item_ids is not None:
        stmt = stmt.where(override_t.c.item_id.in_(list(item_ids)))
    out: dict[int, dict[str, Override]] = {}
    for r in conn.execute(stmt.order_by(override_t.c.id)):
        out.setdefault(r.item_id, {})[r.guard] = Override(r.item_id, r.guard, r.adjudicator, r.reason, r.created_at)
    return out


def add_override(store, item_id: int, guard: str, adjudicator: str, reason: str) -> Override:
    """Record that ``adjudicator`` releases the item despite ``guard``, because ``reason``.

    Refused without a written reason, and when ``adjudicator`` is a known person
    whose role is not adjudicator.
    """
    from reviewer.guards.registry import GUARD_NAMES

    reason = (reason or "").strip()
    if guard not in GUARD_NAMES:
        raise ReviewerError(f"unknown guard {guard!r}; one of {', '.join(GUARD_NAMES)}")
    if len(reason) < 5:
        raise ReviewerError("an override needs a written reason (at least a few words)")
    if not (adjudicator or "").strip():
        raise ReviewerError("an override names its adjudicator")
    with store.engine.begin() as conn:
        if conn.execute(select(item_t.c.id).where(item_t.c.id == item_id)).first() is None:
            raise NotFound(f"no item with id {item_id}")
        role = conn.execute(select(person_t.c.role).where(person_t.c.name == adjudicator)).scalar()
        if role is not None and role != "adjudicator":
            raise ReviewerError(f"{adjudicator} is an {role}; only an adjudicator can override a guard")
        now = utcnow()
        conn.execute(delete(override_t).where(and_(override_t.c.item_id == item_id, override_t.c.guard == guard)))
        conn.execute(override_t.insert().values(item_id=item_id, guard=guard, adjudicator=adjudicator,
                                                reason=reason, created_at=now))
        audit.record(conn, adjudicator, "item", item_id, "guard_override", after={"guard": guard, "reason": reason})
    return Override(item_id, guard, adjudicator, reason, now)


def remove_override(store, item_id: int, guard: str, actor: str) -> bool:
    with store.engine.begin() as conn:
        removed = conn.execute(delete(override_t).where(
            and_(override_t.c.item_id == item_id, override_t.c.guard == guard))).rowcount
        if removed:
            audit.record(conn, actor, "item", item_id, "guard_override_removed", before={"guard": guard})
    return bool(removed)
