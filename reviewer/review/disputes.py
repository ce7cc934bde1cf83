"""Every item whose two annotators' first submissions differ, in the order an adjudicator
reads them: verdict disagreements first, then rubric disagreements (most fields first), then
items whose only difference is the content of their fixes (with the JSON paths that differ).

The words come from reviewer.review.protocol.differences, the protocol's one definition of
what differs. Reports and the agreement dock use this (they see everything, like exports).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from reviewer.review.patch import make_patch, touched_paths
from reviewer.review.protocol import differences, draft_of
from reviewer.store.models import Annotation, Dataset, Item

KINDS = ("verdict", "rubric", "fix content")  # the order the list follows


@dataclass(frozen=True)
class Dispute:
    """One item whose first submissions differ."""

    item_id: int
    dataset: str
    record_id: str
    kind: str  # the most serious difference: one of KINDS
    annotators: tuple[str, str]
    verdicts: tuple[str | None, str | None]
    reasons: list[str]  # differences() in words
    fix_paths: list[str]  # JSON Pointers where the two fixes' gold differ (both Fix only)

    @property
    def key(self) -> str:
        """The agreement report's item id ("dataset/record")."""
        return f"{self.dataset}/{self.record_id}"


def fix_paths(a, b) -> list[str]:
    """Where two corrected golds differ, as JSON Pointers ("" is the whole value)."""
    if a == b:
        return []
    return sorted(touched_paths(make_patch(a, b))) or [""]


def disputes(store, dataset_ids: list[int]) -> list[Dispute]:
    """The disputes of these datasets (see the module docstring); the first two first
    submissions of each item are compared, as the state machine compares them."""
    ann, item, ds = Annotation.__table__, Item.__table__, Dataset.__table__
    stmt = (
        select(ann.c.item_id, ann.c.annotator, ann.c.first_submission, item.c.record_id, ds.c.name.label("dataset"))
        .join(item, item.c.id == ann.c.item_id).join(ds, ds.c.id == item.c.dataset_id)
        .where(item.c.dataset_id.in_(dataset_ids), ann.c.first_key.is_not(None))
        .order_by(item.c.dataset_id, item.c.position, ann.c.id)
    )
    by_item: dict[int, list] = {}
    with store.engine.connect() as conn:
        for r in conn.execute(stmt):
            by_item.setdefault(r.item_id, []).append(r)
    out: list[tuple[tuple, Dispute]] = []
    for n, (item_id, rows) in enumerate(by_item.items()):
        if len(rows) < 2:
            continue
        ra, rb = rows[:2]
        a, b = draft_of(ra.first_submission), draft_of(rb.first_submission)
        reasons = differences(a, b)
        if not reasons:
            continue
        paths = fix_paths(a.fixed_gold, b.fixed_gold) if a.verdict == b.verdict == "fix" else []
        if a.verdict != b.verdict:
            kind = "verdict"
        elif paths and len(reasons) == 1:
            kind = "fix content"
        else:
            kind = "rubric"
        rubric_fields = sum(1 for r in reasons if not r.startswith(("verdict ", "the two fixes")))
        d = Dispute(item_id, ra.dataset, ra.record_id, kind, (ra.annotator, rb.annotator), (a.verdict, b.verdict),
                    reasons, paths)
        out.append(((KINDS.index(kind), -rubric_fields, n), d))
    return [d for _key, d in sorted(out, key=lambda x: x[0])]
