"""Reruns over the store: plan what is missing, call the model, save each output at once.

``rerun`` makes (or continues) a named run of a dataset with a RunConfig. It
is resumable: outputs already answered are kept, and a rerun fills in only
what is missing or failed (or, with ``retry_errors_only``, only what failed).
Each result is saved as it arrives, by a writer thread in small batches
(reviewer.rerun.writer), so a cancelled or failed run keeps everything it
received and a crash loses at most the last moment's results. The run's stored
configuration never holds the API key, only where to find it.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from reviewer.errors import ReviewerError
from reviewer.jobs import JobContext, silent
from reviewer.rerun.config import RunConfig
from reviewer.rerun.engine import RunSummary, execute, plan
from reviewer.rerun.isolated import execute_isolated
from reviewer.rerun.writer import OutputWriter
from reviewer.store.item_json import ITEM_COLUMNS, stored_payload
from reviewer.store.models import Blob, Item, Output, Run, utcnow
from reviewer.store import audit

item_t, output_t, run_t, blob_t = Item.__table__, Output.__table__, Run.__table__, Blob.__table__


@dataclass
class RerunItem:
    """An item as the prompt strategies read it (see reviewer.rerun.prompts.base.RerunItem)."""

    id: int
    record_id: str
    kind: str
    gold: object
    payload: dict
    context: str | None
    schema: str | None
    question: str | None
    category: str | None


@dataclass
class RerunReport:
    run: str
    run_id: int
    planned: int
    summary: RunSummary


def load_items(store, dataset_id: int, item_ids: list[int] | None = None) -> list[RerunItem]:
    stmt = select(*ITEM_COLUMNS).where(item_t.c.dataset_id == dataset_id).order_by(item_t.c.position)
    if item_ids is not None:
        stmt = stmt.where(item_t.c.id.in_(item_ids))
    with store.engine.connect() as conn:
        rows = conn.execute(stmt).all()
        hashes = sorted({h for r in rows for h in (r.context_hash, r.schema_hash) if h})
        texts = dict(conn.execute(select(blob_t.c.hash, blob_t.c.text).where(blob_t.c.hash.in_(hashes))).all())
    return [
        RerunItem(r.id, r.record_id, r.kind, r.gold, stored_payload(r), texts.get(r.context_hash),
                  texts.get(r.schema_hash), r.question, r.category)
        for r in rows
    ]


def _run_row(store, dataset_id: int, name: str, config: RunConfig, actor: str) -> int:
    stored = config.to_dict()
    with store.engine.begin() as conn:
        row = conn.execute(
            select(run_t.c.id, run_t.c.model, run_t.c.endpoint, run_t.c.setup)
            .where(run_t.c.dataset_id == dataset_id, run_t.c.name == name)
        ).first()
        if row is None:
            run_id = conn.execute(run_t.insert().values(
                dataset_id=dataset_id, name=name, format="rerun", source=config.base_url, model=config.model,
                setup=config.strategy, endpoint=config.base_url, config=stored, created_at=utcnow(),
            )).inserted_primary_key[0]
            audit.record(conn, actor, "run", run_id, "create", after=stored)
            return run_id
        if (row.model, row.endpoint, row.setup) != (config.model, config.base_url, config.strategy):
            raise ReviewerError(
                f"run {name!r} was made with model {row.model!r} at {row.endpoint} ({row.setup}); "
                "to continue it use the same settings, or choose another run name"
            )
        return row.id


def rerun(
    store, dataset: str | int, run_name: str, config: RunConfig, ctx: JobContext | None = None,
    item_ids: list[int] | None = None, retry_errors_only: bool = False, actor: str = "rerun", cache=None,
    isolate: bool = False,
) -> RerunReport:
    """Make (or continue) the run ``run_name`` of ``dataset``; see the module docstring.

    With ``isolate`` the calls are made in a child process (reviewer.rerun.isolated),
    so that this process spends almost nothing per call: the GUI uses it.
    """
    ctx = ctx or silent()
    ds = store.dataset(dataset)
    items = load_items(store, ds.id, item_ids)
    run_id = _run_row(store, ds.id, run_name, config, actor)
    by_record = {i.record_id: i for i in items}
    with store.engine.connect() as conn:
        existing = conn.execute(
            select(item_t.c.record_id, output_t.c.replication, output_t.c.status)
            .join(item_t, item_t.c.id == output_t.c.item_id)
            .where(output_t.c.run_id == run_id)
        ).all()
    done = {(r.record_id, r.replication) for r in existing if r.status == "ok"}
    failed = {(r.record_id, r.replication) for r in existing if r.status != "ok"}
    calls = plan(items, config, done, retry_errors_only, failed)

    if not calls:
        return RerunReport(run_name, run_id, 0, RunSummary())
    writer = OutputWriter(store, run_id, lambda record_id: by_record[record_id].id)
    try:
        summary = (execute_isolated if isolate else execute)(calls, config, ctx, writer.put, cache=cache)
    except BaseException:
        writer.close(reraise=False)  # what arrived before the cancel or error is kept
        raise
    writer.close()
    return RerunReport(run_name, run_id, len(calls), summary)
