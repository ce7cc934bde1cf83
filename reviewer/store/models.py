"""The tables. SQLModel classes, used through SQLAlchemy Core for bulk paths.

Every JSON-valued column uses the portable JSON type (TEXT on SQLite, json on
PostgreSQL). ``version`` columns implement optimistic concurrency: a write
states the version it was based on and fails when the row moved on.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, Column, ForeignKey, Index, Integer, String, Text, UniqueConstraint, text
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    return datetime.now(UTC)


def _json(nullable: bool = True) -> Any:
    return Field(default=None, sa_column=Column(JSON, nullable=nullable))


def _text() -> Any:
    return Field(default=None, sa_column=Column(Text, nullable=True))


def _fk(target: str, index: bool = True) -> Any:
    return Field(
        sa_column=Column(Integer, ForeignKey(target, ondelete="CASCADE"), nullable=False, index=index)
    )


class Blob(SQLModel, table=True):
    """A large text stored once by content hash (tool responses, schemas)."""

    hash: str = Field(sa_column=Column(String(64), primary_key=True))
    text: str = Field(sa_column=Column(Text, nullable=False))


class Dataset(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_column=Column(String(200), unique=True, nullable=False))
    format: str
    kind: str
    source: str
    meta: dict | None = _json()
    created_at: datetime = Field(default_factory=utcnow)


class Item(SQLModel, table=True):
    """A benchmark item. ``raw`` is the source record as read; ``gold`` the current
    gold (edited by fixes and adjudication); ``original_gold`` the gold as imported,
    SQL NULL until the gold first changes. Stored so that each value is in the row
    once: read them through reviewer.store.item_json."""

    # On PostgreSQL both carry the id (schema step 6): the item table's ordered id list
    # by position or record id is then an index-only scan (see migrations.browse_indexes).
    __table_args__ = (
        UniqueConstraint("dataset_id", "record_id", name="uq_item_record", postgresql_include=["id"]),
        Index("ix_item_dataset_position", "dataset_id", "position", postgresql_include=["id"]),
        # The edited items of a dataset (the "edited" filter and count): only they are in it, so
        # an import, whose items are all unedited, adds no entry (schema step 10).
        Index("ix_item_gold_edited", "dataset_id", sqlite_where=text("gold_edited = 1"),
              postgresql_where=text("gold_edited")),
    )
    id: int | None = Field(default=None, primary_key=True)
    dataset_id: int = _fk("dataset.id", index=False)
    record_id: str = Field(sa_column=Column(String(200), nullable=False))
    position: int
    kind: str
    question: str | None = _text()
    gold: Any = _json()
    # none_as_null: Python None is SQL NULL here ("the gold has not changed"), not JSON null
    original_gold: Any = Field(default=None, sa_column=Column(JSON(none_as_null=True), nullable=True))
    raw: dict | None = _json()
    raw_refs: dict | None = Field(default=None, sa_column=Column(JSON(none_as_null=True), nullable=True))
    payload: dict | None = _json()
    context_hash: str | None = Field(default=None, foreign_key="blob.hash")
    schema_hash: str | None = Field(default=None, foreign_key="blob.hash")
    category: str | None = None
    difficulty: str | None = None
    depth: int | None = None
    domain: str | None = None
    source_file: str | None = None
    source_line: int | None = None
    gold_edited: bool = False  # gold != original_gold
    version: int = 1


class Run(SQLModel, table=True):
    """A model configuration's outputs on a dataset: imported or produced by a rerun.
    ``config`` never holds an API key (see reviewer.rerun.secrets)."""

    __table_args__ = (UniqueConstraint("dataset_id", "name", name="uq_run_name"),)
    id: int | None = Field(default=None, primary_key=True)
    dataset_id: int = _fk("dataset.id")
    name: str
    format: str | None = None
    source: str | None = None
    model: str | None = None
    setup: str | None = None
    endpoint: str | None = None
    config: dict | None = _json()
    created_at: datetime = Field(default_factory=utcnow)


class Output(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("run_id", "item_id", "replication", name="uq_output"),)
    id: int | None = Field(default=None, primary_key=True)
    run_id: int = _fk("run.id", index=False)
    item_id: int = _fk("item.id")
    replication: int = 0
    text: str | None = _text()
    prediction: Any = _json()
    status: str = "ok"
    error: str | None = _text()
    extra: dict | None = _json()
    raw: dict | None = _json()
    latency_ms: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    retries: int | None = None
    finish_reason: str | None = None
    cached: bool = False
    created_at: datetime = Field(default_factory=utcnow)


class Score(SQLModel, table=True):
    __table_args__ = (
        UniqueConstraint("output_id", "scorer", "mode", name="uq_score"),
        # A run's scores in a mode (reviewer.scoring.job.stored_results), and the item table's
        # score sort walks it in value order (reviewer.store.queries._scored_items);
        # PostgreSQL carries the id too, for the "first score of the output" check.
        Index("ix_score_sort", "run_id", "mode", "value", "output_id", postgresql_include=["id"]),
    )
    id: int | None = Field(default=None, primary_key=True)
    output_id: int = _fk("output.id", index=False)
    # The output's run and item, copied by the database (reviewer.store.migrations.SCORE_KEYS:
    # triggers set them from output_id on every write, whatever the writer sent): a run's
    # scores without a join, and team mode's score policy probes the item's assignment directly.
    run_id: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))
    item_id: int | None = Field(default=None, sa_column=Column(Integer, nullable=True))
    scorer: str
    mode: str
    primary: str | None = None  # the headline metric's name; ``value`` is its value
    value: float | None = None
    passed: bool | None = None
    skipped: bool = False
    metrics: dict | None = _json()
    notes: list | None = _json()
    created_at: datetime = Field(default_factory=utcnow)


class Person(SQLModel, table=True):
    """Someone who annotates or adjudicates. ``role``: annotator | adjudicator."""

    name: str = Field(sa_column=Column(String(100), primary_key=True))
    role: str = "annotator"


class Annotation(SQLModel, table=True):
    """One annotator's review of one item: verdict, rubric, error tags, note and,
    for a Fix, the RFC 6902 patch on the gold and the gold it produces."""

    __table_args__ = (UniqueConstraint("item_id", "annotator", name="uq_annotation"),)
    id: int | None = Field(default=None, primary_key=True)
    item_id: int = _fk("item.id")
    annotator: str = Field(index=True)
    verdict: str | None = None  # pass | fix | reject
    rubric: dict | None = _json()
    error_tags: list | None = _json()
    note: str | None = _text()
    patch: list | None = _json()
    fixed_gold: Any = _json()
    version: int = 1
    # The first submitted version (the first save with a verdict), kept unchanged for the
    # agreement statistics and automatic settlement; ``first_key`` is its agreement key
    # (reviewer.review.protocol.agreement_key): equal keys mean "these annotators agree".
    first_submission: Any = _json()
    first_key: str | None = Field(default=None, sa_column=Column(String(64), nullable=True))
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class ItemReview(SQLModel, table=True):
    """Where an item stands in the review protocol (reviewer.review.protocol.Stage).

    The one stored copy of the stage: written only by the review core (and, in team
    mode, by its SECURITY DEFINER trigger); everything else reads it."""

    __tablename__ = "item_review"
    item_id: int = Field(
        sa_column=Column(Integer, ForeignKey("item.id", ondelete="CASCADE"), primary_key=True)
    )
    stage: str = Field(sa_column=Column(String(20), nullable=False, index=True))
    version: int = 1
    updated_at: datetime = Field(default_factory=utcnow)


class Assignment(SQLModel, table=True):
    """Item ``item_id`` is assigned to ``annotator`` (reviewer.review.assignment)."""

    __table_args__ = (UniqueConstraint("item_id", "annotator", name="uq_assignment"),)
    id: int | None = Field(default=None, primary_key=True)
    dataset_id: int = _fk("dataset.id")
    item_id: int = _fk("item.id")
    annotator: str = Field(sa_column=Column(String(100), nullable=False, index=True))
    created_at: datetime = Field(default_factory=utcnow)


class Adjudication(SQLModel, table=True):
    """The settled outcome of an item: final verdict, final gold and why.
    ``resolution``: "auto" (both annotators agreed) or "manual"."""

    id: int | None = Field(default=None, primary_key=True)
    item_id: int = Field(
        sa_column=Column(Integer, ForeignKey("item.id", ondelete="CASCADE"), unique=True, nullable=False)
    )
    adjudicator: str | None = None
    verdict: str
    final_gold: Any = _json()
    rubric: dict | None = _json()  # the settled rubric (ambiguity decides gold release)
    rationale: str | None = _text()
    resolution: str = "manual"
    version: int = 1
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class AuditEntry(SQLModel, table=True):
    """Every change: who, when, what, before and after. Never updated or deleted."""

    __tablename__ = "audit_log"
    __table_args__ = (Index("ix_audit_entity", "entity", "entity_id"),)
    id: int | None = Field(default=None, primary_key=True)
    at: datetime = Field(default_factory=utcnow)
    actor: str
    entity: str  # dataset | item | run | annotation | adjudication
    entity_id: int | None = None
    action: str  # import | edit_gold | annotate | adjudicate | delete ...
    before: Any = _json()
    after: Any = _json()
