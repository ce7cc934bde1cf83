"""The store: the one object the CLI, the jobs and the GUI's models talk to.

It owns an engine and hands out plain views (reviewer.store.views). Every write
is one transaction and writes its audit entry in the same transaction.
Thread-safety: a Store may be shared by threads; each call opens its own
connection from the pool.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import case, func, select
from sqlalchemy.exc import DBAPIError

from reviewer.errors import InputError, NotFound, ReviewerError, RunMismatch
from reviewer.formats.registry import (
    answers, find_dataset_format, find_run_format, prediction_files, whole_folder_format,
)
from reviewer.jobs import JobContext, silent
from reviewer.store import audit, exporting, import_feed, importing, queries
from reviewer.store.db import describe, make_engine, resolve_url
from reviewer.store.item_json import ITEM_COLUMNS, stored_payload, stored_raw
from reviewer.store.migrations import upgrade
from reviewer.store.models import Annotation, AuditEntry, Blob, Dataset, Item, Output, Run, Score, utcnow
from reviewer.store.views import AuditView, DatasetInfo, ItemDetail, ItemRow, OutputView, RunInfo

dataset_t, item_t, run_t, output_t, blob_t, audit_t, score_t = (
    Dataset.__table__, Item.__table__, Run.__table__, Output.__table__, Blob.__table__, AuditEntry.__table__,
    Score.__table__,
)
ann_t = Annotation.__table__


class Store:
    def __init__(self, db: str | Path | None = None):
        """Open (creating or upgrading as needed) the database named by ``db``,
        ``$REVIEWER_DB`` or the default SQLite file (see reviewer.store.db)."""
        self.url = resolve_url(db)
        self.engine = make_engine(self.url)
        try:
            self.schema_version = upgrade(self.engine)
        except DBAPIError as exc:
            if self.engine.dialect.name != "postgresql":
                raise
            # A login without rights on a team database (no team role, or removed from the team).
            reason = str(getattr(exc, "orig", exc)).strip().splitlines()[0]
            self.engine.dispose()
            raise ReviewerError(f"cannot open {describe(self.url)}: PostgreSQL refused ({reason}); in team mode an "
                                "admin gives your login a role with `reviewer team add LOGIN --role ...`") from None
        if self.engine.dialect.name == "postgresql":
            from reviewer.team.masking import use_masked_reads

            use_masked_reads(self.engine)  # an annotator of a team reads runs through the blind views

    def __repr__(self) -> str:
        return f"Store({describe(self.url)})"

    @property
    def backend(self) -> str:
        return self.engine.dialect.name

    def close(self) -> None:
        self.engine.dispose()

    # -- datasets and runs -------------------------------------------------

    def datasets(self) -> list[DatasetInfo]:
        items = select(item_t.c.dataset_id, func.count().label("n")).group_by(item_t.c.dataset_id).subquery()
        runs = select(run_t.c.dataset_id, func.count().label("n")).group_by(run_t.c.dataset_id).subquery()
        stmt = (
            select(dataset_t, func.coalesce(items.c.n, 0).label("items"), func.coalesce(runs.c.n, 0).label("runs"))
            .outerjoin(items, items.c.dataset_id == dataset_t.c.id)
            .outerjoin(runs, runs.c.dataset_id == dataset_t.c.id)
            .order_by(dataset_t.c.name)
        )
        with self.engine.connect() as conn:
            return [
                DatasetInfo(r.id, r.name, r.format, r.kind, r.source, r.items, r.runs, r.created_at)
                for r in conn.execute(stmt)
            ]

    def dataset(self, ref: str | int) -> DatasetInfo:
        """A dataset by name or id; NotFound names the ones that exist."""
        found = [d for d in self.datasets() if d.name == ref or d.id == ref or str(d.id) == str(ref)]
        if not found:
            names = ", ".join(d.name for d in self.datasets()) or "none yet"
            raise NotFound(f"no dataset {ref!r} (datasets: {names})")
        return found[0]

    def runs(self, dataset: str | int) -> list[RunInfo]:
        ds = self.dataset(dataset)
        counts = (
            select(
                output_t.c.run_id, func.count().label("n"),
                func.sum(case((output_t.c.status != "ok", 1), else_=0)).label("errors"),
            ).group_by(output_t.c.run_id).subquery()
        )
        stmt = (
            select(run_t, func.coalesce(counts.c.n, 0).label("n"), func.coalesce(counts.c.errors, 0).label("errors"))
            .outerjoin(counts, counts.c.run_id == run_t.c.id)
            .where(run_t.c.dataset_id == ds.id)
            .order_by(run_t.c.id)
        )
        with self.engine.connect() as conn:
            return [
                RunInfo(r.id, r.dataset_id, r.name, r.model, r.setup, r.format, r.n, r.errors, r.created_at)
                for r in conn.execute(stmt)
            ]

    def run(self, dataset: str | int, ref: str | int) -> RunInfo:
        runs = self.runs(dataset)
        for r in runs:
            if r.name == ref or str(r.id) == str(ref):
                return r
        names = ", ".join(r.name for r in runs) or "none yet"
        raise NotFound(f"no run {ref!r} in dataset {dataset!r} (runs: {names})")

    def delete_dataset(self, dataset: str | int, actor: str) -> None:
        ds = self.dataset(dataset)
        with self.engine.begin() as conn:
            # The ids removed, as runs: SQLite gives them again to later rows (audit.history_starts).
            item_ids = list(conn.execute(select(item_t.c.id).where(item_t.c.dataset_id == ds.id)).scalars())
            ann_ids = list(conn.execute(select(ann_t.c.id).join(item_t, item_t.c.id == ann_t.c.item_id)
                                        .where(item_t.c.dataset_id == ds.id)).scalars())
            conn.execute(dataset_t.delete().where(dataset_t.c.id == ds.id))
            audit.record(conn, actor, "dataset", ds.id, "delete",
                         before={"name": ds.name, "items": ds.items, "item_ids": audit.id_runs(item_ids),
                                 "annotation_ids": audit.id_runs(ann_ids)})

    # -- import and export -------------------------------------------------

    def import_dataset(
        self, path: str | Path, format: str | None = None, name: str | None = None,
        ctx: JobContext | None = None, actor: str = "import", options: dict[str, Path] | None = None,
    ) -> importing.ImportSummary:
        """Import a dataset file or folder. ``options``: the format reader's own file arguments
        (NesTools: ``api_ids``, its ids file when it is not beside the data)."""
        path = Path(path)
        fmt = find_dataset_format(path, format)
        ctx = ctx or silent()
        options = dict(options or {})
        parsed = fmt.read(path, ctx, **options)
        # A big file is read in a second process while this one writes (import_feed).
        feed = import_feed.Feed(fmt.name, path, options).start() if import_feed.wanted(fmt.name, path) else None
        try:
            return importing.import_dataset(self.engine, parsed, ctx, name=name, actor=actor, feed=feed)
        except import_feed.Broken:
            # the reading process died before its first word or midway (nothing was written):
            # read here, as for a small file
            return importing.import_dataset(self.engine, fmt.read(path, ctx, **options), ctx, name=name, actor=actor)

    def import_run(
        self, dataset: str | int, path: str | Path, format: str | None = None, name: str | None = None,
        ctx: JobContext | None = None, actor: str = "import",
    ) -> importing.ImportSummary:
        path = Path(path)
        ds = self.dataset(dataset)
        fmt = find_run_format(path, format)
        _check_answers(fmt, ds, path)
        ctx = ctx or silent()
        return importing.import_run(self.engine, ds.id, fmt.read(path, ctx), ctx, name=name, actor=actor)

    def import_runs(
        self, dataset: str | int, path: str | Path, format: str | None = None, name: str | None = None,
        ctx: JobContext | None = None, actor: str = "import",
    ) -> importing.RunsImport:
        """``import_run`` of a file, or of a folder: one that a run format reads as a whole
        (BFCL's result folder, a NesTools model folder) is one file; any other folder's files
        are imported one by one, sorted by name: every file the format (named, else detected
        per file) reads, each into the run its name gives (toolJSON: one run per model and
        setup) or into ``name``. A folder is imported whole or not at all (one transaction:
        an error names its file and place and says nothing was imported). The CLI and the
        File menu both import through this."""
        path = Path(path)
        ctx = ctx or silent()
        ds = self.dataset(dataset)
        if not path.is_dir() or whole_folder_format(path, format, ds.format) is not None:
            return importing.RunsImport([(path.name, self.import_run(ds.id, path, format, name, ctx, actor))])
        chosen = find_run_format(path, format) if format else None
        if chosen is not None:
            _check_answers(chosen, ds, path)
        picked, skipped = prediction_files(path, chosen, ds.format, ctx.check_cancelled)

        def parsed():
            for n, (file, fmt) in enumerate(picked):
                ctx.check_cancelled()
                ctx.progress(n, len(picked), f"file {n + 1} of {len(picked)}: {file.name}")
                yield fmt.read(file, ctx)

        try:
            summaries = importing.import_runs(self.engine, ds.id, parsed(), ctx, name=name, actor=actor,
                                              source=str(path))
        except InputError as exc:
            note = f"; nothing from {path} was imported (a folder is imported whole or not at all: " \
                   f"{len(picked)} prediction files)"
            if type(exc) is RunMismatch:
                raise RunMismatch(exc.path, exc.where, exc.problem, note) from None
            if type(exc) is InputError:
                raise InputError(exc.path, exc.where, exc.message + note) from None
            raise
        return importing.RunsImport([(file.name, s) for (file, _), s in zip(picked, summaries)], skipped)

    def export_dataset(self, dataset: str | int, out: str | Path, ctx: JobContext | None = None) -> list[Path]:
        return exporting.export_dataset(self.engine, self.dataset(dataset).id, Path(out), ctx or silent())

    def export_jsonl(self, dataset: str | int, path: str | Path, item_ids: set[int] | None = None,
                     ctx: JobContext | None = None) -> int:
        """One item a line, with provenance (``item_ids``: only those); return how many were written."""
        return exporting.export_jsonl(self.engine, self.dataset(dataset).id, Path(path), item_ids, ctx)

    def export_released_gold(self, dataset: str | int, path: str | Path,
                             ctx: JobContext | None = None) -> exporting.GoldExport:
        """``export_jsonl`` of the released Gold only, by the rule the Release tab counts
        (reviewer.review.release.gold_status), for the CLI and the File menu alike; says
        how many items were written and how many were withheld, for what."""
        released, withheld, reasons = self._release_split(dataset)
        written = self.export_jsonl(dataset, path, item_ids={s.item_id for s in released}, ctx=ctx)
        return exporting.GoldExport(written, withheld, reasons)

    def export_released_gold_source(self, dataset: str | int, out: str | Path,
                                    ctx: JobContext | None = None) -> exporting.GoldExport:
        """``export_dataset`` of the released Gold only (same rule as ``export_released_gold``)."""
        released, withheld, reasons = self._release_split(dataset)
        exporting.export_dataset(self.engine, self.dataset(dataset).id, Path(out), ctx or silent(),
                                 record_ids={s.record_id for s in released})
        return exporting.GoldExport(len(released), withheld, reasons)

    def _release_split(self, dataset: str | int) -> tuple[list, int, dict[str, int]]:
        """(the released items' statuses, how many are withheld, withheld counts by reason)."""
        from reviewer.review.release import gold_status, withheld_counts

        statuses = gold_status(self, self.dataset(dataset).id)
        withheld = [s for s in statuses if not s.released]
        return [s for s in statuses if s.released], len(withheld), withheld_counts(withheld)

    # -- items -------------------------------------------------------------

    def count_items(self, query: queries.ItemQuery) -> int:
        with self.engine.connect() as conn:
            return queries.count_items(conn, query)

    def item_page(self, query: queries.ItemQuery, offset: int, limit: int) -> list[ItemRow]:
        with self.engine.connect() as conn:
            return queries.page_items(conn, query, offset, limit)

    def item(self, item_id: int) -> ItemDetail:
        with self.engine.connect() as conn:
            r = conn.execute(
                select(*ITEM_COLUMNS, dataset_t.c.name.label("dataset_name"))
                .join(dataset_t, dataset_t.c.id == item_t.c.dataset_id)
                .where(item_t.c.id == item_id)
            ).first()
            if r is None:
                raise NotFound(f"no item with id {item_id}")
            texts = dict(
                conn.execute(
                    select(blob_t.c.hash, blob_t.c.text).where(blob_t.c.hash.in_([r.context_hash, r.schema_hash]))
                ).all()
            )
        return ItemDetail(
            id=r.id, dataset_id=r.dataset_id, dataset=r.dataset_name, record_id=r.record_id, position=r.position,
            kind=r.kind, question=r.question, gold=r.gold, original_gold=r.original_gold, raw=(raw := stored_raw(r)) or {},
            payload=stored_payload(r, raw), context=texts.get(r.context_hash), schema=texts.get(r.schema_hash),
            category=r.category, difficulty=r.difficulty, depth=r.depth, domain=r.domain,
            source_file=r.source_file, source_line=r.source_line, version=r.version,
        )

    def find_item(self, dataset: str | int, record_id: str) -> ItemDetail:
        ds = self.dataset(dataset)
        with self.engine.connect() as conn:
            item_id = conn.execute(
                select(item_t.c.id).where(item_t.c.dataset_id == ds.id, item_t.c.record_id == str(record_id))
            ).scalar()
        if item_id is None:
            raise NotFound(f"no item {record_id!r} in dataset {ds.name!r}")
        return self.item(item_id)

    def outputs(self, item_id: int) -> list[OutputView]:
        stmt = (
            select(output_t, run_t.c.name.label("run_name"), run_t.c.model.label("run_model"))
            .join(run_t, run_t.c.id == output_t.c.run_id)
            .where(output_t.c.item_id == item_id)
            .order_by(run_t.c.id, output_t.c.replication)
        )
        with self.engine.connect() as conn:
            return [
                OutputView(
                    id=o.id, run_id=o.run_id, run=o.run_name, model=o.run_model, item_id=o.item_id,
                    replication=o.replication, text=o.text, prediction=o.prediction, status=o.status,
                    error=o.error, extra=o.extra or {}, latency_ms=o.latency_ms,
                    prompt_tokens=o.prompt_tokens, completion_tokens=o.completion_tokens,
                )
                for o in conn.execute(stmt)
            ]

    def set_gold(self, item_id: int, gold: Any, actor: str, expected_version: int, reason: str = "") -> int:
        """Replace an item's gold; return the item's new version.

        Raises StaleWrite when the item changed since ``expected_version`` was read,
        so concurrent editors never overwrite each other silently.
        """
        from reviewer.review.gold import write_gold  # the single gold writer

        with self.engine.begin() as conn:
            conn.execute(item_t.update().where(item_t.c.id == item_id).values(version=item_t.c.version))  # lock
            return write_gold(conn, item_id, gold, actor, expected_version, reason, skip_unchanged=False)

    def run_scores(self, run_id: int, scorer: str | None = None, mode: str = "faithful") -> dict[int, float | None]:
        """Headline score per item of a run (first replication), for the item table."""
        stmt = (
            select(output_t.c.item_id, score_t.c.value)
            .join(score_t, score_t.c.output_id == output_t.c.id)
            .where(output_t.c.run_id == run_id, output_t.c.replication == 0, score_t.c.mode == mode)
        )
        if scorer:
            stmt = stmt.where(score_t.c.scorer == scorer)
        with self.engine.connect() as conn:
            return dict(conn.execute(stmt).all())

    def history(self, entity: str, entity_id: int) -> list[AuditView]:
        """The audit entries of one row, oldest first (for an item or an annotation: not those of an
        earlier row that held the same id before its dataset was deleted)."""
        stmt = (
            select(audit_t)
            .where(audit_t.c.entity == entity, audit_t.c.entity_id == entity_id)
            .order_by(audit_t.c.id)
        )
        with self.engine.connect() as conn:
            if entity in ("item", "annotation"):
                since = audit.history_starts(conn, {entity: [entity_id]})[entity][entity_id]
                stmt = stmt.where(audit_t.c.id > since)
            return [AuditView(a.at, a.actor, a.entity, a.entity_id, a.action, a.before, a.after) for a in conn.execute(stmt)]


def _check_answers(fmt, ds: DatasetInfo, path: Path) -> None:
    """Refuse a prediction format of another benchmark than the dataset's."""
    if not answers(fmt, ds.format):
        raise InputError(path, None, f"{fmt.label} files answer {fmt.dataset_format} datasets, "
                         f"but dataset {ds.name!r} is {ds.format}")


__all__ = ["Store", "utcnow"]
