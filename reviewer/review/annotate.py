"""Annotating, as functions of (store, viewer): thin wrappers over reviewer.review.core.Review.

Kept for scripts and older callers; the rules live in the Review object (one home)."""

from __future__ import annotations

from reviewer.review.core import NotPermitted, ProtocolViolation, Review, set_local_role, to_view
from reviewer.review.rubric import Draft
from reviewer.review.views import AnnotationView, Progress, ReviewSnapshot

__all__ = ["NotPermitted", "ProtocolViolation", "next_for", "progress", "role_of", "save_annotation", "set_role",
           "snapshot", "to_view"]


def save_annotation(store, item_id: int, annotator: str, draft: Draft, expected_version: int | None,
                    item_version: int | None = None) -> AnnotationView:
    return Review(store, annotator).annotate(item_id, draft, expected_version, item_version)


def set_role(store, name: str, role: str) -> None:
    set_local_role(store, name, role)


def role_of(store, name: str) -> str:
    return Review(store, name).role


def snapshot(store, item_id: int, viewer: str) -> ReviewSnapshot:
    return Review(store, viewer).snapshot(item_id)


def next_for(store, dataset_id: int, annotator: str, after_position: int = -1) -> int | None:
    return Review(store, annotator).next_item(dataset_id, after_position)


def progress(store, dataset_id: int, viewer: str) -> Progress:
    return Review(store, viewer).progress(dataset_id)
