"""Assigning items to annotators: each item gets exactly k of them, loads balanced, seeded.

``plan`` is the pure rule: items are visited in a seeded shuffled order and each goes
to the k least-loaded annotators not excluded from it (ties broken by a seeded
order), so without exclusions the loads differ by at most one and the same seed
gives the same assignment. ``assign`` stores a plan (admins; in team mode the
database refuses anyone else), ``reassign`` moves an annotator's unreviewed items
to others, ``queue`` and ``progress`` are the per-annotator views.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from sqlalchemy import func, select

from reviewer.errors import ReviewerError
from reviewer.store import audit
from reviewer.store.models import Annotation, Assignment, AuditEntry, Item, utcnow

item_t, ann_t, asg_t, audit_t = Item.__table__, Annotation.__table__, Assignment.__table__, AuditEntry.__table__


def plan(item_ids: Iterable[int], annotators: list[str], k: int = 2, seed: int = 0,
         exclusions: Mapping[str, Iterable[int]] | None = None,
         loads: Mapping[str, int] | None = None) -> dict[int, list[str]]:
    """item id -> the k annotators it goes to. ``exclusions``: annotator -> items they must not get."""
    pool = sorted(set(annotators))
    if k < 1 or len(pool) < k:
        raise ReviewerError(f"{k} annotators per item needs at least {k} annotators in the pool, not {len(pool)}")
    excluded = {a: set(ids) for a, ids in (exclusions or {}).items()}
    rng = random.Random(seed)
    order = list(item_ids)
    rng.shuffle(order)
    load = {a: (loads or {}).get(a, 0) for a in pool}
    out: dict[int, list[str]] = {}
    for item_id in order:
        tie = {a: rng.random() for a in pool}
        free = [a for a in pool if item_id not in excluded.get(a, ())]
        if len(free) < k:
            raise ReviewerError(f"item {item_id}: only {len(free)} annotators are not excluded, {k} needed")
        chosen = sorted(free, key=lambda a: (load[a], tie[a]))[:k]
        for a in chosen:
            load[a] += 1
        out[item_id] = sorted(chosen)
    return out


def assign(review, dataset_id: int, annotators: list[str], k: int = 2, seed: int = 0,
           exclusions: Mapping[str, Iterable[int]] | None = None) -> dict[int, list[str]]:
    """Replace the dataset's assignment by a fresh plan (admins and adjudicators)."""
    _require(review)
    with review.store.engine.begin() as conn:
        ids = list(conn.execute(select(item_t.c.id).where(item_t.c.dataset_id == dataset_id)
                                .order_by(item_t.c.position)).scalars())
        chosen = plan(ids, annotators, k, seed, exclusions)
        conn.execute(asg_t.delete().where(asg_t.c.dataset_id == dataset_id))
        rows = [{"dataset_id": dataset_id, "item_id": i, "annotator": a, "created_at": utcnow()}
                for i, names in chosen.items() for a in names]
        if rows:
            conn.execute(asg_t.insert(), rows)
        audit.record(conn, review.viewer, "dataset", dataset_id, "assign",
                     after={"annotators": sorted(set(annotators)), "k": k, "seed": seed, "items": len(ids)})
    return chosen


def reassign(review, dataset_id: int, annotator: str, to: list[str], seed: int = 0) -> int:
    """Move ``annotator``'s assigned items they have not submitted to annotators in ``to``
    (never to someone already assigned the item), balancing by current load; return how many moved."""
    _require(review)
    with review.store.engine.begin() as conn:
        submitted = select(ann_t.c.item_id).where(ann_t.c.annotator == annotator, ann_t.c.verdict.is_not(None))
        moving = list(conn.execute(select(asg_t.c.item_id).where(
            asg_t.c.dataset_id == dataset_id, asg_t.c.annotator == annotator, asg_t.c.item_id.not_in(submitted))
            .order_by(asg_t.c.item_id)).scalars())
        holders: dict[int, set[str]] = {}
        for item_id, who in conn.execute(select(asg_t.c.item_id, asg_t.c.annotator)
                                         .where(asg_t.c.item_id.in_(moving))):
            holders.setdefault(item_id, set()).add(who)
        loads = dict(conn.execute(select(asg_t.c.annotator, func.count()).where(asg_t.c.dataset_id == dataset_id)
                                  .group_by(asg_t.c.annotator)).all())
        exclusions = {a: [i for i in moving if a in holders.get(i, ())] for a in to}
        chosen = plan(moving, to, 1, seed, exclusions, loads)
        conn.execute(asg_t.delete().where(asg_t.c.annotator == annotator, asg_t.c.item_id.in_(moving)))
        if chosen:
            conn.execute(asg_t.insert(), [{"dataset_id": dataset_id, "item_id": i, "annotator": names[0],
                                           "created_at": utcnow()} for i, names in chosen.items()])
        audit.record(conn, review.viewer, "dataset", dataset_id, "reassign",
                     after={"from": annotator, "to": sorted(to), "items": len(moving)})
    return len(moving)


def queue(review, dataset_id: int) -> list[int]:
    """The viewer's assigned items they have not submitted yet, in dataset order."""
    submitted = select(ann_t.c.item_id).where(ann_t.c.annotator == review.viewer, ann_t.c.verdict.is_not(None))
    with review.store.engine.connect() as conn:
        return list(conn.execute(
            select(item_t.c.id).join(asg_t, asg_t.c.item_id == item_t.c.id)
            .where(asg_t.c.dataset_id == dataset_id, asg_t.c.annotator == review.viewer,
                   item_t.c.id.not_in(submitted)).order_by(item_t.c.position)).scalars())


@dataclass(frozen=True)
class AnnotatorProgress:
    annotator: str
    done: int
    assigned: int
    median_seconds: float | None  # between consecutive submissions


def progress(review, dataset_id: int) -> list[AnnotatorProgress]:
    """Done / assigned and median seconds per item, per annotator (as the viewer may see it)."""
    with review.store.engine.connect() as conn:
        assigned = dict(conn.execute(select(asg_t.c.annotator, func.count()).where(asg_t.c.dataset_id == dataset_id)
                                     .group_by(asg_t.c.annotator)).all())
        done = dict(conn.execute(
            select(ann_t.c.annotator, func.count()).join(asg_t, (asg_t.c.item_id == ann_t.c.item_id)
                                                        & (asg_t.c.annotator == ann_t.c.annotator))
            .where(asg_t.c.dataset_id == dataset_id, ann_t.c.first_key.is_not(None))
            .group_by(ann_t.c.annotator)).all())
        times: dict[str, list] = {}
        for who, at in conn.execute(select(audit_t.c.actor, audit_t.c.at).where(
                audit_t.c.entity == "annotation", audit_t.c.action == "submit").order_by(audit_t.c.at)):
            times.setdefault(who, []).append(at)
    out = []
    for who in sorted(assigned):
        ts = times.get(who, [])
        gaps = [(b - a).total_seconds() for a, b in zip(ts, ts[1:], strict=False)]
        out.append(AnnotatorProgress(who, done.get(who, 0), assigned[who], statistics.median(gaps) if gaps else None))
    return out


def _require(review) -> None:
    if not review.team and review.role not in ("adjudicator", "admin"):
        raise ReviewerError(f"only admins assign items; {review.viewer} is an {review.role}")
