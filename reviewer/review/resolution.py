"""Settling items, as functions of (store, adjudicator): thin wrappers over reviewer.review.core.Review.

Automatic settlement (unanimous) happens at the second first submission
(reviewer.review.core.settle_after_submission); an adjudicator settles disputed items."""

from __future__ import annotations

from reviewer.review.core import Review, disagreement_score
from reviewer.review.protocol import differences
from reviewer.review.views import AdjudicationView, QueueEntry

__all__ = ["adjudicate", "differences", "disagreement_score", "queue"]


def queue(store, dataset_id: int, viewer: str | None = None) -> list[QueueEntry]:
    """The disputed items of a dataset, as ``viewer`` (an adjudicator) sees them; without a
    viewer, as reports see them (everything outside team mode)."""
    review = Review(store, viewer) if viewer else Review.for_reports(store)
    return review.queue(dataset_id)


def adjudicate(store, item_id: int, adjudicator: str, verdict: str, final_gold, rationale: str,
               rubric: dict | None = None, expected_version: int | None = None,
               item_version: int | None = None, annotation_versions: dict[str, int] | None = None,
               ) -> AdjudicationView:
    return Review(store, adjudicator).adjudicate(item_id, verdict, final_gold, rationale, rubric, expected_version,
                                                 item_version, annotation_versions)
