"""The store's annotations as the agreement statistics' input (reviewer.agreement.Rating).

Strata per item: category (task type), difficulty (as the dataset tags it),
domain and dataset. For call chains, paper 004's two review perspectives
(the chain is consistent with the tools; the query meets the requirements)
become error/no-error tags so that its agreement p = (N_T + N_F) / N is
reported beside the other coefficients.
"""

from __future__ import annotations

from sqlalchemy import select

from reviewer.agreement.model import Rating
from reviewer.kinds import ItemKind
from reviewer.store.models import Annotation, Dataset, Item

item_t, ann_t, dataset_t = Item.__table__, Annotation.__table__, Dataset.__table__

PERSPECTIVE_TAGS = {
    "chain_matches_tools": ("call chain", "review:chain_inconsistent"),
    "query_meets_requirements": ("query", "review:query_inadequate"),
}


def ratings_for(store, dataset_ids: list[int], submissions: str = "first") -> tuple[list[Rating], dict[str, list[str]]]:
    """All submitted annotations of these datasets as Ratings, and the perspectives to report.

    ``submissions``: "first" (default) rates each annotator's first submitted version, the
    independent judgement the protocol records; "latest" rates the current version (after
    revisions). Drafts never submitted (no verdict) are left out either way.
    """
    if submissions not in ("first", "latest"):
        raise ValueError(f"submissions must be 'first' or 'latest', not {submissions!r}")
    stmt = (
        select(ann_t, item_t.c.record_id, item_t.c.kind, item_t.c.category, item_t.c.difficulty, item_t.c.domain,
               dataset_t.c.name.label("dataset"))
        .join(item_t, item_t.c.id == ann_t.c.item_id)
        .join(dataset_t, dataset_t.c.id == item_t.c.dataset_id)
        .where(item_t.c.dataset_id.in_(dataset_ids), ann_t.c.first_key.is_not(None))
        .order_by(item_t.c.dataset_id, item_t.c.position, ann_t.c.annotator)
    )
    ratings: list[Rating] = []
    perspectives: dict[str, list[str]] = {}
    item = None
    with store.engine.connect() as conn:
        for r in conn.execute(stmt):
            if submissions == "first":
                first = r.first_submission or {}
                verdict, rubric, tags = first.get("verdict"), dict(first.get("rubric") or {}), \
                    list(first.get("error_tags") or [])
                fix, patch = first.get("fixed_gold"), first.get("patch")
            else:
                verdict, rubric, tags = r.verdict, dict(r.rubric or {}), list(r.error_tags or [])
                fix, patch = r.fixed_gold, r.patch
            if r.kind == ItemKind.CALL_CHAIN:
                for check, (perspective, tag) in PERSPECTIVE_TAGS.items():
                    perspectives[perspective] = [tag]
                    if rubric.get(check) is False:
                        tags.append(tag)
            if (r.dataset, r.record_id) != item:
                # Rows come item by item: the ratings of one item share its id and strata objects,
                # so validate_ratings checks them once (and the report holds one copy, not one per rating).
                item = (r.dataset, r.record_id)
                item_id, strata = f"{r.dataset}/{r.record_id}", {"dataset": r.dataset}
                for key in ("category", "difficulty", "domain"):
                    value = getattr(r, key)
                    if value is not None:
                        strata[key] = str(value).lower() if key == "difficulty" else str(value)
            ratings.append(Rating(
                item_id=item_id, annotator=r.annotator, verdict=verdict, rubric=rubric,
                error_tags=tags, fix=fix, patch=patch, strata=strata,
            ))
    return ratings, perspectives
