"""What a guard sees of an item and what it answers.

A guard is a plain object with ``name``, ``version``, ``applies(item, settings)``,
``inputs(item, settings)`` (the JSON-able values its result depends on: their
digest decides when a stored result is stale) and ``check(item, settings)``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from reviewer.guards.settings import Settings

PASS, FAIL, SKIP, ERROR = "pass", "fail", "skip", "error"
STATUSES = (PASS, FAIL, SKIP, ERROR)


@dataclass
class GuardItem:
    """The parts of an item the guards read (a plain value, safe on any thread)."""

    id: int
    record_id: str
    kind: str
    gold: Any
    source: str  # the text the gold should be grounded in (text, tool response), "" when none
    schema: str | None = None
    category: str | None = None
    payload: dict = field(default_factory=dict)
    question: str | None = None


@dataclass
class GuardResult:
    guard: str
    status: str
    summary: str = ""
    details: dict = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return self.status == FAIL


class Guard(Protocol):
    name: str
    label: str
    version: int

    def applies(self, item: GuardItem, settings: Settings) -> bool: ...

    def inputs(self, item: GuardItem, settings: Settings) -> Any: ...

    def check(self, item: GuardItem, settings: Settings) -> GuardResult: ...


def source_text(kind: str, payload: dict | None, context: str | None, question: str | None = None) -> str:
    """The item's source: the text of a text-to-JSON item, else the tool response /
    source document (``context``), else nothing."""
    payload = payload or {}
    text = payload.get("text")
    if isinstance(text, str) and text:
        return text
    return context or ""


def leakage_parts(item: GuardItem) -> tuple[str, str]:
    """What the leakage audit compares of an item: (its text, a second part that must match too
    for two items to be near-duplicates; "" when the text alone decides).

    Most kinds: the source. A tool-response QA item (paper 000) is the triple (response,
    question, answer); the benchmark asks many questions about each API response by design,
    and runs its question templates over every response, so neither a shared response nor a
    shared template question makes two items the same. Two of them are duplicates when they ask
    the same question with the same answer: the text is the question, the second part the gold."""
    if item.kind == "tool_qa":
        return (item.question or "").strip(), gold_text(item.gold)
    return item.source, ""


def gold_text(gold: Any) -> str:
    if gold is None:
        return ""
    return gold if isinstance(gold, str) else json.dumps(gold, sort_keys=True, ensure_ascii=False)


def digest(*parts: Any) -> str:
    """A stable SHA-256 of JSON-able values (key order ignored)."""
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def input_hash(guard: Guard, item: GuardItem, settings: Settings) -> str:
    return digest(guard.name, guard.version, guard.inputs(item, settings))


def leaves(value: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """(path parts, value) of every scalar inside a JSON value, in document order."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, path + (i,))
    else:
        yield path, value
