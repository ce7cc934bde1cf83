"""Persist what a format reader yields: one transaction per import.

Contracts:
- Atomic: on any error (bad input raised by the reader, a duplicate id,
  a database failure) nothing of the import is written.
- Idempotent: re-importing the same file adds nothing. Items are identified by
  ``(dataset, record_id)`` and outputs by ``(run, item, replication)``; records
  already stored are kept as they are (a gold fixed in reviewer is never
  overwritten by the source file) and counted as unchanged or changed-in-source.
- Streaming: items are written in chunks as the reader yields them. A big file
  may be read in a second process while this one writes (reviewer.store.import_feed,
  chosen by Store.import_dataset); the contracts here hold either way.
- Portable: a value that standard JSON or one of the two databases cannot hold
  the same way (NaN, Infinity, a NUL character, a lone surrogate) is refused with
  its record and JSON path, on SQLite exactly as on PostgreSQL.
- One at a time: an import first takes a lock (PostgreSQL: the ``dataset`` table
  in SHARE ROW EXCLUSIVE mode, which only those who may write datasets can take,
  so no annotator can hold it to stall imports as they could an advisory lock;
  SQLite: the database's write lock), so a second import waits and then finds
  the first one's items; if the wait runs out it ends with a message, never a
  traceback. Imports of different datasets wait for each other too; readers of
  ``dataset`` do not.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterable
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from sqlalchemy import Text, cast, func, select, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError

from reviewer.errors import InputError, ReviewerError, RunMismatch
from reviewer.formats.base import ParsedDataset, ParsedRun, blob_hash
from reviewer.jobs import JobContext, collector_paused
from reviewer.store import audit
from reviewer.store.bulk import CHUNK, insert_encoded, insert_ignoring_duplicates, insert_many, row_security_active
from reviewer.store.checks import check_item, check_storable, where_in_file
from reviewer.store.import_feed import ROW_KEYS as FEED_ROW_KEYS
from reviewer.store.import_feed import Feed
from reviewer.store.import_feed import source_texts as feed_source_texts
from reviewer.store.item_json import compact_raw, expand_raw
from reviewer.store.jsontext import same_value
from reviewer.store.models import Blob, Dataset, Item, Output, Run, utcnow
from reviewer.store.payloads import compact as compact_payload
from reviewer.store.payloads import expand as expand_payload

blob_t, dataset_t, item_t, run_t, output_t = (
    Blob.__table__, Dataset.__table__, Item.__table__, Run.__table__, Output.__table__,
)


@dataclass
class ImportSummary:
    dataset: str
    dataset_id: int
    added: int = 0
    unchanged: int = 0
    changed_in_source: list[str] = field(default_factory=list)
    run: str | None = None
    run_id: int | None = None
    # A run's reach after the import: the dataset's items it has an output for, of all of them.
    covered: int | None = None
    dataset_items: int | None = None

    def describe(self) -> str:
        what = f"run {self.run!r} of dataset {self.dataset!r}" if self.run else f"dataset {self.dataset!r}"
        unit = "outputs" if self.run else "items"
        text = f"{what}: {self.added} {unit} added, {self.unchanged} already present"
        if self.changed_in_source:
            text += (
                f", {len(self.changed_in_source)} differ from the stored version and were kept as stored"
                f" (first: {self.changed_in_source[0]})"
            )
            if self.run:
                text += "; to keep the new outputs too, import the file as a run of another name"
        if self.covered is not None and self.dataset_items is not None and self.covered < self.dataset_items:
            # a run that answers part of the dataset scores 0 on the rest: say so (a predictions
            # file of another dataset whose ids happen to overlap shows up here)
            text += f"; the run covers {self.covered} of {self.dataset_items} items"
        return text


@dataclass
class RunsImport:
    """What one import of prediction files did: a summary per file (in the order they were
    imported; a file, or a folder read as a whole, is one) and the folder's files no
    prediction format of the dataset reads."""

    files: list[tuple[str, ImportSummary]]
    skipped: list[str] = field(default_factory=list)

    def runs(self) -> list[ImportSummary]:
        """One summary per run, in the order the runs were first met: the counts of its
        files added up, its coverage after the last of them."""
        merged: dict[str, ImportSummary] = {}
        for _, s in self.files:
            m = merged.get(s.run)
            if m is None:
                merged[s.run] = replace(s, changed_in_source=list(s.changed_in_source))
                continue
            m.added += s.added
            m.unchanged += s.unchanged
            m.changed_in_source += s.changed_in_source
            m.covered, m.dataset_items = s.covered, s.dataset_items
        return list(merged.values())

    def describe(self) -> list[str]:
        """A line per run (with how many files it came from, when more than one), then the
        skipped files, if any."""
        counts: dict[str, int] = {}
        for _, s in self.files:
            counts[s.run] = counts.get(s.run, 0) + 1
        lines = [s.describe() + (f" (from {counts[s.run]} files)" if counts[s.run] > 1 else "")
                 for s in self.runs()]
        if self.skipped:
            lines.append(f"skipped {len(self.skipped)} file(s) that are not predictions for this dataset: "
                         + ", ".join(self.skipped))
        return lines


class _Blobs:
    """Content-addressed large texts, written once per import."""

    def __init__(self, conn: Connection):
        self.conn = conn
        self.pending: dict[str, str] = {}
        self.seen: set[str] = set()

    def put(self, text: str | None) -> str | None:
        if text is None:
            return None
        key = blob_hash(text)
        if key not in self.seen:
            self.seen.add(key)
            self.pending[key] = text
        return key

    def flush(self) -> None:
        _write_blobs(self.conn, self.take())

    def take(self) -> dict[str, str]:
        """The blobs put since the last take, to be written (before the items using them)."""
        pending, self.pending = self.pending, {}
        return pending


def _write_blobs(conn: Connection, pending: dict[str, str]) -> None:
    insert_ignoring_duplicates(conn, blob_t, ({"hash": k, "text": v} for k, v in pending.items()))


class _Writer:
    """The database writes of one import, run in order on one helper thread while the
    caller reads and checks the next chunk.

    Reading is Python (it holds the GIL); writing is mostly waiting on the database
    -- PostgreSQL's server taking a COPY, SQLite stepping its B-trees, both of which
    release the GIL -- so on two cores the two overlap instead of taking turns.
    Only on PostgreSQL (``threaded``): SQLite does its work in this process, and
    there the thread measured slower (1.87 s against 1.47 s for 10k NesTools items,
    medians of 5), while PostgreSQL gained 1.45x (1.95 s against 2.82 s); SQLite's
    writes run in the caller, as before. The connection and its one transaction stay the caller's: the writer only
    uses it between the caller's own statements (``start`` after the caller's
    setup, ``finish`` before its commit), never at the same time. At most
    ``DEPTH`` chunks wait, so memory stays bounded by the chunk size. A write
    that fails is raised in the caller at its next ``submit`` or at ``finish``;
    ``abandon`` (the caller failed) skips what is left, and the caller's
    transaction is then rolled back: nothing of the import is written.
    """

    DEPTH = 2

    def __init__(self, threaded: bool) -> None:
        self.error: BaseException | None = None
        self.stopped = False
        self.thread = None
        if threaded:
            self.jobs: queue.Queue = queue.Queue(maxsize=self.DEPTH)
            self.thread = threading.Thread(target=self._run, name="reviewer-import-writer", daemon=True)
            self.thread.start()

    def _run(self) -> None:
        while (job := self.jobs.get()) is not None:
            if self.error is None and not self.stopped:
                try:
                    job()
                except BaseException as exc:  # handed to the caller, who raises it
                    self.error = exc

    def submit(self, job) -> None:
        if self.thread is None:
            job()
            return
        self._raise()
        self.jobs.put(job)

    def finish(self) -> None:
        """Wait for every write; raise the first that failed."""
        if self.thread is not None:
            self.jobs.put(None)
            self.thread.join()
            self._raise()

    def abandon(self) -> None:
        self.stopped = True
        if self.thread is not None:
            self.jobs.put(None)
            self.thread.join()

    def _raise(self) -> None:
        if self.error is not None:
            error, self.error = self.error, None
            self.stopped = True
            raise error


def _find_or_create_dataset(conn: Connection, parsed: ParsedDataset, name: str, meta: dict) -> int:
    ds = parsed.dataset
    row = conn.execute(select(dataset_t.c.id, dataset_t.c.format).where(dataset_t.c.name == name)).first()
    if row is None:
        return conn.execute(
            dataset_t.insert().values(
                name=name, format=ds.format, kind=ds.kind, source=ds.source, meta=meta, created_at=utcnow()
            )
        ).inserted_primary_key[0]
    if row.format != ds.format:
        raise InputError(
            ds.source, None,
            f"dataset {name!r} already exists with format {row.format!r}, not {ds.format!r}; "
            "choose another name with --name",
        )
    conn.execute(dataset_t.update().where(dataset_t.c.id == row.id).values(meta=meta, source=ds.source))
    return row.id


def _lock_for_import(conn: Connection, key: str) -> None:
    """Serialise imports (see the module docstring). ``key`` names what is imported; on PostgreSQL
    every import takes the same table lock, since a per-key advisory lock can be held by anyone."""
    if conn.dialect.name == "postgresql":
        # Not an advisory lock: any login can take those and hold an import up indefinitely.
        # SHARE ROW EXCLUSIVE conflicts with itself and with writes to dataset, not with reads.
        conn.execute(text("lock table dataset in share row exclusive mode"))
    else:
        # A write that changes nothing takes SQLite's write lock now, before anything
        # is read, so the next importer waits (busy_timeout) for this one to commit.
        conn.execute(text("update reviewer_schema set version = version where 0"))


@contextmanager
def _database_errors(source, what: str):
    """Turn a database failure into a short ReviewerError (psycopg's messages can carry
    every parameter of the statement; none of that reaches the user)."""
    try:
        yield
    except IntegrityError as exc:
        raise ReviewerError(
            f"{source}: {what} was changed by another import or user at the same time; nothing was written, "
            f"run the import again ({_first_line(exc)})"
        ) from None
    except OperationalError as exc:
        if "locked" in str(exc.orig):
            raise ReviewerError(
                f"{source}: the database is busy with another import or write; nothing was written, "
                "try again when it has finished"
            ) from None
        raise ReviewerError(f"{source}: the database refused the import; nothing was written ({_first_line(exc)})") from None
    except DBAPIError as exc:
        raise ReviewerError(f"{source}: the database refused the import; nothing was written ({_first_line(exc)})") from None


def _first_line(exc: DBAPIError) -> str:
    orig = exc.orig if exc.orig is not None else exc
    line = (str(orig).strip().splitlines() or [""])[0][:200]
    return f"{type(orig).__name__}: {line}"


NAME_MAX = dataset_t.c.name.type.length  # the longest dataset name the table holds alike on both databases
RECORD_ID_MAX = item_t.c.record_id.type.length  # and the longest item id


def import_dataset(
    engine: Engine, parsed: ParsedDataset, ctx: JobContext, name: str | None = None, actor: str = "import",
    feed: Feed | None = None,
) -> ImportSummary:
    """Import ``parsed`` (see the module docstring). With ``feed`` (a started
    reviewer.store.import_feed.Feed of the same file) the items come from its reading
    process, already checked and encoded, and ``parsed.items`` is not read; the feed
    is closed when the import ends, however it ends. Under row-level security
    (PostgreSQL team mode, no COPY) the feed is not used either way."""
    ds = parsed.dataset
    name = name or ds.name
    try:
        with collector_paused(), _database_errors(ds.source, f"dataset {name!r}"), engine.begin() as conn:
            return _import_dataset(conn, parsed, ctx, name, actor, feed)
    finally:
        if feed is not None:
            feed.close()


def _import_dataset(conn: Connection, parsed: ParsedDataset, ctx: JobContext, name: str, actor: str,
                    feed: Feed | None) -> ImportSummary:
    ds = parsed.dataset
    if len(name) > NAME_MAX:  # PostgreSQL refuses it with a bare "value too long", SQLite would store it
        raise InputError(ds.source, None, f"the dataset name is {len(name):,} characters long, more than the "
                                          f"{NAME_MAX} a name may have; choose a shorter one with --name")
    _lock_for_import(conn, f"dataset:{name}")
    check_storable(ds.source, "dataset", {"meta": ds.meta}, {f"file {k!r}": v for k, v in ds.blobs.items()})
    blobs = _Blobs(conn)
    meta = dict(ds.meta)
    meta["_blobs"] = sorted(blobs.put(text) for text in ds.blobs.values())
    dataset_id = _find_or_create_dataset(conn, parsed, name, meta)
    existing = dict(
        conn.execute(select(item_t.c.record_id, item_t.c.id).where(item_t.c.dataset_id == dataset_id)).all()
    )
    position = conn.execute(
        select(func.coalesce(func.max(item_t.c.position), -1)).where(item_t.c.dataset_id == dataset_id)
    ).scalar() + 1
    summary = ImportSummary(dataset=name, dataset_id=dataset_id)
    seen: dict[str, str] = {}
    writer = _Writer(threaded=conn.dialect.name == "postgresql")
    if feed is not None and conn.dialect.name == "postgresql" and row_security_active(conn, item_t):
        feed = None  # the INSERT path would decode every encoded row again: read here instead

    def first_seen(record_id: str, file, where: str) -> None:
        if record_id in seen:
            raise InputError(file, where, f"duplicate id {record_id!r} (first seen at {seen[record_id]})")
        if len(record_id) > RECORD_ID_MAX:
            # PostgreSQL refuses it without a line (or cuts trailing spaces: another id), SQLite stores it
            raise InputError(file, where, f"the id is {len(record_id):,} characters long, more than the "
                                          f"{RECORD_ID_MAX} an item id may have")
        seen[record_id] = where

    try:
        if feed is None:
            _read_here(parsed, ctx, conn, dataset_id, blobs, existing, position, summary, writer, first_seen)
        else:
            _read_from_feed(feed, ctx, conn, dataset_id, existing, position, summary, writer, first_seen)
    except BaseException:
        writer.abandon()
        raise
    writer.finish()
    if not seen:
        # an empty file would make an empty dataset and exit 0: most likely the wrong file (or
        # one cut short); raising rolls back the dataset row made above
        raise InputError(ds.source, None, "holds no items; nothing was imported")
    audit.record(conn, actor, "dataset", dataset_id, "import",
                 after={"source": ds.source, "format": ds.format, "added": summary.added})
    ctx.progress(len(seen), len(seen), summary.describe())
    return summary


def _read_here(parsed, ctx, conn, dataset_id, blobs, existing, position, summary, writer, first_seen) -> None:
    """The items read and checked in this process, written a chunk at a time."""
    source = parsed.dataset.source
    rows: list[dict] = []
    already_stored: list = []  # records already in the database (see _count_changed), checked per chunk

    def flush() -> None:
        nonlocal rows, already_stored
        chunk_blobs, chunk_rows, chunk_stored = blobs.take(), rows, already_stored
        rows, already_stored = [], []
        writer.submit(lambda: _write_chunk(conn, dataset_id, chunk_blobs, chunk_rows, chunk_stored, summary))

    for n, rec in enumerate(parsed.items, 1):
        first_seen(rec.record_id, rec.source_file or source, where_in_file(rec))
        check_item(rec, source)
        if rec.record_id in existing:
            already_stored.append((rec.record_id, None, lambda rec=rec: source_values(rec)))
        else:
            rows.append(_item_row(rec, dataset_id, position, blobs))
            position += 1
            summary.added += 1
        if len(rows) + len(already_stored) >= CHUNK:
            flush()
        if n % 200 == 0:
            ctx.check_cancelled()
            # the reader's estimate of the file's items, where it gives one (it reports to this ctx too)
            _report(ctx, n, ctx.last.total if ctx.last is not None else None)
    flush()


def _read_from_feed(feed, ctx, conn, dataset_id, existing, position, summary, writer, first_seen) -> None:
    """The items from the feed's reading process: checked and encoded there; ids, positions
    and the records already stored are this side's (the database's) business."""
    n = 0
    for chunk_blobs, entries, total in feed.chunks():
        rows: list[list] = []
        already_stored: list = []
        for record_id, where, file, row in entries:
            first_seen(record_id, file, where)
            if record_id in existing:
                texts = feed_source_texts(row)  # decoded only when they differ from the stored ones
                already_stored.append((record_id, texts, lambda texts=texts: _stored_values(texts)))
            else:
                rows.append([dataset_id, position, *row])
                position += 1
                summary.added += 1
        n += len(entries)
        writer.submit(lambda b=chunk_blobs, r=rows, s=already_stored: _write_encoded_chunk(conn, dataset_id, b, r, s, summary))
        ctx.check_cancelled()
        _report(ctx, n, total)


def _report(ctx: JobContext, n: int, total: int | None) -> None:
    """Progress of an import's reading: ``n`` items, of about ``total`` (a reader's estimate
    from how much of the file it has read) when there is one."""
    if total is not None and total >= n:
        ctx.progress(n, total, f"{n:,} of about {total:,} items read")
    else:
        ctx.progress(n, None, f"{n:,} items read")


def _write_encoded_chunk(conn: Connection, dataset_id: int, blobs: dict, rows: list[list], stored: list,
                         summary: ImportSummary) -> None:
    """``_write_chunk`` for rows from the feed (value lists, JSON columns as text)."""
    _write_blobs(conn, blobs)
    insert_encoded(conn, item_t, FEED_KEYS, rows)
    _count_changed(conn, dataset_id, stored, summary)


FEED_KEYS = ("dataset_id", "position", *FEED_ROW_KEYS)


def _write_chunk(conn: Connection, dataset_id: int, blobs: dict, rows: list[dict], stored: list,
                 summary: ImportSummary) -> None:
    """One chunk of an import: its new blobs, then its new items, then the count of
    records already stored (unchanged or changed in the source)."""
    _write_blobs(conn, blobs)
    insert_many(conn, item_t, rows)
    _count_changed(conn, dataset_id, stored, summary)


def _item_row(rec, dataset_id: int, position: int, blobs: _Blobs) -> dict:
    """The item row of a checked record, stored as reviewer.store.item_json says: the
    original gold NULL (the gold as imported), raw's values that are the question or
    the gold by reference, the payload's that are raw's by reference."""
    raw, raw_refs = compact_raw(rec.raw, rec.question, rec.gold)
    return {
        "dataset_id": dataset_id, "record_id": rec.record_id, "position": position, "kind": rec.kind,
        "question": rec.question, "gold": rec.gold, "original_gold": None, "raw": raw, "raw_refs": raw_refs,
        "payload": compact_payload(rec.payload, rec.raw), "context_hash": blobs.put(rec.context), "schema_hash": blobs.put(rec.schema),
        "category": rec.category, "difficulty": rec.difficulty, "depth": rec.depth, "domain": rec.domain,
        "source_file": rec.source_file, "source_line": rec.source_line, "gold_edited": False, "version": 1,
    }


def source_values(rec) -> tuple:
    """What a re-import compares of a record read again with the item already stored: the
    source record, the payload (a NesTools item's api ids come from its ids file) and the
    hashes of its context and schema texts (a toolJSON response file)."""
    return (rec.raw, rec.payload or {}, None if rec.context is None else blob_hash(rec.context),
            None if rec.schema is None else blob_hash(rec.schema))


# What a re-import reads of an item already stored: each column it compares as the text it
# holds (the gold as imported). An item imported by this version and unchanged since holds
# the very texts the import's reading process makes, compared without decoding anything.
STORED_TEXTS = (
    cast(item_t.c.raw, Text), cast(item_t.c.raw_refs, Text), item_t.c.question,
    cast(func.coalesce(item_t.c.original_gold, item_t.c.gold), Text), cast(item_t.c.payload, Text),
    item_t.c.context_hash, item_t.c.schema_hash,
)


def _count_changed(conn: Connection, dataset_id: int, records: list, summary: ImportSummary) -> None:
    """Count the records already stored as unchanged, or as changed in the source (kept as
    stored: an import never overwrites an item). ``records``: ``(record_id, texts, values)``,
    ``texts`` the record's ``STORED_TEXTS`` as an import would write them (None: not known)
    and ``values()`` its ``source_values``, compared when the texts differ (a row written by
    an earlier version, a value that reads the same in other text)."""
    if not records:
        return
    stored = {
        row[0]: tuple(row[1:])
        for row in conn.execute(
            select(item_t.c.record_id, *STORED_TEXTS).where(
                item_t.c.dataset_id == dataset_id, item_t.c.record_id.in_([r for r, _, _ in records])
            )
        )
    }
    for record_id, texts, values in records:
        row = stored.get(record_id)
        # as JSON tells values apart: 1 -> true or 1 -> 1.0 in the source is a change (== says equal)
        if row is not None and (row == texts or same_value(_stored_values(row), values())):
            summary.unchanged += 1
        else:
            summary.changed_in_source.append(record_id)


def _stored_values(texts: tuple) -> tuple:
    """``source_values`` of a stored item, from its ``STORED_TEXTS`` (item_json's rules)."""
    raw_text, refs_text, question, gold_text, payload_text, context_hash, schema_hash = texts
    raw = expand_raw(_loads(raw_text), _loads(refs_text), question, _loads(gold_text))
    return raw, expand_payload(_loads(payload_text), raw), context_hash, schema_hash


def _loads(text):
    return None if text is None else json.loads(text)


def import_run(
    engine: Engine,
    dataset_id: int,
    parsed: ParsedRun,
    ctx: JobContext,
    name: str | None = None,
    actor: str = "import",
) -> ImportSummary:
    """Attach a prediction file's outputs to a dataset's items as a named run.

    Every output must answer an item of the dataset: an unknown id is an error
    naming the line or record, and nothing is written; so is a file with no output.
    Outputs already stored are kept (counted unchanged, or changed in the file), and
    the summary says how many of the dataset's items the run covers. A run of that
    name that already exists gets the file's outputs added, unless it holds another
    model, setup or format (RunMismatch: nothing is written).
    """
    return import_runs(engine, dataset_id, [parsed], ctx, name=name or parsed.run.name, actor=actor,
                       source=parsed.run.source)[0]


def import_runs(
    engine: Engine,
    dataset_id: int,
    parsed_runs: Iterable[ParsedRun],
    ctx: JobContext,
    name: str | None = None,
    actor: str = "import",
    source: str = "",
) -> list[ImportSummary]:
    """``import_run`` of several prediction files in ONE transaction: all of them are
    imported, or (on any error, or a cancel) none. ``parsed_runs`` may be a generator, so
    each file is read when its turn comes. One summary per file, in order; files of the
    same run name add to the same run (each summary's coverage is the run's after it)."""
    with collector_paused(), _database_errors(source, f"run {name!r}" if name else "runs"), engine.begin() as conn:
        return [_import_run(conn, dataset_id, parsed, ctx, name or parsed.run.name, actor) for parsed in parsed_runs]


def _import_run(conn: Connection, dataset_id: int, parsed: ParsedRun, ctx: JobContext, name: str,
                actor: str) -> ImportSummary:
    run = parsed.run
    _lock_for_import(conn, f"run:{dataset_id}:{name}")
    check_storable(run.source, "run", {"meta": run.meta, "name": name, "model": run.model, "setup": run.setup})
    ds_name = conn.execute(select(dataset_t.c.name).where(dataset_t.c.id == dataset_id)).scalar_one()
    row = conn.execute(
        select(run_t.c.id, run_t.c.model, run_t.c.setup, run_t.c.format)
        .where(run_t.c.dataset_id == dataset_id, run_t.c.name == name)
    ).first()
    if row is None:
        run_id = conn.execute(
            run_t.insert().values(
                dataset_id=dataset_id, name=name, format=run.format, source=run.source, model=run.model,
                setup=run.setup, config=run.meta, created_at=utcnow(),
            )
        ).inserted_primary_key[0]
        existing: set = set()
    else:
        _check_same_run(run, name, ds_name, row)
        run_id = row.id
        existing = set(
            conn.execute(select(output_t.c.item_id, output_t.c.replication).where(output_t.c.run_id == run_id)).all()
        )
    item_ids = dict(
        conn.execute(select(item_t.c.record_id, item_t.c.id).where(item_t.c.dataset_id == dataset_id)).all()
    )
    summary = ImportSummary(dataset=ds_name, dataset_id=dataset_id, run=name, run_id=run_id)
    rows: list[dict] = []
    stored: list = []  # (item_id, replication, record_id, the file's values) of outputs already stored
    seen: set = set()
    for n, out in enumerate(parsed.outputs, 1):
        where = f"line {out.source_line}" if out.source_line else f"record {out.record_id!r}"
        item_id = item_ids.get(out.record_id)
        if item_id is None:
            raise InputError(run.source, where, f"id {out.record_id!r} is not an item of dataset {ds_name!r}")
        key = (item_id, out.replication)
        if key in seen:
            raise InputError(run.source, where, f"duplicate output for id {out.record_id!r}")
        seen.add(key)
        check_storable(run.source, where, {"raw": out.raw, "text": out.text, "prediction": out.prediction,
                                           "error": out.error, "extra": out.extra})
        row = {
            "run_id": run_id, "item_id": item_id, "replication": out.replication, "text": out.text,
            "prediction": out.prediction, "status": out.status, "error": out.error, "extra": out.extra,
            "raw": out.raw, "prompt_tokens": out.prompt_tokens, "completion_tokens": out.completion_tokens,
            "cached": False, "created_at": utcnow(),
        }
        if key in existing:
            stored.append((item_id, out.replication, out.record_id, {k: row[k] for k in OUTPUT_FIELDS}))
            if len(stored) >= CHUNK:
                _count_changed_outputs(conn, run_id, stored, summary)
                stored.clear()
            continue
        rows.append(row)
        summary.added += 1
        if len(rows) >= CHUNK:
            insert_many(conn, output_t, rows)
            rows.clear()
        if n % 200 == 0:
            ctx.check_cancelled()
            ctx.progress(n, None, f"{n:,} outputs read")
    if not seen:
        # an empty file would leave an empty run (or nothing new) and exit 0: most likely the
        # wrong file; raising here rolls back the run row made above
        raise InputError(run.source, None, "holds no outputs; nothing was imported")
    insert_many(conn, output_t, rows)
    _count_changed_outputs(conn, run_id, stored, summary)
    summary.covered = conn.execute(
        select(func.count(func.distinct(output_t.c.item_id))).where(output_t.c.run_id == run_id)
    ).scalar()
    summary.dataset_items = len(item_ids)
    audit.record(conn, actor, "run", run_id, "import", after={"source": run.source, "added": summary.added})
    return summary


def _check_same_run(run, name: str, ds_name: str, stored) -> None:
    """Refuse to add a file's outputs to a stored run of another model, setup or format:
    one run would then mix two models' answers and score as neither."""
    fields = [("model", stored.model, run.model), ("setup", stored.setup, run.setup),
              ("format", stored.format, run.format)]
    differ = [(key, held, given) for key, held, given in fields if held != given]
    if not differ:
        return

    def what(values) -> str:  # only what differs: the rest is the same on both sides
        return ", ".join(f"{key} {value!r}" if key != "format" else f"{key} {value}" for key, value in values)

    raise RunMismatch(
        run.source, None,
        f"run {name!r} of dataset {ds_name!r} already holds {what((k, h) for k, h, _ in differ)}, but this file "
        f"has {what((k, g) for k, _, g in differ)}; one run holds one model and setup",
    )


# What an imported output stores from its file, compared on re-import (the rest -- ids,
# created_at, cached, a rerun's latency or retries -- is the app's).
OUTPUT_FIELDS = ("text", "prediction", "status", "error", "extra", "raw", "prompt_tokens", "completion_tokens")


def _count_changed_outputs(conn: Connection, run_id: int, records: list, summary: ImportSummary) -> None:
    """Count the outputs already stored as unchanged, or as changed in the file (kept as stored:
    an import never overwrites an output, whether imported before or produced by a rerun).

    Compared as JSON tells values apart (``jsontext.same_value``: a tuple is the list it is
    written as; 1, 1.0 and true differ, as the file's text does)."""
    if not records:
        return
    cols = [output_t.c[k] for k in OUTPUT_FIELDS]
    item_ids = sorted({item_id for item_id, *_ in records})
    stored = {
        (r.item_id, r.replication): r
        for r in conn.execute(
            select(output_t.c.item_id, output_t.c.replication, *cols).where(
                output_t.c.run_id == run_id, output_t.c.item_id.in_(item_ids)
            )
        )
    }
    for item_id, replication, record_id, values in records:
        row = stored.get((item_id, replication))
        if row is not None and all(same_value(getattr(row, k), values[k]) for k in OUTPUT_FIELDS):
            summary.unchanged += 1
        else:
            summary.changed_in_source.append(
                record_id if not replication else f"{record_id} (replication {replication})"
            )

