"""The dock's background work as plain ``job(ctx, ...)`` functions (Qt-free).

Each function runs on a JobRunner worker thread: it reads and writes the store
through the core (reviewer.scoring, reviewer.rerun) and returns plain data
for the GUI thread to show. None of them touches a widget.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import func, select

from reviewer.jobs import JobContext
from reviewer.rerun.config import RunConfig
from reviewer.rerun.job import RerunReport, rerun
from reviewer.scoring import job as scoring
from reviewer.scoring.base import MODES
from reviewer.store.models import Dataset, Item, Output, Run, Score
from reviewer.store.queries import ItemQuery

item_t, output_t, run_t, score_t, dataset_t = (
    Item.__table__, Output.__table__, Run.__table__, Score.__table__, Dataset.__table__,
)
MAX_ERRORS_SHOWN = 50


@dataclass
class DatasetScores:
    """What the dock shows of a dataset: its runs and every stored aggregate."""

    runs: list  # reviewer.store.views.RunInfo
    scores: dict[tuple[int, str], scoring.RunScores] = field(default_factory=dict)  # (run id, mode) ->
    configs: dict[str, dict] = field(default_factory=dict)  # run name -> stored RunConfig of runs made by reruns


@dataclass
class RerunOutcome:
    report: RerunReport
    errors: list[tuple[str, str]]  # (record id, error) of the run's failed outputs, first ones
    error_count: int


class _Slice:
    """A view of a job context for one step of several: progress offset into the whole."""

    def __init__(self, ctx: JobContext, before: int, total: int, label: str):
        self.ctx, self.before, self.total, self.label = ctx, before, total, label

    def progress(self, done: int, total: int | None = None, message: str = "") -> None:
        self.ctx.progress(self.before + done, self.total, f"{self.label}: {message}" if message else self.label)

    def check_cancelled(self) -> None:
        self.ctx.check_cancelled()

    @property
    def cancelled(self) -> bool:
        return self.ctx.cancelled


def stored_run_scores(store, run_id: int, mode: str) -> scoring.RunScores | None:
    """The aggregate of a run's stored scores in ``mode`` (None when it has none)."""
    return scoring.summarise_stored(store, run_id, mode)


def load_dataset_scores(ctx: JobContext, store, dataset_id: int) -> DatasetScores:
    """The dataset's runs and the stored aggregates of every scored (run, mode)."""
    runs = store.runs(dataset_id)
    with store.engine.connect() as conn:
        configs = {r.name: r.config for r in conn.execute(
            select(run_t.c.name, run_t.c.config).where(run_t.c.dataset_id == dataset_id, run_t.c.format == "rerun"))
            if r.config}
    out = DatasetScores(runs, configs=configs)
    for n, run in enumerate(runs, 1):
        for mode in MODES:
            ctx.check_cancelled()
            found = stored_run_scores(store, run.id, mode)
            if found is not None:
                out.scores[(run.id, mode)] = found
        ctx.progress(n, len(runs), "reading stored scores")
    return out


def score_runs(ctx: JobContext, store, run_ids: list[int], modes: list[str]) -> list[scoring.RunScores]:
    """Score each run in each mode, one after the other; progress counts outputs over all of them."""
    with store.engine.connect() as conn:
        sizes = dict(conn.execute(
            select(output_t.c.run_id, func.count()).where(output_t.c.run_id.in_(run_ids)).group_by(output_t.c.run_id)
        ).all())
    total = sum(sizes.get(r, 0) for r in run_ids) * len(modes)
    before, results = 0, []
    for run_id in run_ids:
        for mode in modes:
            step = _Slice(ctx, before, total, f"scoring ({mode})")
            results.append(scoring.score_run(store, run_id, mode, step))
            before += sizes.get(run_id, 0)
    ctx.progress(total, total, "scored")
    return results


def item_ids(store, query: ItemQuery) -> list[int]:
    """The ids of the items ``query`` matches (its filters; order does not matter)."""
    with store.engine.connect() as conn:
        return list(conn.execute(query.where(select(item_t.c.id))).scalars())


def run_errors(store, run_id: int, limit: int = MAX_ERRORS_SHOWN) -> tuple[list[tuple[str, str]], int]:
    """The first ``limit`` failed outputs of a run as (record id, error), and how many failed."""
    stmt = (
        select(item_t.c.record_id, output_t.c.error)
        .join(item_t, item_t.c.id == output_t.c.item_id)
        .where(output_t.c.run_id == run_id, output_t.c.status != "ok")
        .order_by(item_t.c.position, output_t.c.replication)
    )
    with store.engine.connect() as conn:
        rows = conn.execute(stmt).all()
    return [(r.record_id, r.error or "(no message)") for r in rows[:limit]], len(rows)


SCOPES = ("all", "filter", "edited", "failed")  # which items a rerun sends


def rerun_run(
    ctx: JobContext, store, dataset_id: int, run_name: str, config: RunConfig, scope: str = "all",
    query: ItemQuery | None = None,
) -> RerunOutcome:
    """Make or continue a named run (see reviewer.rerun.job.rerun) and collect its errors.

    ``scope``: ``all`` items, the items ``query`` matches (``filter``), items whose
    gold was fixed (``edited``), or only the run's failed outputs (``failed``).
    """
    if scope not in SCOPES:
        raise ValueError(f"scope {scope!r} is not one of {SCOPES}")
    ids = None
    if scope == "filter" and query is not None:
        ids = item_ids(store, query)
    elif scope == "edited":
        ids = item_ids(store, ItemQuery(dataset_id=dataset_id, edited=True))
    # isolate: the calls are made in a child process, so the GUI thread never waits on this one (see
    # reviewer.rerun.isolated); this thread only saves what comes back.
    report = rerun(store, dataset_id, run_name, config, ctx, item_ids=ids, retry_errors_only=scope == "failed",
                   actor="gui", isolate=True)
    errors, count = run_errors(store, report.run_id)
    return RerunOutcome(report, errors, count)


def compare(ctx: JobContext, store, run_a: int, run_b: int, mode: str) -> list[dict]:
    return scoring.compare_runs(store, run_a, run_b, mode)


def rescore(ctx: JobContext, store, item_ids: list[int]) -> list[scoring.Flip]:
    return scoring.rescore_items(store, item_ids, ctx)
