"""Annotating: saving one annotator's review of one item, blind by default.

Contracts:
- Every save is its own transaction, with its audit entry, committed before
  the function returns: a crash afterwards loses nothing.
- Optimistic concurrency: a save states the version it was based on (None for
  a first annotation); if the stored annotation moved on, StaleWrite is raised
  and nothing is written.
- Writes on one item are serialised (the item row is locked first), so two
  annotators finishing the same item at once still trigger auto-resolution.
- Blindness: an annotator sees only their own annotation until the item
  reaches adjudication (two annotations that disagree) or is settled.
"""

from __future__ import annotations

from sqlalchemy import and_, func, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from reviewer.errors import NotFound, ReviewerError, StaleWrite
from reviewer.review import resolution
from reviewer.review.patch import make_patch
from reviewer.review.rubric import Draft, problems
from reviewer.review.views import AnnotationView, Progress, ReviewSnapshot
from reviewer.store import audit
from reviewer.store.models import Adjudication, Annotation, Item, Person, utcnow

item_t, ann_t, adj_t, person_t = Item.__table__, Annotation.__table__, Adjudication.__table__, Person.__table__


class ProtocolViolation(ReviewerError):
    """A verdict the protocol forbids (High ambiguity passed, a fix that changes nothing...)."""


def lock_item(conn: Connection, item_id: int):
    """Take the item's write lock (row lock on PostgreSQL, the write lock on SQLite)
    and return its kind, gold and version."""
    conn.execute(item_t.update().where(item_t.c.id == item_id).values(version=item_t.c.version))
    row = conn.execute(
        select(item_t.c.kind, item_t.c.gold, item_t.c.original_gold, item_t.c.version, item_t.c.dataset_id)
        .where(item_t.c.id == item_id)
    ).first()
    if row is None:
        raise NotFound(f"no item with id {item_id}")
    return row


def to_view(row) -> AnnotationView:
    draft = Draft.from_stored(row.verdict, row.rubric, row.error_tags, row.note, row.fixed_gold)
    return AnnotationView(row.id, row.item_id, row.annotator, draft, row.patch, row.version, row.updated_at)


def save_annotation(
    store, item_id: int, annotator: str, draft: Draft, expected_version: int | None, auto_resolve: bool = True
) -> AnnotationView:
    """Save ``draft`` as ``annotator``'s annotation of the item; return it as stored.

    Raises ProtocolViolation for drafts the protocol forbids (see rubric.problems;
    warnings do not block) and StaleWrite when ``expected_version`` is out of date.
    """
    with store.engine.begin() as conn:
        item = lock_item(conn, item_id)
        patch = make_patch(item.gold, draft.fixed_gold) if draft.verdict == "fix" and draft.fixed_gold is not None else None
        errors = [p for p in problems(draft, item.kind, len(patch or [])) if p.level == "error"]
        if errors:
            raise ProtocolViolation("; ".join(p.message for p in errors))
        existing = conn.execute(
            select(ann_t).where(ann_t.c.item_id == item_id, ann_t.c.annotator == annotator)
        ).first()
        values = dict(
            verdict=draft.verdict, rubric=draft.rubric(), error_tags=list(draft.error_tags), note=draft.note,
            patch=patch, fixed_gold=draft.fixed_gold if draft.verdict == "fix" else None, updated_at=utcnow(),
        )
        if existing is None:
            if expected_version is not None:
                raise StaleWrite(f"{annotator}'s annotation of item {item_id}", expected_version, 0)
            _ensure_person(conn, annotator, "annotator")
            try:
                conn.execute(ann_t.insert().values(item_id=item_id, annotator=annotator, version=1,
                                                   created_at=utcnow(), **values))
            except IntegrityError:
                raise StaleWrite(f"{annotator}'s annotation of item {item_id}", 0, 1) from None
            before = None
        else:
            if expected_version != existing.version:
                raise StaleWrite(f"{annotator}'s annotation of item {item_id}", expected_version or 0, existing.version)
            conn.execute(
                ann_t.update().where(ann_t.c.id == existing.id).values(version=existing.version + 1, **values)
            )
            before = _audit_form(existing._mapping)
        row = conn.execute(select(ann_t).where(ann_t.c.item_id == item_id, ann_t.c.annotator == annotator)).one()
        audit.record(conn, annotator, "annotation", row.id, "annotate", before=before, after=_audit_form(row._mapping))
        resolution.refresh_auto(conn, item_id, item, enabled=auto_resolve)
        return to_view(row)


def _audit_form(m) -> dict:
    return {k: m[k] for k in ("item_id", "annotator", "verdict", "rubric", "error_tags", "note", "patch",
                              "fixed_gold", "version")}


def _ensure_person(conn: Connection, name: str, role: str) -> None:
    if conn.execute(select(person_t.c.name).where(person_t.c.name == name)).first() is None:
        conn.execute(person_t.insert().values(name=name, role=role))


def set_role(store, name: str, role: str) -> None:
    """Register ``name`` as an annotator or an adjudicator."""
    if role not in ("annotator", "adjudicator"):
        raise ReviewerError(f"unknown role {role!r}: annotator or adjudicator")
    with store.engine.begin() as conn:
        if conn.execute(person_t.update().where(person_t.c.name == name).values(role=role)).rowcount == 0:
            conn.execute(person_t.insert().values(name=name, role=role))


def role_of(store, name: str) -> str:
    with store.engine.connect() as conn:
        return conn.execute(select(person_t.c.role).where(person_t.c.name == name)).scalar() or "annotator"


def snapshot(store, item_id: int, viewer: str) -> ReviewSnapshot:
    """The item's review as ``viewer`` may see it (see the module's blindness rule)."""
    with store.engine.connect() as conn:
        anns = [to_view(r) for r in conn.execute(
            select(ann_t).where(ann_t.c.item_id == item_id).order_by(ann_t.c.annotator))]
        adj = resolution.adjudication_of(conn, item_id)
        is_adjudicator = conn.execute(
            select(person_t.c.role).where(person_t.c.name == viewer)).scalar() == "adjudicator"
    mine = next((a for a in anns if a.annotator == viewer), None)
    others = [a for a in anns if a.annotator != viewer]
    if adj is not None:
        stage = "settled"
    elif len([a for a in anns if a.draft.verdict]) >= 2:
        stage = "disagreement"
    else:
        stage = "open"
    if stage == "open" and not is_adjudicator:
        return ReviewSnapshot(item_id, stage, mine, [], len(others), None)
    return ReviewSnapshot(item_id, stage, mine, others, 0, adj)


def next_for(store, dataset_id: int, annotator: str, after_position: int = -1) -> int | None:
    """The next item (by position, wrapping around) that ``annotator`` has not annotated
    and that still needs an annotation (fewer than two, not settled); None when done."""
    mine = select(ann_t.c.item_id).where(ann_t.c.annotator == annotator)
    counts = select(ann_t.c.item_id, func.count().label("n")).group_by(ann_t.c.item_id).subquery()
    stmt = (
        select(item_t.c.id, item_t.c.position)
        .outerjoin(counts, counts.c.item_id == item_t.c.id)
        .outerjoin(adj_t, adj_t.c.item_id == item_t.c.id)
        .where(
            item_t.c.dataset_id == dataset_id,
            item_t.c.id.not_in(mine),
            func.coalesce(counts.c.n, 0) < 2,
            adj_t.c.id.is_(None),
        )
        .order_by(item_t.c.position)
    )
    with store.engine.connect() as conn:
        later = conn.execute(stmt.where(item_t.c.position > after_position).limit(1)).first()
        if later is None:
            later = conn.execute(stmt.limit(1)).first()
    return later.id if later else None


def progress(store, dataset_id: int, viewer: str) -> Progress:
    counts = (
        select(ann_t.c.item_id, func.count().label("n"))
        .join(item_t, item_t.c.id == ann_t.c.item_id)
        .where(item_t.c.dataset_id == dataset_id, ann_t.c.verdict.is_not(None))
        .group_by(ann_t.c.item_id)
        .subquery()
    )
    with store.engine.connect() as conn:
        items = conn.execute(select(func.count()).select_from(item_t).where(item_t.c.dataset_id == dataset_id)).scalar_one()
        mine = conn.execute(
            select(func.count()).select_from(ann_t.join(item_t, item_t.c.id == ann_t.c.item_id))
            .where(item_t.c.dataset_id == dataset_id, ann_t.c.annotator == viewer)
        ).scalar_one()
        twice = conn.execute(select(func.count()).select_from(counts).where(counts.c.n >= 2)).scalar_one()
        settled_rows = conn.execute(
            select(adj_t.c.resolution, func.count())
            .join(item_t, item_t.c.id == adj_t.c.item_id)
            .where(item_t.c.dataset_id == dataset_id)
            .group_by(adj_t.c.resolution)
        ).all()
        unsettled_twice = conn.execute(
            select(func.count()).select_from(
                counts.outerjoin(adj_t, and_(adj_t.c.item_id == counts.c.item_id))
            ).where(counts.c.n >= 2, adj_t.c.id.is_(None))
        ).scalar_one()
    by = dict(settled_rows)
    return Progress(items, mine, twice, unsettled_twice, sum(by.values()), by.get("auto", 0))
