"""Dual-annotator review: annotate (blind), settle (unanimous or adjudicated), release Gold.

The public seam for the UI and the CLI: ``Review`` (one person's view of and hand on the
protocol) and the plain values it hands out. Nothing else is needed to drive a review.
"""

from reviewer.review.core import ItemState, NotPermitted, ProtocolViolation, Review
from reviewer.review.protocol import (
    ANNOTATOR_STATUS, AgreementRule, Stage, annotator_status, differences, may_adjudicate, sees_everything,
)
from reviewer.review.rubric import (
    AMBIGUITY, CHECK_LABELS, DIFFICULTY, MANY_FIX_OPERATIONS, VERDICTS, Draft, Problem, checks_for,
    error_tags_for, problems,
)
from reviewer.review.views import AdjudicationView, AnnotationView, Progress, QueueEntry, ReviewedGold, ReviewSnapshot, Saved

__all__ = [
    "AMBIGUITY", "ANNOTATOR_STATUS", "AdjudicationView", "AgreementRule", "AnnotationView", "CHECK_LABELS",
    "DIFFICULTY", "Draft", "ItemState", "MANY_FIX_OPERATIONS", "NotPermitted", "Problem", "Progress",
    "ProtocolViolation", "QueueEntry", "Review", "ReviewSnapshot", "ReviewedGold", "Saved", "Stage", "VERDICTS", "annotator_status",
    "checks_for", "differences", "error_tags_for", "may_adjudicate", "problems", "sees_everything",
]
