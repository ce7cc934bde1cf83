"""The panel's background computation: store annotations -> ``Report`` + its SVG charts.

Runs on a JobRunner worker (never the GUI thread): reading the annotations,
``build_report`` and rendering the charts all take time on large reviews.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from reviewer.agreement.html_report import charts
from reviewer.agreement.report import Report, build_report
from reviewer.errors import NotFound
from reviewer.jobs import JobContext
from reviewer.review.disputes import disputes
from reviewer.review.ratings import ratings_for
from reviewer_ui.agreement.sections import panel_texts


@dataclass
class AgreementResult:
    """What the panel shows. ``report`` is None when the scope has no annotations yet.

    ``charts`` are the core's SVGs keyed like ``html_report.charts``;
    ``item_ids`` maps the report's item ids ("dataset/record") of the
    representative disagreements to store item ids, for navigation.
    """

    scope: str  # "sample-extraction" or "all datasets (3)"
    dataset_ids: list[int]
    report: Report | None
    charts: dict[str, list[str]] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)  # sections.panel_texts
    item_ids: dict[str, int] = field(default_factory=dict)
    # Every item whose first submissions differ: verdict, then rubric, then fix content
    # (reviewer.review.disputes): the Disagreements tab lists these.
    disputes: list = field(default_factory=list)


def compute_agreement(
    ctx: JobContext, store, dataset_ids: list[int] | None, bootstrap: int = 1000, seed: int = 0
) -> AgreementResult:
    """The report over ``dataset_ids`` (None: every dataset in the store)."""
    datasets = store.datasets()
    if dataset_ids is not None:
        wanted = set(dataset_ids)
        datasets = [d for d in datasets if d.id in wanted]
    ids = [d.id for d in datasets]
    scope = datasets[0].name if dataset_ids is not None and len(datasets) == 1 else f"all datasets ({len(ids)})"
    ctx.progress(0, None, "agreement: reading annotations")
    ratings, perspectives = ratings_for(store, ids) if ids else ([], {})
    ctx.check_cancelled()
    if not ratings:
        return AgreementResult(scope, ids, None)
    report = build_report(ratings, bootstrap=bootstrap, seed=seed, ctx=ctx, perspectives=perspectives or None)
    ctx.check_cancelled()
    item_ids = _store_ids(store, report, [d.name for d in datasets])
    ctx.progress(0, None, "agreement: comparing the submissions")
    found = disputes(store, ids)
    item_ids.update({d.key: d.item_id for d in found})
    return AgreementResult(scope, ids, report, charts(report), panel_texts(report), item_ids, found)


def _store_ids(store, report: Report, dataset_names: list[str]) -> dict[str, int]:
    """Store ids of the disagreement items; "dataset/record" is split at the dataset name,
    since record ids (and dataset names) may themselves contain "/"."""
    out = {}
    by_length = sorted(dataset_names, key=len, reverse=True)
    for d in report.disagreements:
        name = next((n for n in by_length if d.item_id.startswith(n + "/")), None)
        if name is None:
            continue
        try:
            out[d.item_id] = store.find_item(name, d.item_id[len(name) + 1:]).id
        except NotFound:  # deleted since the ratings were read
            continue
    return out
