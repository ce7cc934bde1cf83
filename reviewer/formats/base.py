"""The seam between file formats and the store.

A format module turns benchmark files into plain records and back. It never
touches the database: the store persists what a reader yields (in one
transaction) and hands a writer the items with their current gold.

Round-trip contract: ``write(read(files))`` with no edits gives files equal to
the originals (JSON value-equal, workbook cell-equal). To make that possible
every record keeps ``raw``, the source record exactly as read, and the writer
only replaces the gold inside it when the gold was edited.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from reviewer.jobs import JobContext
from reviewer.store.jsontext import same_value


def blob_hash(text: str) -> str:
    """Content address of a large text (tool responses, schemas)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class ItemRecord:
    """One benchmark item as read from its source files.

    ``gold`` is a JSON value whose shape depends on the kind: the answer string
    (tool_qa), the gold object (extraction), the list of calls (call_chain),
    the list of possible answers (function_call), the sorted expected tool names
    (tool_select) or None (schema_gen has no single gold).
    ``payload`` holds the kind's small source fields (API list, tool list, text,
    messages...). Large texts shared by many items (a tool response, a schema)
    go in ``context`` and ``schema`` and are stored once by content hash.
    """

    record_id: str
    kind: str
    gold: Any
    raw: dict
    question: str | None = None
    payload: dict = field(default_factory=dict)
    context: str | None = None  # JSON text of the tool response or source document
    schema: str | None = None  # JSON Schema text the output must satisfy
    category: str | None = None  # task type (tool_qa) or category (extraction) ...
    difficulty: str | None = None
    depth: int | None = None
    domain: str | None = None
    source_file: str | None = None
    source_line: int | None = None  # 1-based line or row, when the format has lines
    # True when the reader already found every JSON value and text above storable
    # (each is part of a source record checked as it was read); the store then
    # skips its own check of them, which would find the same.
    storable_checked: bool = False


@dataclass
class DatasetRecord:
    """What a reader learned about the dataset as a whole.

    ``meta`` is whatever the writer needs to rebuild the files (file names,
    column order, responses not referenced by any item...). Large texts in it
    are referenced by hash and their contents put in ``blobs``.
    """

    name: str
    format: str
    kind: str
    source: str
    meta: dict = field(default_factory=dict)
    blobs: dict[str, str] = field(default_factory=dict)


@dataclass
class ParsedDataset:
    dataset: DatasetRecord
    items: Iterator[ItemRecord]


@dataclass
class OutputRecord:
    """One model output for one item, as read from a benchmark's prediction file.

    ``text`` is what the model said (model_output); ``prediction`` what the
    benchmark scores (predicted_answer, the parsed JSON, ...), when the file
    carries one apart from the text. ``raw`` keeps the source record.
    """

    record_id: str
    text: str | None
    raw: dict
    prediction: Any = None
    replication: int = 0
    status: str = "ok"  # ok | error
    error: str | None = None
    extra: dict = field(default_factory=dict)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    source_line: int | None = None


@dataclass
class RunRecord:
    name: str
    format: str
    source: str
    model: str | None = None
    setup: str | None = None
    meta: dict = field(default_factory=dict)


@dataclass
class ParsedRun:
    run: RunRecord
    outputs: Iterator[OutputRecord]


@dataclass
class ExportItem:
    """An item handed to a writer: the record as imported plus its current gold."""

    record_id: str
    raw: dict
    gold: Any
    original_gold: Any
    context: str | None = None
    schema: str | None = None
    payload: dict = field(default_factory=dict)

    @property
    def gold_edited(self) -> bool:
        return not same_value(self.gold, self.original_gold)


@dataclass
class ExportOutput:
    record_id: str
    raw: dict
    text: str | None
    prediction: Any


class DatasetFormat(Protocol):
    """A benchmark's dataset files. Implementations register with ``@dataset_format``."""

    name: str  # short id used on the command line, e.g. "nestools"
    label: str  # what the GUI shows
    kind: str  # an ItemKind value

    def detect(self, path: Path) -> bool:
        """True when ``path`` (file or folder) looks like this format."""

    def read(self, path: Path, ctx: JobContext) -> ParsedDataset:
        """Parse ``path``; raise InputError naming file and line/record/JSON path."""

    def write(
        self,
        dataset: DatasetRecord,
        items: list[ExportItem],
        out: Path,
        ctx: JobContext,
    ) -> list[Path]:
        """Write the dataset under ``out`` in the source format; return the files."""


class RunFormat(Protocol):
    """A benchmark's prediction files. Implementations register with ``@run_format``."""

    name: str
    label: str
    dataset_format: str  # the DatasetFormat.name whose items these outputs answer

    def detect(self, path: Path) -> bool: ...

    def read(self, path: Path, ctx: JobContext) -> ParsedRun: ...
