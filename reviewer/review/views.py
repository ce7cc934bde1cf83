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
    """One item's review as ``viewer`` may see it.

    ``others`` is empty while blindness applies (the item has not reached
    adjudication and the viewer is not an adjudicator); ``hidden_others`` then
    says how many annotations exist without revealing them.
    """

    item_id: int
    stage: str  # open | disagreement | settled
    mine: AnnotationView | None
    others: list[AnnotationView] = field(default_factory=list)
    hidden_others: int = 0
    adjudication: AdjudicationView | None = None


@dataclass(frozen=True)
class QueueEntry:
    item_id: int
    record_id: str
    score: float  # how much the annotators disagree; higher first
    reasons: list[str]


@dataclass(frozen=True)
class Progress:
    items: int
    mine: int  # items the viewer annotated
    annotated_twice: int
    disagreements: int  # annotated twice, not settled
    settled: int
    auto_resolved: int
