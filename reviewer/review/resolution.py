"""Settling items: automatic resolution of agreements, the adjudication queue,
and the adjudicator's decision.

An item is settled by exactly one Adjudication row. ``auto`` ones are made
(and unmade) by annotation saves when both annotators agree on the verdict,
the rubric and the content of their fixes; ``manual`` ones by an adjudicator
and never touched by later annotation edits. Settling with a final gold that
differs from the item's gold updates the gold (versioned, audited) in the same
transaction.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.engine import Connection

from reviewer.errors import ReviewerError, StaleWrite
from reviewer.review.patch import touched_paths
from reviewer.review.rubric import AMBIGUITY, VERDICTS, Draft
from reviewer.review.views import AdjudicationView, AnnotationView, QueueEntry
from reviewer.store import audit
from reviewer.store.models import Adjudication, Annotation, AuditEntry, Item, utcnow

item_t, ann_t, adj_t = Item.__table__, Annotation.__table__, Adjudication.__table__


def adjudication_of(conn: Connection, item_id: int) -> AdjudicationView | None:
    r = conn.execute(select(adj_t).where(adj_t.c.item_id == item_id)).first()
    if r is None:
        return None
    return AdjudicationView(r.item_id, r.adjudicator, r.verdict, r.final_gold, r.rubric, r.rationale,
                            r.resolution, r.version, r.updated_at)


def differences(a: Draft, b: Draft) -> list[str]:
    """Where two annotations of one item disagree, in words (empty: they agree)."""
    out = []
    if a.verdict != b.verdict:
        out.append(f"verdict {a.verdict} vs {b.verdict}")
    for check in sorted(set(a.checks) | set(b.checks)):
        if a.checks.get(check) != b.checks.get(check):
            out.append(f"{check} {a.checks.get(check)} vs {b.checks.get(check)}")
    if a.ambiguity != b.ambiguity:
        out.append(f"ambiguity {a.ambiguity} vs {b.ambiguity}")
    if a.difficulty != b.difficulty:
        out.append(f"difficulty {a.difficulty} vs {b.difficulty}")
    if a.verdict == b.verdict == "fix" and a.fixed_gold != b.fixed_gold:
        out.append("the two fixes give different gold")
    return out


def disagreement_score(a: AnnotationView, b: AnnotationView) -> float:
    """How far apart two annotations are: the verdict weighs most, then the fixes'
    content, then each rubric field (ambiguity by ordinal distance), then error tags."""
    da, db = a.draft, b.draft
    score = 4.0 if da.verdict != db.verdict else 0.0
    checks = set(da.checks) | set(db.checks)
    score += sum(da.checks.get(c) != db.checks.get(c) for c in checks)
    if da.ambiguity in AMBIGUITY and db.ambiguity in AMBIGUITY:
        score += abs(AMBIGUITY.index(da.ambiguity) - AMBIGUITY.index(db.ambiguity))
    elif da.ambiguity != db.ambiguity:
        score += 1
    score += da.difficulty != db.difficulty
    if da.verdict == db.verdict == "fix" and da.fixed_gold != db.fixed_gold:
        pa, pb = touched_paths(a.patch), touched_paths(b.patch)
        score += 2 + len(pa ^ pb) / max(1, len(pa | pb))
    ta, tb = set(da.error_tags), set(db.error_tags)
    if ta | tb:
        score += len(ta ^ tb) / len(ta | tb)
    return score


def _annotations(conn: Connection, item_id: int) -> list[AnnotationView]:
    from reviewer.review.annotate import to_view

    rows = conn.execute(
        select(ann_t).where(ann_t.c.item_id == item_id, ann_t.c.verdict.is_not(None)).order_by(ann_t.c.annotator)
    )
    return [to_view(r) for r in rows]


def _settled_rubric(a: Draft, b: Draft) -> dict:
    """Both annotators' rubric where they agree; the worse ambiguity where they do not."""
    rubric = a.rubric()
    if a.ambiguity != b.ambiguity and a.ambiguity in AMBIGUITY and b.ambiguity in AMBIGUITY:
        rubric["ambiguity"] = max(a.ambiguity, b.ambiguity, key=AMBIGUITY.index)
    return rubric


def refresh_auto(conn: Connection, item_id: int, item, enabled: bool = True) -> None:
    """Create, update or remove the automatic resolution after an annotation changed.

    Called inside the annotation's transaction with the item locked.
    """
    current = adjudication_of(conn, item_id)
    if current is not None and current.resolution == "manual":
        return
    anns = _annotations(conn, item_id)
    agree = enabled and len(anns) >= 2 and not differences(anns[0].draft, anns[1].draft)
    if not agree:
        if current is not None:
            conn.execute(adj_t.delete().where(adj_t.c.item_id == item_id))
            audit.record(conn, "auto", "adjudication", item_id, "unresolve",
                         before={"verdict": current.verdict}, after=None)
            _restore_gold_after_unresolve(conn, item_id, current)
        return
    a, b = anns[0].draft, anns[1].draft
    final_gold = a.fixed_gold if a.verdict == "fix" else item.gold
    values = dict(verdict=a.verdict, final_gold=final_gold, rubric=_settled_rubric(a, b), adjudicator=None,
                  rationale=f"both annotators ({anns[0].annotator}, {anns[1].annotator}) agreed",
                  resolution="auto", updated_at=utcnow())
    if current is None:
        conn.execute(adj_t.insert().values(item_id=item_id, version=1, created_at=utcnow(), **values))
    else:
        conn.execute(adj_t.update().where(adj_t.c.item_id == item_id).values(version=current.version + 1, **values))
    audit.record(conn, "auto", "adjudication", item_id, "auto_resolve", before=None,
                 after={"verdict": a.verdict, "final_gold": final_gold})
    _apply_gold(conn, item_id, final_gold, "auto", "both annotators agreed on this fix")


def _restore_gold_after_unresolve(conn: Connection, item_id: int, previous: AdjudicationView) -> None:
    """An auto-applied fix no longer agreed on: put the item's gold back as it was before."""
    if previous.verdict != "fix":
        return
    restored = _gold_before_auto(conn, item_id)
    if restored is None:  # the auto fix changed nothing, so there is nothing to undo
        return
    _apply_gold(conn, item_id, restored, "auto", "annotators no longer agree; automatic fix withdrawn")


def _gold_before_auto(conn: Connection, item_id: int):
    """The gold as it was before the latest automatic edit, from the audit log."""
    audit_t = AuditEntry.__table__
    row = conn.execute(
        select(audit_t.c.before)
        .where(audit_t.c.entity == "item", audit_t.c.entity_id == item_id, audit_t.c.action == "edit_gold",
               audit_t.c.actor == "auto")
        .order_by(audit_t.c.id.desc()).limit(1)
    ).first()
    return row.before["gold"] if row and row.before else None


def _apply_gold(conn: Connection, item_id: int, gold, actor: str, reason: str) -> None:
    row = conn.execute(
        select(item_t.c.gold, item_t.c.original_gold, item_t.c.version).where(item_t.c.id == item_id)
    ).one()
    if row.gold == gold:
        return
    conn.execute(item_t.update().where(item_t.c.id == item_id).values(
        gold=gold, gold_edited=gold != row.original_gold, version=row.version + 1))
    audit.record(conn, actor, "item", item_id, "edit_gold", before={"gold": row.gold, "version": row.version},
                 after={"gold": gold, "version": row.version + 1, "reason": reason})


def queue(store, dataset_id: int) -> list[QueueEntry]:
    """Items annotated twice whose annotations disagree and that nobody settled,
    most disagreement first."""
    from reviewer.review.annotate import to_view

    with store.engine.connect() as conn:
        rows = conn.execute(
            select(ann_t, item_t.c.record_id.label("record_id"), item_t.c.position.label("position"))
            .join(item_t, item_t.c.id == ann_t.c.item_id)
            .outerjoin(adj_t, adj_t.c.item_id == ann_t.c.item_id)
            .where(item_t.c.dataset_id == dataset_id, adj_t.c.id.is_(None), ann_t.c.verdict.is_not(None))
            .order_by(item_t.c.position, ann_t.c.annotator)
        ).all()
    by_item: dict[int, list] = {}
    for r in rows:
        by_item.setdefault(r.item_id, []).append(r)
    entries = []
    for item_id, anns in by_item.items():
        if len(anns) < 2:
            continue
        a, b = to_view(anns[0]), to_view(anns[1])
        entries.append(QueueEntry(item_id, anns[0].record_id, disagreement_score(a, b),
                                  differences(a.draft, b.draft) or ["auto-resolution is off"]))
    entries.sort(key=lambda e: -e.score)
    return entries


def adjudicate(
    store, item_id: int, adjudicator: str, verdict: str, final_gold, rationale: str,
    rubric: dict | None = None, expected_version: int | None = None,
) -> AdjudicationView:
    """Settle an item by hand. ``expected_version`` is the adjudication's version the
    adjudicator saw (None when there was none); a newer one raises StaleWrite."""
    from reviewer.review.annotate import lock_item

    if verdict not in VERDICTS:
        raise ReviewerError(f"unknown verdict {verdict!r}")
    if rubric and rubric.get("ambiguity") == "high" and verdict == "pass":
        raise ReviewerError("High ambiguity must be Fix or Reject")
    with store.engine.begin() as conn:
        item = lock_item(conn, item_id)
        current = adjudication_of(conn, item_id)
        seen = current.version if current else None
        if seen != expected_version:
            raise StaleWrite(f"the adjudication of item {item_id}", expected_version or 0, seen or 0)
        if verdict != "fix":
            final_gold = item.gold
        values = dict(verdict=verdict, final_gold=final_gold, rubric=rubric, adjudicator=adjudicator,
                      rationale=rationale, resolution="manual", updated_at=utcnow())
        if current is None:
            conn.execute(adj_t.insert().values(item_id=item_id, version=1, created_at=utcnow(), **values))
        else:
            conn.execute(adj_t.update().where(adj_t.c.item_id == item_id).values(version=current.version + 1,
                                                                                   **values))
        audit.record(conn, adjudicator, "adjudication", item_id, "adjudicate",
                     before=None if current is None else {"verdict": current.verdict, "final_gold": current.final_gold},
                     after={"verdict": verdict, "final_gold": final_gold, "rationale": rationale})
        _apply_gold(conn, item_id, final_gold, adjudicator, f"adjudicated: {rationale}")
        return adjudication_of(conn, item_id)
