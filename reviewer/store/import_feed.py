"""Reading a big dataset file in a second process, so an import uses both cores (issue 14).

An import is reading (decoding JSON, checking shapes, encoding the row's JSON
columns: Python that holds the GIL) and writing (SQLite stepping its B-trees,
PostgreSQL's COPY). In one process they take turns: a NesTools item costs
~30 us of reading and ~40 us of writing. Here a child process reads the file and
hands the importer finished rows, chunk by chunk, through a pipe; the importer
(``importing.import_dataset``) only checks ids against the database, numbers
the rows and writes them, so reading the next chunk and writing this one run at
the same time.

Contracts:
- Same result as reading in the importer: the child runs the same reader and the
  same per-item check (``checks.check_item``), and encodes the JSON columns as
  the bulk writer would (``jsontext.encode_storable``: ``encode_json``'s text for a checked
  value); what is stored reads back the same.
- Bad input: the child's InputError comes back as the same InputError (file,
  line or JSON path, message), raised in the importer, whose transaction then
  writes nothing. The child never prints a traceback to the user.
- Bounded memory: a chunk is ``CHUNK`` items or about ``CHUNK_BYTES`` of JSON text, whichever
  comes first (items of a megabyte each would have made 1,000-item chunks of a gigabyte);
  the pipe holds a few kilobytes; the child blocks writing its next chunk until the importer
  has taken the previous one.
- Cancel: ``close`` ends the child (the importer checks the job's cancel flag between chunks).
- When the child cannot start, or dies before sending anything, the importer
  reads in its own process as before (``start`` returns None / ``Broken`` is raised).

Used for formats whose ``read`` only opens the file and reads items as they are
iterated (``FORMATS``), and files of at least ``MIN_BYTES``: starting a Python
process costs ~0.15 s, more than a small file's whole import.

The child: ``python -P -m reviewer.store.import_feed`` (-P: the working folder is not on its
path), a pickled request on stdin (format name, path), pickled messages on stdout:
``("chunk", blobs, entries, total)``, ``("error", path, where, message)``, ``("done", count)``;
``total`` is the reader's latest estimate of the items in the file (None when it gives none).
An entry is ``(record_id, where, file, row)``; ``row`` holds the values of
``ROW_KEYS`` with the JSON columns as JSON text, stored as reviewer.store.item_json says
(``source_texts`` gives those a re-import compares with a stored item).
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from reviewer.errors import InputError, ReviewerError
from reviewer.store.raw_refs import compact_raw

# Formats whose read() is lazy (the importer reads the dataset header, the child the
# items), with the module that registers each.
FORMATS = {"nestools": "reviewer.formats.nestools"}
MIN_BYTES = 8 * 1024 * 1024
CHUNK = 1000  # items a message at most
CHUNK_BYTES = 8 * 1024 * 1024  # and about this much JSON text: a chunk of big items is sent sooner

# The item columns the child fills, in order; the importer adds dataset_id and position.
ROW_KEYS = (
    "record_id", "kind", "question", "gold", "original_gold", "raw", "raw_refs", "payload", "context_hash",
    "schema_hash", "category", "difficulty", "depth", "domain", "source_file", "source_line",
    "gold_edited", "version",
)


def source_texts(row) -> tuple:
    """A feed row's texts in the order of ``importing.STORED_TEXTS`` (the gold: as imported)."""
    get = dict(zip(ROW_KEYS, row))
    return (get["raw"], get["raw_refs"], get["question"], get["gold"], get["payload"], get["context_hash"],
            get["schema_hash"])


class Broken(ReviewerError):
    """The child ended without a word (killed, crashed): the caller may read in-process instead."""


def wanted(fmt_name: str, path: Path) -> bool:
    """Whether an import of ``path`` in format ``fmt_name`` should read in a child process."""
    if fmt_name not in FORMATS or os.environ.get("REVIEWER_IMPORT_FEED") == "0":
        return False
    try:
        target = path
        if path.is_dir():
            target = next((p for p in (path / "test_data.jsonl", path / "data" / "test_data.jsonl") if p.is_file()), path)
        return target.is_file() and target.stat().st_size >= MIN_BYTES
    except OSError:
        return False


class Feed:
    """The parent's side: chunks of rows from the child, in file order."""

    def __init__(self, fmt_name: str, path: Path, options: dict[str, Path] | None = None):
        self.fmt_name = fmt_name
        self.path = Path(path)
        self.options = {key: str(value) for key, value in (options or {}).items()}  # the reader's file arguments
        self.proc: subprocess.Popen | None = None
        self.errors = None
        self.received = 0

    def start(self) -> Feed | None:
        """Start the child; None when it cannot be started (the caller reads in-process)."""
        package_root = str(Path(__file__).resolve().parents[2])
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([package_root, *filter(None, [env.get("PYTHONPATH")])])
        self.errors = tempfile.TemporaryFile()
        try:
            self.proc = subprocess.Popen(
                # -P: not the working folder first on sys.path (as -m would put it): a
                # tempfile.py or reviewer/ in the folder the app was started from must not run here
                [sys.executable, "-P", "-m", "reviewer.store.import_feed"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errors, env=env,
            )
            pickle.dump({"format": self.fmt_name, "path": str(self.path), "options": self.options}, self.proc.stdin)
            self.proc.stdin.close()
        except OSError:
            self.close()
            return None
        return self

    def chunks(self) -> Iterator[tuple[dict, list, int | None]]:
        """``(blobs, entries, total)`` per chunk (``total``: the items the file is thought to
        hold, for a progress bar); raises the child's InputError, or Broken."""
        assert self.proc is not None
        while True:
            try:
                message = pickle.load(self.proc.stdout)
            except (EOFError, pickle.UnpicklingError, OSError):
                raise Broken(self._death()) from None
            kind = message[0]
            if kind == "chunk":
                self.received += 1
                yield message[1], message[2], message[3]
            elif kind == "error":
                raise InputError(*message[1:])
            elif kind == "done":
                return
            else:  # pragma: no cover - the child sends only the three
                raise Broken(f"unexpected message {kind!r}")

    def _death(self) -> str:
        """What the child left on stderr, its last line (for a log; never shown with a traceback)."""
        code = self.proc.wait() if self.proc else None
        last = ""
        if self.errors is not None:
            self.errors.seek(0)
            lines = self.errors.read().decode("utf-8", "replace").strip().splitlines()
            last = lines[-1][:200] if lines else ""
        return f"the import's reading process ended (exit code {code}) {last}".strip()

    def close(self) -> None:
        """End the child (if still running) and free its pipe: after the import, a failure or a cancel."""
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            for stream in (self.proc.stdin, self.proc.stdout):
                if stream is not None and not stream.closed:
                    stream.close()
            self.proc.wait()
            self.proc = None
        if self.errors is not None:
            self.errors.close()
            self.errors = None


def _child() -> None:
    """Read the requested file, send chunks of finished rows; errors as messages."""
    import importlib

    from reviewer.formats.base import blob_hash
    from reviewer.formats.registry import loaded_dataset_format
    from reviewer.jobs import JobContext
    from reviewer.store.checks import check_item, where_in_file
    from reviewer.store.jsontext import encode_storable
    from reviewer.store.payloads import compact

    request = pickle.load(sys.stdin.buffer)
    stdout, sys.stdout = sys.stdout, sys.stderr  # nothing a reader prints can corrupt the pipe
    out = stdout.buffer

    def send(message) -> None:
        pickle.dump(message, out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()

    try:
        importlib.import_module(FORMATS[request["format"]])  # that reader only: start-up time
        options = {key: Path(value) for key, value in request.get("options", {}).items()}
        reading = JobContext()  # the reader's progress: its estimate of the total goes with each chunk
        parsed = loaded_dataset_format(request["format"]).read(Path(request["path"]), reading, **options)

        def total():
            return reading.last.total if reading.last is not None else None

        source = parsed.dataset.source
        seen_blobs: set[str] = set()
        blobs: dict[str, str] = {}
        entries: list = []
        count = 0

        def put(text):
            if text is None:
                return None
            key = blob_hash(text)
            if key not in seen_blobs:
                seen_blobs.add(key)
                blobs[key] = text
            return key

        refs_texts: dict[tuple, str] = {}

        def refs_text(refs: dict) -> str:  # a format's records share one or two: encode each once
            key = tuple(refs.items())
            text = refs_texts.get(key)
            if text is None:
                text = refs_texts[key] = encode_storable(refs)
            return text

        size = 0  # characters of JSON text in the chunk so far
        for rec in parsed.items:
            check_item(rec, source)  # from here on the record is storable: no NaN, no infinity
            raw, raw_refs = compact_raw(rec.raw, rec.question, rec.gold)
            gold_text, raw_text = encode_storable(rec.gold), encode_storable(raw)
            payload_text = encode_storable(compact(rec.payload, rec.raw))
            entries.append((
                rec.record_id, where_in_file(rec), rec.source_file or source, (
                    rec.record_id, rec.kind, rec.question, gold_text, None, raw_text,
                    None if raw_refs is None else refs_text(raw_refs), payload_text, put(rec.context),
                    put(rec.schema), rec.category, rec.difficulty, rec.depth, rec.domain, rec.source_file,
                    rec.source_line, False, 1,
                ),
            ))
            count += 1
            size += len(gold_text) + len(raw_text) + len(payload_text) + len(rec.question or "")
            if len(entries) >= CHUNK or size >= CHUNK_BYTES:
                send(("chunk", blobs, entries, total()))
                blobs, entries, size = {}, [], 0
        if entries or blobs:
            send(("chunk", blobs, entries, total()))
        send(("done", count))
    except InputError as exc:
        send(("error", exc.path, exc.where, exc.message))
    except BrokenPipeError:  # the importer stopped (cancel, failure): nothing to tell
        pass


if __name__ == "__main__":
    import gc

    gc.disable()  # as the importer does (jobs.collector_paused): decoded JSON is acyclic
    _child()
