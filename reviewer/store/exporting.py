"""Exports: back to the source format, and a generic JSONL with provenance.

The source-format export hands the dataset's format writer every item with its
current gold; with no edits the files equal the originals. The JSONL export
writes one object per item: the item's fields, its current gold, and where
that gold came from (edits, verdicts, who adjudicated and when).

Exports are always standard JSON: a value that has none (NaN, Infinity, which
a database written before imports refused them may hold) stops the export with
the item and JSON path to fix, and no file is left half-written.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import NamedTuple

from sqlalchemy import select
from sqlalchemy.engine import Engine

from reviewer.errors import OutputError, ReviewerError, json_path
from reviewer.formats._jsonio import unstorable
from reviewer.formats.base import DatasetRecord, ExportItem
from reviewer.formats.registry import dataset_formats
from reviewer.jobs import JobContext, over_whole_dataset, silent
from reviewer.store.item_json import ITEM_COLUMNS, JSON_COLUMNS, stored_payload, stored_raw
from reviewer.store.models import Adjudication, Annotation, Blob, Dataset, Item

item_t, blob_t, ann_t, adj_t, dataset_t = (
    Item.__table__, Blob.__table__, Annotation.__table__, Adjudication.__table__, Dataset.__table__,
)


def _blob_texts(conn, hashes) -> dict[str, str]:
    hashes = [h for h in set(hashes) if h]
    out: dict[str, str] = {}
    for start in range(0, len(hashes), 500):
        chunk = hashes[start : start + 500]
        out.update(conn.execute(select(blob_t.c.hash, blob_t.c.text).where(blob_t.c.hash.in_(chunk))).all())
    return out


def dataset_record(conn, dataset_id: int) -> DatasetRecord:
    ds = conn.execute(select(dataset_t).where(dataset_t.c.id == dataset_id)).one()
    meta = dict(ds.meta or {})
    blobs = _blob_texts(conn, meta.pop("_blobs", []))
    return DatasetRecord(name=ds.name, format=ds.format, kind=ds.kind, source=ds.source, meta=meta, blobs=blobs)


def export_items(conn, dataset_id: int) -> list[ExportItem]:
    rows = conn.execute(
        select(
            item_t.c.record_id, item_t.c.gold, item_t.c.context_hash, item_t.c.schema_hash, *JSON_COLUMNS,
        ).where(item_t.c.dataset_id == dataset_id).order_by(item_t.c.position)
    ).all()
    texts = _blob_texts(conn, [h for r in rows for h in (r.context_hash, r.schema_hash)])
    return [
        ExportItem(
            record_id=r.record_id, raw=raw, gold=r.gold, original_gold=r.original_gold,
            context=texts.get(r.context_hash), schema=texts.get(r.schema_hash), payload=stored_payload(r, raw),
        )
        for r in rows
        for raw in (stored_raw(r),)
    ]


@over_whole_dataset
def export_dataset(
    engine: Engine, dataset_id: int, out: Path, ctx: JobContext, record_ids: set[str] | None = None
) -> list[Path]:
    """Write the dataset in its source format under ``out`` (a folder); with
    ``record_ids``, only those items (the released Gold, say)."""
    with engine.connect() as conn:
        record = dataset_record(conn, dataset_id)
        items = export_items(conn, dataset_id)
    if record_ids is not None:
        items = [i for i in items if i.record_id in record_ids]
    for item in items:
        _check_standard(f"item {item.record_id!r}", {"gold": item.gold, "raw": item.raw, "payload": item.payload})
    writer = dataset_formats()[record.format]
    return write_staged(out, lambda folder: writer.write(record, items, folder, ctx))


STAGING_PREFIX = ".reviewer-export-"


def write_staged(out: Path, write) -> list[Path]:
    """Run ``write(folder)``, which writes files under ``folder`` and returns their paths, in a
    new hidden folder inside ``out``, then move every file it wrote to the same place under
    ``out``; return the paths ``write`` returned, under ``out``.

    All or nothing: a writer that fails (a cancel, a full disk, a value it refuses) or a file
    of ``out`` that cannot be replaced (a folder of that name) leaves ``out`` as it was, a
    folder it had to make included. Before, a format writing two files left the first
    written when the second failed. An OSError becomes an OutputError naming the file."""
    made = not out.exists()
    staging = None
    try:
        out.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=out, prefix=STAGING_PREFIX))
        written = write(staging)
        moves = [(p, out / p.relative_to(staging)) for p in sorted(staging.rglob("*")) if p.is_file()]
        for _, target in moves:  # every target checked before the first move
            if target.is_dir():
                raise IsADirectoryError(errno.EISDIR, "a folder of that name is in the way", str(target))
        for source, target in moves:
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(source, target)
        return [out / Path(p).relative_to(staging) for p in written]
    except OSError as exc:
        where = exc.filename or out
        if staging is not None and str(where).startswith(str(staging)):
            where = out / Path(where).relative_to(staging)
        raise _cannot_write(where, exc) from None
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
        if made and out.is_dir() and not any(out.iterdir()):
            out.rmdir()  # it was made for this export, which wrote nothing


class GoldExport(NamedTuple):
    """What a released-Gold export did: items written, items withheld, and how many each
    reason held back (an item may have more than one reason), most first."""

    written: int
    withheld: int
    reasons: dict[str, int]


def provenance_rows(conn, dataset_id: int, item_ids: set[int] | None = None):
    """Yield one JSON-ready dict per item with its gold and how it was settled
    (``item_ids``: only those items)."""
    anns: dict[int, list] = {}
    for a in conn.execute(
        select(ann_t).join(item_t, item_t.c.id == ann_t.c.item_id).where(item_t.c.dataset_id == dataset_id)
    ):
        anns.setdefault(a.item_id, []).append(
            {"annotator": a.annotator, "verdict": a.verdict, "rubric": a.rubric, "error_tags": a.error_tags,
             "note": a.note, "patch": a.patch, "at": a.updated_at.isoformat()}
        )
    adjs = {
        a.item_id: a
        for a in conn.execute(
            select(adj_t).join(item_t, item_t.c.id == adj_t.c.item_id).where(item_t.c.dataset_id == dataset_id)
        )
    }
    for r in conn.execute(select(*ITEM_COLUMNS).where(item_t.c.dataset_id == dataset_id).order_by(item_t.c.position)):
        adj = adjs.get(r.id)
        if item_ids is not None and r.id not in item_ids:
            continue
        yield {
            "record_id": r.record_id, "kind": r.kind, "question": r.question, "gold": r.gold,
            "original_gold": r.original_gold, "gold_edited": r.gold_edited, "category": r.category,
            "difficulty": r.difficulty, "depth": r.depth, "domain": r.domain, "payload": stored_payload(r),
            "provenance": {
                "source_file": r.source_file, "source_line": r.source_line,
                "annotations": anns.get(r.id, []),
                "adjudication": None if adj is None else {
                    "verdict": adj.verdict, "adjudicator": adj.adjudicator, "resolution": adj.resolution,
                    "rationale": adj.rationale, "at": adj.updated_at.isoformat(),
                },
            },
        }


def write_atomically(path: Path, lines) -> int:
    """Write text lines to ``path`` via a temporary file so a crash never leaves half a file.
    The file gets the permissions any new file of the user's gets (0o666 less the umask), not
    the temporary file's private 0o600: an exported release is meant to be shared."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    except OSError as exc:
        raise _cannot_write(path, exc) from None
    count = 0
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for line in lines:
                fh.write(line)
                count += 1
        os.replace(tmp, path)
    except BaseException as exc:
        os.unlink(tmp)
        if isinstance(exc, OSError):  # a folder of that name, a full disk: a message, not a traceback
            raise _cannot_write(path, exc) from None
        raise
    return count


def _cannot_write(path, exc: OSError) -> OutputError:
    return OutputError(f"cannot write {path}: {exc.strerror or exc}; nothing was exported")


def _umask() -> int:
    """The process's umask, read without changing it where Linux says it (os.umask can only
    be read by setting it, which another thread's new file could catch)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _check_standard(what: str, fields: dict) -> None:
    """ReviewerError naming ``what`` and the JSON path of a value standard JSON cannot hold."""
    for name, value in fields.items():
        found = unstorable(value)
        if found:
            where = f"{name} {json_path(found[0])}" if name else json_path(found[0])
            raise ReviewerError(f"{what}, {where}: holds {found[1]}; "
                                "fix it (e.g. edit the gold) before exporting")


@over_whole_dataset
def export_jsonl(engine: Engine, dataset_id: int, path: Path, item_ids: set[int] | None = None,
                 ctx: JobContext | None = None) -> int:
    """Write the generic JSONL export (``item_ids``: only those items); return the number written.
    ``ctx``: progress every 1,000 items, and a cancel that leaves ``path`` as it was (before,
    the export ignored it and wrote the whole file while the dialog said nothing was written)."""
    ctx = ctx or silent()
    rows = []
    with engine.connect() as conn:
        for r in provenance_rows(conn, dataset_id, item_ids):
            rows.append(r)
            if len(rows) % 1000 == 0:
                ctx.check_cancelled()
                ctx.progress(len(rows), None, f"{len(rows):,} items read")
    for r in rows:
        _check_standard(f"item {r['record_id']!r}", {"": r})

    def lines():
        for n, r in enumerate(rows, 1):
            if n % 1000 == 0:
                ctx.check_cancelled()  # write_atomically removes its temporary file: nothing written
                ctx.progress(n, len(rows), f"{n:,} of {len(rows):,} items written")
            yield json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n"

    return write_atomically(path, lines())
