"""What the review functions hand out: plain dataclasses."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from reviewer.review.rubric import Draft


@dataclass(frozen=True)
class AnnotationView:
    id: int
    item_id: int
    annotator: str
    draft: Draft
    patch: list | None
    version: int
    updated_at: datetime


@dataclass(frozen=True)
class AdjudicationView:
    item_id: int
    adjudicator: str | None
    verdict: str
    final_gold: Any
    rubric: dict | None
    rationale: str | None
    resolution: str  # auto | manual
    version: int
    updated_at: datetime


@dataclass(frozen=True)
class ReviewSnapshot:
    """One item's review as ``viewer`` may see it (reviewer.review.core.Review.snapshot).

    For an annotator ``others`` is always empty and ``adjudication`` None (blindness holds
    before and after both submitted); ``status`` is one of the annotator status phrases.
    Adjudicators get every annotation, the first submissions and the adjudication.
    """

    item_id: int
    stage: Any  # reviewer.review.protocol.Stage
    mine: AnnotationView | None
    others: list[AnnotationView] = field(default_factory=list)
    adjudication: AdjudicationView | None = None
    status: str = ""
    item_version: int = 0
    first_submissions: dict[str, Draft] = field(default_factory=dict)  # adjudicators only


@dataclass(frozen=True)
class ReviewedGold:
    """The gold the annotators reviewed (reviewer.review.core.Review.reviewed_gold): what a Fix's
    patch was made against, which the current gold is not once the item was settled or its gold
    was edited after they saved.

    ``seen``: annotator -> the gold as it was at that annotator's latest save. ``gold``: the one
    the latest of those saves saw (the base of the adjudication's three-way view); when the
    annotators saw different golds (an edit between their saves), ``differs`` is true."""

    gold: Any
    seen: dict[str, Any] = field(default_factory=dict)

    @property
    def differs(self) -> bool:
        return any(g != self.gold for g in self.seen.values())

    def of(self, annotator: str) -> Any:
        return self.seen.get(annotator, self.gold)


@dataclass(frozen=True)
class QueueEntry:
    item_id: int
    record_id: str
    score: float  # how much the annotators disagree; higher first
    reasons: list[str]
    verdict_differs: bool = True


@dataclass(frozen=True)
class Progress:
    items: int
    mine: int  # items the viewer annotated
    annotated_twice: int
    disagreements: int  # annotated twice, not settled
    settled: int
    auto_resolved: int


@dataclass(frozen=True)
class Saved:
    """What one save hands back (reviewer.review.core.Review.save): the stored annotation, the
    item's review as the viewer now sees it, the viewer's progress, and, when asked for, the
    next item of the viewer's queue (``next_item``; None when the queue is empty)."""

    view: AnnotationView
    snapshot: ReviewSnapshot
    progress: Progress | None
    next_item: int | None = None
    advanced: bool = False  # whether the next item was asked for
