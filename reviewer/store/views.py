"""Read-only views the store hands out: plain dataclasses, safe to pass to any thread."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from reviewer.store.jsontext import same_value


@dataclass(frozen=True)
class DatasetInfo:
    id: int
    name: str
    format: str
    kind: str
    source: str
    items: int
    runs: int
    created_at: datetime


@dataclass(frozen=True)
class RunInfo:
    id: int
    dataset_id: int
    name: str
    model: str | None
    setup: str | None
    format: str | None
    outputs: int
    errors: int
    created_at: datetime


@dataclass(frozen=True)
class ItemRow:
    """One line of the item table."""

    id: int
    record_id: str
    position: int
    kind: str
    category: str | None
    difficulty: str | None
    depth: int | None
    domain: str | None
    question: str | None
    version: int
    edited: bool


@dataclass
class ItemDetail:
    """Everything the item view shows; large texts are loaded with the item."""

    id: int
    dataset_id: int
    dataset: str
    record_id: str
    position: int
    kind: str
    question: str | None
    gold: Any
    original_gold: Any
    raw: dict
    payload: dict
    context: str | None
    schema: str | None
    category: str | None
    difficulty: str | None
    depth: int | None
    domain: str | None
    source_file: str | None
    source_line: int | None
    version: int

    @property
    def gold_edited(self) -> bool:
        return not same_value(self.gold, self.original_gold)


@dataclass(frozen=True)
class OutputView:
    id: int
    run_id: int
    run: str
    model: str | None
    item_id: int
    replication: int
    text: str | None
    prediction: Any
    status: str
    error: str | None
    extra: dict = field(default_factory=dict)
    latency_ms: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


@dataclass(frozen=True)
class AuditView:
    at: datetime
    actor: str
    entity: str
    entity_id: int | None
    action: str
    before: Any
    after: Any
